// Schemas of LayerNormalization, SkipLayerNormalization and Attention (ai.portolan), documented in
// docs/portolan-ops.md. LayerNormalization is ONNX 17's, for models below opset 17.
#include "opset/PortolanOps.h"
#include "opset/SchemaSupport.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

namespace portolan::opset {

namespace {

using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;

OpSchema layerNormalization()
{
    OpSchema s;
    s.SetName("LayerNormalization")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("ONNX opset 17's LayerNormalization, for models of older opsets.")
        .Input(0, "X", "input", "T")
        .Input(1, "Scale", "scale of the normalized dims", "T")
        .Input(2, "B", "bias of the normalized dims", "T", OpSchema::Optional)
        .Output(0, "Y", "normalized X", "T")
        .Output(1, "Mean", "mean (saved for training)", "U", OpSchema::Optional)
        .Output(2, "InvStdDev", "inverse standard deviation (saved for training)", "U", OpSchema::Optional)
        .Attr("axis", "first normalized axis", AttributeProto::INT, static_cast<std::int64_t>(-1))
        .Attr("epsilon", "added to the variance", AttributeProto::FLOAT, 1e-5f)
        .Attr("stash_type", "precision of the statistics (1: float)", AttributeProto::INT, static_cast<std::int64_t>(1))
        .TypeConstraint("T", floatTypes(), "floating-point tensors")
        .TypeConstraint("U", {"tensor(float)", "tensor(bfloat16)"}, "statistics type")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) { inferAs(ctx, "LayerNormalization", 17); });
    return s;
}

OpSchema skipLayerNormalization()
{
    OpSchema s;
    s.SetName("SkipLayerNormalization")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("S = X + Skip (+ Bias); Y = LayerNormalization(S, Gamma, Beta) over the axes from `axis` on. "
                "Output 1, when wanted, is S (the residual sum later layers read).")
        .Input(0, "X", "input", "T")
        .Input(1, "Skip", "the residual, of X's shape", "T")
        .Input(2, "Gamma", "scale of the normalized dims", "T")
        .Input(3, "Beta", "bias of the normalized dims", "T", OpSchema::Optional)
        .Input(4, "Bias", "added to the sum, along the last dim", "T", OpSchema::Optional)
        .Output(0, "Y", "normalized sum", "T")
        .Output(1, "Sum", "X + Skip (+ Bias)", "T", OpSchema::Optional)
        .Attr("axis", "first normalized axis", AttributeProto::INT, static_cast<std::int64_t>(-1))
        .Attr("epsilon", "added to the variance", AttributeProto::FLOAT, 1e-5f)
        .TypeConstraint("T", floatTypes(), "floating-point tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) {
            onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
            if (onnx::hasInputShape(ctx, 0))
                onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
            if (ctx.getNumOutputs() > 1) {
                onnx::propagateElemTypeFromInputToOutput(ctx, 0, 1);
                if (onnx::hasInputShape(ctx, 0))
                    onnx::propagateShapeFromInputToOutput(ctx, 0, 1);
            }
        });
    return s;
}

// Y has Q's dims with the last replaced by V's last (in either layout).
void inferAttention(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    if (!onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 2))
        return;
    const auto &q = onnx::getInputShape(ctx, 0);
    const auto &v = onnx::getInputShape(ctx, 2);
    if (q.dim_size() < 2 || v.dim_size() != q.dim_size())
        fail_shape_inference("Attention: Q and V must have the same rank (at least 2)");
    onnx::TensorShapeProto out = q;
    *out.mutable_dim(q.dim_size() - 1) = v.dim(v.dim_size() - 1);
    onnx::updateOutputShape(ctx, 0, out);
}

OpSchema attention()
{
    OpSchema s;
    s.SetName("Attention")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("Scaled dot-product attention on head-split tensors: "
                "Y = softmax(Q·Kᵀ·scale + Mask (+ causal mask)) · V, the softmax over the last axis.")
        .Input(0, "Q", "queries [..., Sq, D] (e.g. [B, H, Sq, D])", "T")
        .Input(1, "K", "keys [..., Sk, D]", "T")
        .Input(2, "V", "values [..., Sk, Dv]", "T")
        .Input(3, "Mask", "additive mask, broadcastable to [..., Sq, Sk]", "T", OpSchema::Optional)
        .Output(0, "Y", "[..., Sq, Dv]", "T")
        .Attr("scale", "factor on Q·Kᵀ", AttributeProto::FLOAT, 1.0f)
        .Attr("causal", "1: query i sees keys j ≤ i + (Sk − Sq) only", AttributeProto::INT, static_cast<std::int64_t>(0))
        .Attr("layout", "NSD: Q, K, V and Y are [..., N, S, D]; SND: [..., S, N, D] (the sequence axis before the heads "
                        "axis, as exporters' head splits produce them)", AttributeProto::STRING, std::string("NSD"))
        .TypeConstraint("T", floatTypes(), "floating-point tensors")
        .TypeAndShapeInferenceFunction(inferAttention);
    return s;
}

} // namespace

void registerFusedTransformerSchemas()
{
    onnx::RegisterSchema(layerNormalization());
    onnx::RegisterSchema(skipLayerNormalization());
    onnx::RegisterSchema(attention());
}

} // namespace portolan::opset
