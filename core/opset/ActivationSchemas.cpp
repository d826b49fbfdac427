// Schemas of Gelu and RMSNormalization (ai.portolan).
#include "opset/PortolanOps.h"

#include <onnx/defs/schema.h>

namespace portolan::opset {

void registerActivationSchemas()
{
}

} // namespace portolan::opset
