// ONNX 1.12 inference functions that trust what they read run behind checks of it: the fuzzers found
// each of these crashing Portolan through them (tests/data/hostile/fuzz/README.md).
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <functional>
#include <string>

namespace portolan::opset {

namespace {

using Precondition = std::function<void(onnx::InferenceContext &)>;

int knownRank(onnx::InferenceContext &ctx, int input)
{
    if (static_cast<int>(ctx.getNumInputs()) <= input || !onnx::hasInputShape(ctx, input))
        return -1;
    return onnx::getInputShape(ctx, input).dim_size();
}

/// Input `input` has at least `rank` dims (STFT-17 reads the signal's dim 1: SEGV on a rank-0 signal).
Precondition rankAtLeast(const char *op, int input, int rank)
{
    return [=](onnx::InferenceContext &ctx) {
        if (const int have = knownRank(ctx, input); have >= 0 && have < rank)
            fail_shape_inference(op, ": input ", input, " has rank ", have, "; it needs at least ", rank);
    };
}

/// X and W have one rank (convPoolShapeInference takes the kernel from W's dims and indexes the
/// per-axis attributes with them: SEGV on a rank-2 X with a rank-4 W).
Precondition sameRank(const char *op, int x, int w)
{
    return [=](onnx::InferenceContext &ctx) {
        const int rankX = knownRank(ctx, x), rankW = knownRank(ctx, w);
        if (rankX >= 0 && rankW >= 0 && rankX != rankW)
            fail_shape_inference(op, ": input ", x, " has rank ", rankX, " and the weights (input ", w, ") rank ", rankW,
                                 "; they must be equal");
    };
}

/// blocksize in [1, 3037000499] (DepthToSpace divides by blocksize², which a larger one overflows
/// to 0: SIGFPE).
Precondition blocksizeInRange(const char *op)
{
    return [=](onnx::InferenceContext &ctx) {
        const onnx::AttributeProto *attribute = ctx.getAttribute("blocksize");
        if (attribute == nullptr)
            fail_shape_inference(op, ": the blocksize attribute is missing");
        if (attribute->i() < 1 || attribute->i() > 3037000499LL)
            fail_shape_inference(op, ": blocksize ", attribute->i(), " is not in [1, 3037000499]");
    };
}

struct Hardened {
    const char *op;
    int version;
    Precondition check;
};

} // namespace

void hardenLibOnnxInference()
{
    const Hardened list[] = {
        {"STFT", 17, rankAtLeast("STFT", 0, 2)},
        {"Conv", 1, sameRank("Conv", 0, 1)},
        {"Conv", 11, sameRank("Conv", 0, 1)},
        {"ConvInteger", 10, sameRank("ConvInteger", 0, 1)},
        {"QLinearConv", 10, sameRank("QLinearConv", 0, 3)},
        {"DepthToSpace", 1, blocksizeInRange("DepthToSpace")},
        {"DepthToSpace", 11, blocksizeInRange("DepthToSpace")},
        {"DepthToSpace", 13, blocksizeInRange("DepthToSpace")},
        {"SpaceToDepth", 1, blocksizeInRange("SpaceToDepth")},
        {"SpaceToDepth", 13, blocksizeInRange("SpaceToDepth")},
    };
    for (const Hardened &entry : list) {
        auto *schema = const_cast<onnx::OpSchema *>(onnx::OpSchemaRegistry::Schema(entry.op, entry.version, ""));
        if (schema == nullptr || schema->SinceVersion() != entry.version || !schema->has_type_and_shape_inference_function())
            continue;
        onnx::InferenceFunction original = schema->GetTypeAndShapeInferenceFunction();
        schema->TypeAndShapeInferenceFunction([check = entry.check, original](onnx::InferenceContext &ctx) {
            check(ctx);
            original(ctx);
        });
    }
}

} // namespace portolan::opset
