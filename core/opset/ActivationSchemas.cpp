// Schemas of Gelu and RMSNormalization (ai.portolan), documented in docs/portolan-ops.md. Gelu is
// ONNX opset 20's, for models below opset 20; RMSNormalization has no standard op at opset 17.
#include "opset/PortolanOps.h"
#include "opset/SchemaSupport.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <string>

namespace portolan::opset {

namespace {

using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;

void sameAsInput(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    if (onnx::hasInputShape(ctx, 0))
        onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
}

OpSchema gelu()
{
    OpSchema s;
    s.SetName("Gelu")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("ONNX opset 20's Gelu, for models of older opsets: Y = X/2 · (1 + erf(X/√2)), or with "
                "approximate = \"tanh\" Y = X/2 · (1 + tanh(√(2/π) · (X + 0.044715 · X³))).")
        .Input(0, "X", "input", "T")
        .Output(0, "Y", "output, of X's shape", "T")
        .Attr("approximate", "\"none\" (the erf form) or \"tanh\"", AttributeProto::STRING, std::string("none"))
        .TypeConstraint("T", floatTypes(), "floating-point tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) {
            const AttributeProto *approximate = ctx.getAttribute("approximate");
            if (approximate != nullptr && approximate->s() != "none" && approximate->s() != "tanh")
                fail_shape_inference("approximate must be \"none\" or \"tanh\", not \"", approximate->s(), "\"");
            sameAsInput(ctx);
        });
    return s;
}

OpSchema rmsNormalization()
{
    OpSchema s;
    s.SetName("RMSNormalization")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("Y = X / √(mean(X²) + epsilon) · Scale, the mean taken over the axes from `axis` on.")
        .Input(0, "X", "input", "T")
        .Input(1, "Scale", "scale of the normalized dims", "T")
        .Output(0, "Y", "normalized X", "T")
        .Attr("axis", "first normalized axis", AttributeProto::INT, static_cast<std::int64_t>(-1))
        .Attr("epsilon", "added to the mean square", AttributeProto::FLOAT, 1e-5f)
        .TypeConstraint("T", floatTypes(), "floating-point tensors")
        .TypeAndShapeInferenceFunction(sameAsInput);
    return s;
}

} // namespace

void registerActivationSchemas()
{
    onnx::RegisterSchema(gelu());
    onnx::RegisterSchema(rmsNormalization());
}

} // namespace portolan::opset
