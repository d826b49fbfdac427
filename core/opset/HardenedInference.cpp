// ONNX 1.12 inference functions that index an input's dims past the rank they assume run behind a
// rank check (STFT-17 read the signal's dim 1 of a rank-0 signal: SEGV, found by fuzz_load_model).
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

namespace portolan::opset {

void hardenLibOnnxInference()
{
    struct Need {
        const char *op;
        int version;
        int input;
        int rank;
    };
    for (const Need need : {Need{"STFT", 17, 0, 2}}) {
        auto *schema = const_cast<onnx::OpSchema *>(onnx::OpSchemaRegistry::Schema(need.op, need.version, ""));
        if (schema == nullptr || schema->SinceVersion() != need.version || !schema->has_type_and_shape_inference_function())
            continue;
        onnx::InferenceFunction original = schema->GetTypeAndShapeInferenceFunction();
        schema->TypeAndShapeInferenceFunction([need, original](onnx::InferenceContext &ctx) {
            if (static_cast<int>(ctx.getNumInputs()) > need.input && onnx::hasInputShape(ctx, need.input) &&
                onnx::getInputShape(ctx, need.input).dim_size() < need.rank)
                fail_shape_inference(need.op, ": input ", need.input, " has rank ",
                                     onnx::getInputShape(ctx, need.input).dim_size(), "; it needs at least ", need.rank);
            original(ctx);
        });
    }
}

} // namespace portolan::opset
