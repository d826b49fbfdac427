// Schemas of Gelu, LayerNormalization, RMSNormalization, SkipLayerNormalization and Attention (ai.portolan).
#include "opset/PortolanOps.h"

#include <onnx/defs/schema.h>

namespace portolan::opset {

void registerFusedTransformerSchemas()
{
}

} // namespace portolan::opset
