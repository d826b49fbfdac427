// Schemas of QuantizeLinear 19, 21, 23 and DequantizeLinear 19, 21, 23 (standard domain), for
// StandardSchemasConversion.cpp. Versions 24 and 25 only widened the element types: they are built
// from these by StandardSchemas.cpp, and so share their inference functions.
#include "opset/SchemaInference.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <string>
#include <vector>

namespace portolan::opset {

namespace {

// TensorProto.DataType values libonnx 1.12's proto does not name.
constexpr int kFloat8E4M3FN = 17;
constexpr int kFloat8E5M2FNUZ = 20;
constexpr int kUInt4 = 21;
constexpr int kInt4 = 22;
constexpr int kFloat4E2M1 = 23;
constexpr int kFloat8E8M0 = 24;
constexpr int kUInt2 = 25;
constexpr int kInt2 = 26;

/// Element types QuantizeLinear may produce, in any version up to 25 (versions 24 and 25 reuse the
/// version-23 inference function, so it cannot tell them apart; the type gate judges the version).
bool isQuantizedType(std::int64_t t)
{
    switch (t) {
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::INT16:
    case TensorProto::UINT16:
    case kUInt4:
    case kInt4:
    case kFloat4E2M1:
    case kUInt2:
    case kInt2:
        return true;
    default:
        return t >= kFloat8E4M3FN && t <= kFloat8E5M2FNUZ;
    }
}

bool isDequantizedType(std::int64_t t)
{
    return t == TensorProto::FLOAT || t == TensorProto::FLOAT16 || t == TensorProto::BFLOAT16;
}

std::int64_t intAttribute(InferenceContext &ctx, const char *name, std::int64_t fallback)
{
    return onnx::getAttribute(ctx, name, fallback);
}

bool singleElement(const TensorShapeProto &shape)
{
    for (const auto &d : shape.dim())
        if (!d.has_dim_value() || d.dim_value() != 1)
            return false;
    return true;
}

bool sameShape(const TensorShapeProto &a, const TensorShapeProto &b)
{
    if (a.dim_size() != b.dim_size())
        return false;
    for (int i = 0; i < a.dim_size(); ++i)
        if (a.dim(i).has_dim_value() && b.dim(i).has_dim_value() && a.dim(i).dim_value() != b.dim(i).dim_value())
            return false;
    return true;
}

std::string shapeText(const TensorShapeProto &shape)
{
    std::string out = "[";
    for (int i = 0; i < shape.dim_size(); ++i) {
        if (i > 0)
            out += ", ";
        const auto &d = shape.dim(i);
        out += d.has_dim_value() ? std::to_string(d.dim_value()) : (d.has_dim_param() ? d.dim_param() : "?");
    }
    return out + "]";
}

/// Checks the scale (input 1) and zero point (input 2) shapes against x (input 0): equal to each other;
/// then per-tensor (one element), per-axis (1-D, x's dim along `axis` long) or, with block_size > 0,
/// blocked (x's rank, ceil(x dim / block_size) along `axis`, x's dims elsewhere). Dims not known
/// statically are not judged.
void checkQuantizationShapes(InferenceContext &ctx, const char *op, const char *scaleName, const char *zeroName,
                             bool blockedAllowed)
{
    const std::int64_t blockSize = blockedAllowed ? intAttribute(ctx, "block_size", 0) : 0;
    if (blockSize < 0)
        fail_shape_inference(op, ": attribute block_size must not be negative (got ", blockSize, ")");
    if (!onnx::hasInputShape(ctx, 1))
        return;
    const TensorShapeProto &scale = onnx::getInputShape(ctx, 1);
    const bool hasZero = ctx.getNumInputs() > 2 && onnx::hasInputShape(ctx, 2);
    if (hasZero) {
        const TensorShapeProto &zero = onnx::getInputShape(ctx, 2);
        // A scalar against a one-element 1-D tensor is the same per-tensor parameter: accepted.
        if (!sameShape(scale, zero) && !(singleElement(scale) && singleElement(zero)))
            fail_shape_inference(op, ": ", zeroName, " ", shapeText(zero), " must have the shape of ", scaleName, " ",
                                 shapeText(scale));
    }
    if (singleElement(scale) || !onnx::hasInputShape(ctx, 0))
        return; // per-tensor, or nothing to compare with
    const TensorShapeProto &x = onnx::getInputShape(ctx, 0);
    const int rank = x.dim_size();
    std::int64_t axis = intAttribute(ctx, "axis", 1);
    if (blockSize == 0) {
        if (scale.dim_size() != 1)
            fail_shape_inference(op, ": ", scaleName, " ", shapeText(scale), " must be a scalar or a 1-D tensor",
                                 blockedAllowed ? " (blocked quantization needs block_size > 0)" : "");
        if (rank == 0)
            fail_shape_inference(op, ": a scalar x takes a one-element ", scaleName, ", not ", shapeText(scale));
        if (rank == 1)
            axis = 0; // the spec: a 1-D input has only one axis to quantize along
        if (axis < -rank || axis >= rank)
            fail_shape_inference(op, ": attribute axis ", axis, " is out of range for x of rank ", rank);
        if (axis < 0)
            axis += rank;
        const auto &xDim = x.dim(static_cast<int>(axis));
        const auto &sDim = scale.dim(0);
        if (xDim.has_dim_value() && sDim.has_dim_value() && xDim.dim_value() != sDim.dim_value())
            fail_shape_inference(op, ": per-axis ", scaleName, " has ", sDim.dim_value(), " elements but x ",
                                 shapeText(x), " has ", xDim.dim_value(), " along axis ", axis);
        return;
    }
    if (scale.dim_size() != rank)
        fail_shape_inference(op, ": blocked quantization (block_size ", blockSize, ") needs ", scaleName,
                             " of x's rank ", rank, ", got ", shapeText(scale));
    if (axis < -rank || axis >= rank)
        fail_shape_inference(op, ": attribute axis ", axis, " is out of range for x of rank ", rank);
    if (axis < 0)
        axis += rank;
    for (int i = 0; i < rank; ++i) {
        const auto &xDim = x.dim(i);
        const auto &sDim = scale.dim(i);
        if (!xDim.has_dim_value() || !sDim.has_dim_value())
            continue;
        if (i == axis) {
            const std::int64_t blocks = (xDim.dim_value() + blockSize - 1) / blockSize;
            if (sDim.dim_value() != blocks)
                fail_shape_inference(op, ": blocked quantization along axis ", axis, ": ", scaleName, " ",
                                     shapeText(scale), " must have ceil(", xDim.dim_value(), " / block_size ",
                                     blockSize, ") = ", blocks, " there, for x ", shapeText(x));
        } else if (sDim.dim_value() != xDim.dim_value()) {
            fail_shape_inference(op, ": blocked quantization: ", scaleName, " ", shapeText(scale),
                                 " must equal x ", shapeText(x), " on every axis but ", axis);
        }
    }
}

/// y takes x's shape, once y's element type is known: libonnx 1.12 rejects a tensor type whose
/// element type is unset (0), which a shape alone would leave.
void copyShapeOfX(InferenceContext &ctx)
{
    const onnx::TypeProto *y = ctx.getOutputType(0);
    if (y->has_tensor_type() && y->tensor_type().elem_type() != TensorProto::UNDEFINED && onnx::hasInputShape(ctx, 0))
        onnx::updateOutputShape(ctx, 0, onnx::getInputShape(ctx, 0));
}

/// QuantizeLinear's output type: the zero point's type; else output_dtype; else uint8. libonnx 1.12
/// gives a zero point named "" (absent) a null type, as it does an input whose type is not known;
/// both count as absent, as in libonnx's own QuantizeLinear-13 (an untyped value already fails
/// inference at its other consumers).
void inferQuantizeLinear(InferenceContext &ctx, bool since21)
{
    const std::int64_t outputDtype = since21 ? intAttribute(ctx, "output_dtype", 0) : 0;
    if (outputDtype != 0 && !isQuantizedType(outputDtype))
        fail_type_inference("QuantizeLinear: attribute output_dtype ", outputDtype, " is not a quantized type");
    const onnx::TypeProto *zeroType = ctx.getNumInputs() > 2 ? ctx.getInputType(2) : nullptr;
    const std::int32_t zeroElem = zeroType != nullptr ? onnx::getTensorElementType(*zeroType) : TensorProto::UNDEFINED;
    if (zeroElem != TensorProto::UNDEFINED) {
        if (outputDtype != 0 && outputDtype != zeroElem)
            fail_type_inference("QuantizeLinear: attribute output_dtype ", outputDtype,
                                " differs from y_zero_point's element type ", zeroElem);
        onnx::updateOutputElemType(ctx, 0, zeroElem);
    } else {
        onnx::updateOutputElemType(ctx, 0, outputDtype != 0 ? static_cast<std::int32_t>(outputDtype) : TensorProto::UINT8);
    }
    checkQuantizationShapes(ctx, "QuantizeLinear", "y_scale", "y_zero_point", since21);
    copyShapeOfX(ctx);
}

/// DequantizeLinear's output type: output_dtype when set (version 23), else x_scale's type.
void inferDequantizeLinear(InferenceContext &ctx, bool hasBlockSize, bool hasOutputDtype)
{
    const std::int64_t outputDtype = hasOutputDtype ? intAttribute(ctx, "output_dtype", 0) : 0;
    if (outputDtype != 0) {
        if (!isDequantizedType(outputDtype))
            fail_type_inference("DequantizeLinear: attribute output_dtype ", outputDtype,
                                " must be float (1), float16 (10) or bfloat16 (16)");
        onnx::updateOutputElemType(ctx, 0, static_cast<std::int32_t>(outputDtype));
    } else if (const onnx::TypeProto *scaleType = ctx.getInputType(1); scaleType != nullptr) {
        const std::int32_t scaleElem = onnx::getTensorElementType(*scaleType);
        // Version 24 lets x_scale be float8e8m0, which y may not be (T3): output_dtype must say.
        if (scaleElem == kFloat8E8M0)
            fail_type_inference("DequantizeLinear: x_scale is float8e8m0; attribute output_dtype must name y's type");
        if (scaleElem != TensorProto::UNDEFINED)
            onnx::updateOutputElemType(ctx, 0, scaleElem);
    }
    checkQuantizationShapes(ctx, "DequantizeLinear", "x_scale", "x_zero_point", hasBlockSize);
    copyShapeOfX(ctx);
}

// libonnx 1.12 cannot name the float8 types (opset 19), uint4/int4 (21) or float4e2m1 (23) the spec
// also lists for the quantized side; Portolan's element-type gate judges those.
const std::vector<std::string> kQuantized19{"tensor(int8)", "tensor(uint8)"};
const std::vector<std::string> kQuantized21{"tensor(int8)", "tensor(uint8)", "tensor(int16)", "tensor(uint16)"};
const std::vector<std::string> kDequantizable19{"tensor(int8)", "tensor(uint8)", "tensor(int32)"};
const std::vector<std::string> kDequantizable21{"tensor(int8)", "tensor(uint8)", "tensor(int16)", "tensor(uint16)",
                                                "tensor(int32)"};
const std::vector<std::string> kHighPrecision{"tensor(float)", "tensor(float16)", "tensor(bfloat16)", "tensor(int32)"};
const std::vector<std::string> kDequantizedTypes{"tensor(float)", "tensor(float16)", "tensor(bfloat16)"};

constexpr const char *kQuantizeDoc =
    "Quantizes x linearly: y = saturate(round(x / y_scale) + y_zero_point), rounding half to even and "
    "clamping to the range of y's type (float8 targets saturate or not by `saturate`). y has x's shape; "
    "y_zero_point and y share one type, uint8 when there is no zero point. The scale and zero point have the "
    "same shape: a scalar (one scale for the whole tensor) or a 1-D tensor of x's length along `axis` "
    "(one per slice).";
constexpr const char *kBlockedDoc =
    " With block_size B > 0 they have x's rank and dims, except ceil(dim / B) along `axis`: each scale then "
    "covers B consecutive elements there (blocked quantization).";

const char *kAxisDoc = "the axis the per-axis or blocked parameters run along (negative counts from the back)";
const char *kBlockSizeDoc = "elements per block along `axis` for blocked quantization; 0 means not blocked";
const char *kSaturateDoc = "for float8 outputs: 1 clamps out-of-range values to the largest finite value, 0 "
                           "lets them become infinity or NaN";

OpSchema quantizeLinear(int since)
{
    std::string doc = kQuantizeDoc;
    if (since >= 21)
        doc += std::string(kBlockedDoc) + " output_dtype may name y's type when there is no zero point.";
    if (since >= 23)
        doc += " x and y_scale may differ in type; the division runs in y_scale's type, or in `precision` when set.";
    OpSchema s;
    s.SetName("QuantizeLinear")
        .SetDomain("")
        .SinceVersion(since)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc(doc)
        .Input(0, "x", "the full-precision tensor to quantize", "T1")
        .Input(1, "y_scale", "the quantization step: scalar, 1-D per-axis or (21+) blocked",
               since >= 23 ? "T2" : "T1")
        .Input(2, "y_zero_point", "the value x = 0 maps to; y_scale's shape; its type is y's (absent: uint8 zero)",
               since >= 23 ? "T3" : "T2", OpSchema::Optional)
        .Output(0, "y", "the quantized tensor, of x's shape", since >= 23 ? "T3" : "T2")
        .Attr("axis", kAxisDoc, AttributeProto::INT, static_cast<std::int64_t>(1))
        .Attr("saturate", kSaturateDoc, AttributeProto::INT, static_cast<std::int64_t>(1));
    if (since >= 21) {
        s.Attr("block_size", kBlockSizeDoc, AttributeProto::INT, static_cast<std::int64_t>(0))
            .Attr("output_dtype", "y's element type when y_zero_point is absent (0: from y_zero_point, else uint8); "
                                  "with y_zero_point it must equal that type",
                  AttributeProto::INT, static_cast<std::int64_t>(0));
    }
    if (since >= 23)
        s.Attr("precision", "element type the division x / y_scale is computed in (0: y_scale's type)",
               AttributeProto::INT, static_cast<std::int64_t>(0));
    s.TypeConstraint("T1", kHighPrecision, "x's type");
    if (since >= 23) {
        s.TypeConstraint("T2", kHighPrecision, "y_scale's type");
        s.TypeConstraint("T3", kQuantized21, "the quantized type of y_zero_point and y"); // + float8, int4, float4
    } else {
        s.TypeConstraint("T2", since >= 21 ? kQuantized21 : kQuantized19, "the quantized type of y_zero_point and y");
    }
    // block_size and output_dtype both arrived in version 21.
    const bool since21 = since >= 21;
    s.TypeAndShapeInferenceFunction([since21](InferenceContext &ctx) { inferQuantizeLinear(ctx, since21); });
    return s;
}

OpSchema dequantizeLinear(int since)
{
    std::string doc =
        "Dequantizes x linearly: y = (x - x_zero_point) * x_scale, of x's shape. x_zero_point has x's type and "
        "defaults to 0 (int32 inputs take none). The scale and zero point have one shape: a scalar or a 1-D "
        "tensor of x's length along `axis`";
    doc += since >= 21 ? ", or, with block_size B > 0, x's dims except ceil(dim / B) along `axis`, each scale "
                         "covering B consecutive elements there."
                       : ".";
    doc += since >= 23 ? " y's type is output_dtype, or x_scale's type when output_dtype is 0; the multiplication "
                         "runs in y's type."
                       : " y has x_scale's type.";
    OpSchema s;
    s.SetName("DequantizeLinear")
        .SetDomain("")
        .SinceVersion(since)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc(doc)
        .Input(0, "x", "the quantized tensor", "T1")
        .Input(1, "x_scale", since >= 21 ? "the quantization step: scalar, 1-D per-axis or blocked"
                                         : "the quantization step: scalar or 1-D per-axis",
               "T2")
        .Input(2, "x_zero_point", "the quantized value of 0; x_scale's shape, x's type (absent: 0)", "T1",
               OpSchema::Optional)
        .Output(0, "y", "the full-precision tensor, of x's shape", since >= 23 ? "T3" : "T2")
        .Attr("axis", kAxisDoc, AttributeProto::INT, static_cast<std::int64_t>(1));
    if (since >= 21)
        s.Attr("block_size", kBlockSizeDoc, AttributeProto::INT, static_cast<std::int64_t>(0));
    if (since >= 23)
        s.Attr("output_dtype", "y's element type (0: x_scale's type)", AttributeProto::INT, static_cast<std::int64_t>(0));
    // The spec also lists the float8 types (19), uint4, int4 (21) and float4e2m1 (23).
    s.TypeConstraint("T1", since >= 21 ? kDequantizable21 : kDequantizable19, "the quantized type of x and x_zero_point");
    s.TypeConstraint("T2", kDequantizedTypes, since >= 23 ? "x_scale's type" : "x_scale's type, which y takes");
    if (since >= 23)
        s.TypeConstraint("T3", kDequantizedTypes, "y's type");
    const bool hasBlockSize = since >= 21;
    const bool hasOutputDtype = since >= 23;
    s.TypeAndShapeInferenceFunction([hasBlockSize, hasOutputDtype](InferenceContext &ctx) {
        inferDequantizeLinear(ctx, hasBlockSize, hasOutputDtype);
    });
    return s;
}

} // namespace

std::vector<onnx::OpSchema> conversionOpSchemas2()
{
    // DequantizeLinear-19 is a Types version, but libonnx's version 13 it would be copied from fixes
    // x_scale and y to tensor(float) (no type parameter to widen), so it is written out here.
    return {quantizeLinear(19),   quantizeLinear(21),   quantizeLinear(23),
            dequantizeLinear(19), dequantizeLinear(21), dequantizeLinear(23)};
}

} // namespace portolan::opset
