// Schemas of FusedConv, FusedGemm, FusedMatMul and FusedElementwise (ai.portolan).
#include "opset/PortolanOps.h"

#include <onnx/defs/schema.h>

namespace portolan::opset {

void registerFusedLinearSchemas()
{
}

} // namespace portolan::opset
