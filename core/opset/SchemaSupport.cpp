// Shared schema helpers.
#include "opset/SchemaSupport.h"

#include <onnx/defs/shape_inference.h>

namespace portolan::opset {

const std::vector<std::string> &floatTypes()
{
    static const std::vector<std::string> types{"tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"};
    return types;
}

void inferAs(onnx::InferenceContext &ctx, const char *op, int version)
{
    const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(op, version, "");
    if (schema == nullptr || !schema->has_type_and_shape_inference_function()) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        return;
    }
    schema->GetTypeAndShapeInferenceFunction()(ctx);
}

} // namespace portolan::opset
