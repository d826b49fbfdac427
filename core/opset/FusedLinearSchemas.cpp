// Schemas of FusedConv, FusedGemm, FusedMatMul and FusedElementwise (ai.portolan), documented in
// docs/portolan-ops.md. Shape inference of the first three delegates to the standard op they extend
// (Conv-11, Gemm-13, MatMul-13 read only their own inputs and attributes), so the rules stay ONNX's.
#include "opset/PortolanOps.h"
#include "opset/SchemaSupport.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <string>
#include <vector>

namespace portolan::opset {

namespace {

using onnx::AttributeProto;
using onnx::InferenceContext;
using onnx::OpSchema;

const char *const kActivationDoc =
    "Activation applied last: \"\" (none), Relu, Clip, LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh, "
    "Gelu (erf form) or GeluTanh (tanh approximation).";
const char *const kActivationParamsDoc =
    "The activation's parameters: LeakyRelu [alpha], HardSigmoid [alpha, beta], Clip [min, max]; empty for the others "
    "(and for the ONNX defaults).";

OpSchema &withActivation(OpSchema &schema)
{
    return schema.Attr("activation", kActivationDoc, AttributeProto::STRING, std::string())
        .Attr("activation_params", kActivationParamsDoc, AttributeProto::FLOATS, false);
}

OpSchema fusedConv()
{
    OpSchema s;
    s.SetName("FusedConv")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("Y = activation(Conv(X, W) + B + Z): Conv with its bias, an optional residual Z of Y's shape "
                "and a following activation.")
        .Input(0, "X", "input [N, C, D1, …]", "T")
        .Input(1, "W", "weight [M, C/group, k1, …]", "T")
        .Input(2, "B", "bias [M]", "T", OpSchema::Optional)
        .Input(3, "Z", "residual added before the activation, of Y's shape", "T", OpSchema::Optional)
        .Output(0, "Y", "output [N, M, …]", "T")
        .Attr("auto_pad", "as Conv", AttributeProto::STRING, std::string("NOTSET"))
        .Attr("dilations", "as Conv", AttributeProto::INTS, false)
        .Attr("group", "as Conv", AttributeProto::INT, static_cast<std::int64_t>(1))
        .Attr("kernel_shape", "as Conv", AttributeProto::INTS, false)
        .Attr("pads", "as Conv", AttributeProto::INTS, false)
        .Attr("strides", "as Conv", AttributeProto::INTS, false)
        .TypeConstraint("T", floatTypes(), "floating-point tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) { inferAs(ctx, "Conv", 11); });
    withActivation(s);
    return s;
}

OpSchema fusedGemm()
{
    OpSchema s;
    s.SetName("FusedGemm")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("Y = activation(alpha · A' · B' + beta · C): Gemm followed by an activation.")
        .Input(0, "A", "[M, K] ([K, M] with transA)", "T")
        .Input(1, "B", "[K, N] ([N, K] with transB)", "T")
        .Input(2, "C", "bias, unidirectionally broadcastable to [M, N]", "T", OpSchema::Optional)
        .Output(0, "Y", "[M, N]", "T")
        .Attr("alpha", "as Gemm", AttributeProto::FLOAT, 1.0f)
        .Attr("beta", "as Gemm", AttributeProto::FLOAT, 1.0f)
        .Attr("transA", "as Gemm", AttributeProto::INT, static_cast<std::int64_t>(0))
        .Attr("transB", "as Gemm", AttributeProto::INT, static_cast<std::int64_t>(0))
        .TypeConstraint("T", floatTypes(), "floating-point tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) { inferAs(ctx, "Gemm", 13); });
    withActivation(s);
    return s;
}

OpSchema fusedMatMul()
{
    OpSchema s;
    s.SetName("FusedMatMul")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("Y = activation(MatMul(A, B) + Bias): numpy-style MatMul, a bias along the last dim, an activation.")
        .Input(0, "A", "[…, M, K]", "T")
        .Input(1, "B", "[…, K, N]", "T")
        .Input(2, "Bias", "[N], added along the last dim", "T", OpSchema::Optional)
        .Output(0, "Y", "[…, M, N]", "T")
        .TypeConstraint("T", floatTypes(), "floating-point tensors")
        .TypeAndShapeInferenceFunction([](InferenceContext &ctx) { inferAs(ctx, "MatMul", 13); });
    withActivation(s);
    return s;
}

// Output: the inputs' multidirectional broadcast; element type from the body's output (else input 0).
void inferElementwise(InferenceContext &ctx)
{
    const AttributeProto *body = ctx.getAttribute("body");
    int elementType = 0;
    if (body != nullptr && body->has_g() && body->g().output_size() == 1 &&
        body->g().output(0).type().has_tensor_type())
        elementType = body->g().output(0).type().tensor_type().elem_type();
    if (elementType != 0)
        onnx::updateOutputElemType(ctx, 0, elementType);
    else if (ctx.getNumInputs() > 0)
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    std::vector<const onnx::TensorShapeProto *> shapes;
    for (std::size_t i = 0; i < ctx.getNumInputs(); ++i) {
        if (!onnx::hasInputShape(ctx, i))
            return;
        shapes.push_back(&onnx::getInputShape(ctx, i));
    }
    if (shapes.empty())
        return;
    onnx::multidirectionalBroadcastShapeInference(shapes, *onnx::getOutputShape(ctx, 0));
}

OpSchema fusedElementwise()
{
    OpSchema s;
    s.SetName("FusedElementwise")
        .SetDomain(kPortolanDomain)
        .SinceVersion(kPortolanDomainVersion)
        .SetDoc("A chain of elementwise ops run as one node: Y = body(X1, …, Xn). The body graph has one input per "
                "node input (in order) and one output; its shape is the inputs' multidirectional broadcast.")
        .Input(0, "X", "the chain's inputs", "T", OpSchema::Variadic, /*is_homogeneous=*/false, /*min_arity=*/1)
        .Output(0, "Y", "the chain's result", "V")
        .Attr("body", "the fused chain: n inputs, 1 output", AttributeProto::GRAPH, true)
        .TypeConstraint("T", OpSchema::all_tensor_types(), "any tensor")
        .TypeConstraint("V", OpSchema::all_tensor_types(), "any tensor")
        .TypeAndShapeInferenceFunction(inferElementwise);
    return s;
}

} // namespace

void registerFusedLinearSchemas()
{
    onnx::RegisterSchema(fusedConv());
    onnx::RegisterSchema(fusedGemm());
    onnx::RegisterSchema(fusedMatMul());
    onnx::RegisterSchema(fusedElementwise());
}

} // namespace portolan::opset
