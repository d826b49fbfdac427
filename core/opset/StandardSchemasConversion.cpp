// Schemas of the standard-domain conversion ops of opsets 18–27: Cast 19 and 24, CastLike 19 and 24,
// BitCast 26 and Range 27; QuantizeLinear and DequantizeLinear are in StandardSchemasConversion2.cpp,
// the Optional and string ops in StandardSchemasText.cpp.
// The later Cast, CastLike and Q/DQ versions (21, 23, 25) only widened the element types and are
// built from these by StandardSchemas.cpp, so they share these inference functions.
#include "opset/SchemaInference.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/defs/tensor_proto_util.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace portolan::opset {

namespace {

/// The newest TensorProto.DataType of opset 27 (INT2). libonnx 1.12's proto stops at BFLOAT16 (16),
/// so its propagateElemTypeFromAttributeToOutput refuses 17–26; these schemas set them as integers.
constexpr std::int64_t kHighestDataType = 26;

bool isComplex(std::int64_t t)
{
    return t == TensorProto::COMPLEX64 || t == TensorProto::COMPLEX128;
}

/// The data type an INT attribute names, validated to 1..26; fails when absent or 0.
std::int32_t requiredDataType(InferenceContext &ctx, const char *op, const char *name)
{
    const AttributeProto *attr = ctx.getAttribute(name);
    if (attr == nullptr || !attr->has_i())
        fail_type_inference(op, ": attribute '", name, "' (an int naming a data type) is required");
    const std::int64_t t = attr->i();
    if (t < 1 || t > kHighestDataType)
        fail_type_inference(op, ": attribute '", name, "' = ", t, " is not a TensorProto data type (1..",
                            kHighestDataType, ")");
    return static_cast<std::int32_t>(t);
}

void copyShape(InferenceContext &ctx, size_t input, size_t output)
{
    if (onnx::hasInputShape(ctx, input))
        onnx::propagateShapeFromInputToOutput(ctx, input, output);
}

// --- Cast, CastLike

/// Shape data (the values of a Shape output) pass through a Cast unchanged, so Shape → Cast →
/// Reshape chains keep their static sizes.
void castDataPropagation(onnx::DataPropagationContext &ctx)
{
    if (const TensorShapeProto *data = ctx.getInputData(0); data != nullptr) {
        TensorShapeProto copy = *data;
        ctx.addOutputData(0, std::move(copy));
    }
}

void checkRoundMode(InferenceContext &ctx, const char *op)
{
    const std::string mode = onnx::getAttribute(ctx, "round_mode", std::string("up"));
    if (mode != "up" && mode != "down" && mode != "nearest")
        fail_shape_inference(op, ": attribute round_mode '", mode, "' must be up, down or nearest");
}

void inferCast(InferenceContext &ctx, bool hasRoundMode)
{
    const std::int32_t to = requiredDataType(ctx, "Cast", "to");
    if (isComplex(to))
        fail_type_inference("Cast: attribute 'to' = ", to, " is a complex type, which Cast does not produce");
    if (hasRoundMode)
        checkRoundMode(ctx, "Cast");
    onnx::updateOutputElemType(ctx, 0, to);
    copyShape(ctx, 0, 0);
}

void inferCastLike(InferenceContext &ctx, bool hasRoundMode)
{
    if (hasRoundMode)
        checkRoundMode(ctx, "CastLike");
    const onnx::TypeProto *target = ctx.getInputType(1);
    const std::int32_t elem = target != nullptr ? onnx::getTensorElementType(*target) : TensorProto::UNDEFINED;
    // Without target_type's element type the output stays untyped: libonnx 1.12 rejects a shape whose
    // tensor type has no element type.
    if (elem == TensorProto::UNDEFINED)
        return;
    onnx::updateOutputElemType(ctx, 0, elem);
    copyShape(ctx, 0, 0);
}

// Every type of Cast's lists libonnx can name. The spec also lists float8e4m3fn, float8e4m3fnuz,
// float8e5m2, float8e5m2fnuz (19), uint4, int4 (21), float4e2m1 (23), float8e8m0 (24), uint2, int2 (25).
const std::vector<std::string> kCastTypes{"tensor(float16)", "tensor(float)",  "tensor(double)", "tensor(int8)",
                                          "tensor(int16)",   "tensor(int32)",  "tensor(int64)",  "tensor(uint8)",
                                          "tensor(uint16)",  "tensor(uint32)", "tensor(uint64)", "tensor(bool)",
                                          "tensor(string)",  "tensor(bfloat16)"};

constexpr const char *kCastRules =
    "Numbers convert to numbers (out of range, floats become infinities, floats to integers are undefined and "
    "integers wrap around; nonzero becomes true, true becomes 1), numbers to decimal strings, and numeric strings "
    "(including INF, -INF and NaN in any case) to numbers. Complex types are not supported.";
constexpr const char *kSaturateDoc =
    "for float8 targets: 1 clamps values beyond the type's range to its largest finite value, 0 makes them "
    "infinity or NaN";
constexpr const char *kRoundModeDoc =
    "rounding when converting to float8e8m0: up (away from zero, the default), down (toward zero) or nearest "
    "(ties up)";

OpSchema cast(int since)
{
    std::string doc = std::string("Converts each element of `input` to the type `to` names; the output has the "
                                  "input's shape. ") +
                      kCastRules + " Float8 targets follow `saturate`.";
    if (since >= 24)
        doc += " Infinities saturate to the largest finite value for every float8 type (version 19 gave NaN for the "
               "FNUZ ones); conversion to float8e8m0 rounds as `round_mode` says.";
    OpSchema s;
    s.SetName("Cast")
        .SetDomain("")
        .SinceVersion(since)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc(doc)
        .Attr("to", "the element type of the output (a TensorProto.DataType value)", AttributeProto::INT)
        .Attr("saturate", kSaturateDoc, AttributeProto::INT, static_cast<std::int64_t>(1));
    if (since >= 24)
        s.Attr("round_mode", kRoundModeDoc, AttributeProto::STRING, std::string("up"));
    const bool hasRoundMode = since >= 24;
    s.Input(0, "input", "the tensor to convert", "T1", OpSchema::Single, true, 1, OpSchema::Differentiable)
        .Output(0, "output", "the converted tensor: the input's shape, `to`'s type", "T2", OpSchema::Single, true, 1,
                OpSchema::Differentiable)
        .TypeConstraint("T1", kCastTypes, "input types (no complex)")
        .TypeConstraint("T2", kCastTypes, "output types (no complex)")
        .TypeAndShapeInferenceFunction([hasRoundMode](InferenceContext &ctx) { inferCast(ctx, hasRoundMode); })
        .PartialDataPropagationFunction(castDataPropagation);
    return s;
}

OpSchema castLike(int since)
{
    OpSchema s;
    s.SetName("CastLike")
        .SetDomain("")
        .SinceVersion(since)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc(std::string("Cast with the target type taken from a tensor: converts `input` to the element type "
                            "of `target_type`, keeping the input's shape. ") +
                kCastRules)
        .Attr("saturate", kSaturateDoc, AttributeProto::INT, static_cast<std::int64_t>(1));
    if (since >= 24)
        s.Attr("round_mode", kRoundModeDoc, AttributeProto::STRING, std::string("up"));
    const bool hasRoundMode = since >= 24;
    s.Input(0, "input", "the tensor to convert", "T1", OpSchema::Single, true, 1, OpSchema::Differentiable)
        .Input(1, "target_type", "a tensor whose element type the output takes (its values are not read)", "T2",
               OpSchema::Single, true, 1, OpSchema::NonDifferentiable)
        .Output(0, "output", "the converted tensor: the input's shape, target_type's type", "T2", OpSchema::Single,
                true, 1, OpSchema::Differentiable)
        .TypeConstraint("T1", kCastTypes, "input types (no complex)")
        .TypeConstraint("T2", kCastTypes, "output types (no complex)")
        .TypeAndShapeInferenceFunction([hasRoundMode](InferenceContext &ctx) { inferCastLike(ctx, hasRoundMode); });
    return s;
}

// --- BitCast

/// Bits per element of a data type; 0 for string and unknown values.
int bitWidth(std::int64_t t)
{
    switch (t) {
    case TensorProto::BOOL:
    case TensorProto::INT8:
    case TensorProto::UINT8:
        return 8;
    case TensorProto::INT16:
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
        return 16;
    case TensorProto::INT32:
    case TensorProto::UINT32:
    case TensorProto::FLOAT:
        return 32;
    case TensorProto::INT64:
    case TensorProto::UINT64:
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX64:
        return 64;
    case TensorProto::COMPLEX128:
        return 128;
    case 17: case 18: case 19: case 20: case 24: // the float8 types, float8e8m0
        return 8;
    case 21: case 22: case 23: // uint4, int4, float4e2m1
        return 4;
    case 25: case 26: // uint2, int2
        return 2;
    default:
        return 0;
    }
}

void inferBitCast(InferenceContext &ctx)
{
    const std::int32_t to = requiredDataType(ctx, "BitCast", "to");
    if (to == TensorProto::STRING)
        fail_type_inference("BitCast: attribute 'to' may not be string");
    if (const onnx::TypeProto *in = ctx.getInputType(0); in != nullptr) {
        const std::int32_t from = onnx::getTensorElementType(*in);
        if (from == TensorProto::STRING)
            fail_type_inference("BitCast: the input may not be a string tensor");
        const int fromBits = bitWidth(from);
        const int toBits = bitWidth(to);
        if (fromBits != 0 && fromBits != toBits)
            fail_type_inference("BitCast: input element type ", from, " has ", fromBits, " bits but attribute 'to' = ",
                                to, " has ", toBits, "; they must be equal");
    }
    onnx::updateOutputElemType(ctx, 0, to);
    copyShape(ctx, 0, 0);
}

OpSchema bitCast()
{
    // The spec also lists the float8 types, uint4, int4, float4e2m1, float8e8m0, uint2 and int2.
    const std::vector<std::string> types{"tensor(uint8)", "tensor(uint16)",   "tensor(uint32)",    "tensor(uint64)",
                                         "tensor(int8)",  "tensor(int16)",    "tensor(int32)",     "tensor(int64)",
                                         "tensor(bfloat16)", "tensor(float16)", "tensor(float)",   "tensor(double)",
                                         "tensor(bool)",  "tensor(complex64)", "tensor(complex128)"};
    OpSchema s;
    s.SetName("BitCast")
        .SetDomain("")
        .SinceVersion(26)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Reinterprets each element's bits as the type `to` names, converting no values: both types must "
                "have the same bit width, and the output has the input's shape. Bytes are read little-endian. "
                "Strings are not supported.")
        .Attr("to", "the output element type (a TensorProto.DataType value of the input's bit width, not string)",
              AttributeProto::INT)
        .Input(0, "input", "the tensor whose bits are reinterpreted", "T1", OpSchema::Single, true, 1,
               OpSchema::NonDifferentiable)
        .Output(0, "output", "the same bits as `to`'s type, of the input's shape", "T2", OpSchema::Single, true, 1,
                OpSchema::NonDifferentiable)
        .TypeConstraint("T1", types, "input types (no string)")
        .TypeConstraint("T2", types, "output types (no string)")
        .TypeAndShapeInferenceFunction(inferBitCast);
    return s;
}

// --- Range

/// The value of a constant Range input: exact for integers, as double for floats.
struct RangeValue {
    bool integer = false;
    std::int64_t i = 0;
    double f = 0;
};

float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = (h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    std::uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else { // subnormal: normalise
        exponent = 113;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --exponent;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

float bfloat16ToFloat(std::uint16_t b)
{
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/// The 16 bits of a one-element int16, float16 or bfloat16 tensor (raw_data, or int32_data which
/// holds them widened).
std::optional<std::uint16_t> sixteenBits(const TensorProto &t)
{
    if (t.has_raw_data()) {
        const std::string &raw = t.raw_data();
        if (raw.size() < 2)
            return std::nullopt;
        return static_cast<std::uint16_t>(static_cast<unsigned char>(raw[0]) |
                                          (static_cast<unsigned char>(raw[1]) << 8));
    }
    if (t.int32_data_size() < 1)
        return std::nullopt;
    return static_cast<std::uint16_t>(t.int32_data(0) & 0xffff);
}

std::optional<RangeValue> rangeValue(const TensorProto &t, const char *name)
{
    std::int64_t count = 1;
    for (const auto d : t.dims())
        count *= d;
    if (count != 1)
        fail_shape_inference("Range: input '", name, "' must be a scalar, but holds ", count, " elements");
    if (t.data_location() == TensorProto::EXTERNAL)
        return std::nullopt;
    RangeValue v;
    switch (t.data_type()) {
    case TensorProto::INT64:
        v.integer = true;
        v.i = onnx::ParseData<std::int64_t>(&t).at(0);
        return v;
    case TensorProto::INT32:
        v.integer = true;
        v.i = onnx::ParseData<std::int32_t>(&t).at(0);
        return v;
    case TensorProto::INT16:
        if (const auto bits = sixteenBits(t)) {
            v.integer = true;
            v.i = static_cast<std::int16_t>(*bits);
            return v;
        }
        return std::nullopt;
    case TensorProto::FLOAT:
        v.f = onnx::ParseData<float>(&t).at(0);
        return v;
    case TensorProto::DOUBLE:
        v.f = onnx::ParseData<double>(&t).at(0);
        return v;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
        if (const auto bits = sixteenBits(t)) {
            v.f = t.data_type() == TensorProto::FLOAT16 ? halfToFloat(*bits) : bfloat16ToFloat(*bits);
            return v;
        }
        return std::nullopt;
    default:
        return std::nullopt;
    }
}

/// Where Range's length is computed: exactly for integers; for float as ONNX Runtime does (the
/// difference in float, the quotient in double); for float16/bfloat16 in the stash type.
enum class RangeArithmetic { Integer, FloatThenDouble, Float, Double };

/// max(ceil((limit - start) / delta), 0); nothing when it does not fit an int64.
std::optional<std::int64_t> rangeLength(const RangeValue &start, const RangeValue &limit, const RangeValue &delta,
                                        RangeArithmetic arithmetic)
{
    if (arithmetic == RangeArithmetic::Integer) {
        if (delta.i == 0)
            fail_shape_inference("Range: delta must not be 0");
        std::int64_t span;
        if (__builtin_sub_overflow(limit.i, start.i, &span))
            return std::nullopt;
        std::int64_t n = span / delta.i;
        if (span % delta.i != 0 && ((span > 0) == (delta.i > 0)))
            ++n;
        return n > 0 ? n : 0;
    }
    if (delta.f == 0)
        fail_shape_inference("Range: delta must not be 0");
    const float floatSpan = static_cast<float>(limit.f) - static_cast<float>(start.f);
    double n = 0;
    switch (arithmetic) {
    case RangeArithmetic::FloatThenDouble:
        n = std::ceil(static_cast<double>(floatSpan) / delta.f);
        break;
    case RangeArithmetic::Float:
        n = std::ceil(floatSpan / static_cast<float>(delta.f));
        break;
    default:
        n = std::ceil((limit.f - start.f) / delta.f);
        break;
    }
    if (!std::isfinite(n) || n > 4.0e18)
        return std::nullopt;
    return n > 0 ? static_cast<std::int64_t>(n) : 0;
}

void inferRange(InferenceContext &ctx)
{
    onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
    const char *names[3] = {"start", "limit", "delta"};
    for (size_t i = 0; i < 3; ++i) {
        if (!onnx::hasInputShape(ctx, i))
            continue;
        const TensorShapeProto &shape = onnx::getInputShape(ctx, i);
        for (const auto &d : shape.dim())
            if (d.has_dim_value() && d.dim_value() != 1)
                fail_shape_inference("Range: input '", names[i], "' must be a scalar, got a dim of ", d.dim_value());
    }
    const std::int32_t elem = ctx.getInputType(0) != nullptr ? onnx::getTensorElementType(*ctx.getInputType(0)) : 0;
    const bool lowPrecision = elem == TensorProto::FLOAT16 || elem == TensorProto::BFLOAT16;
    const std::int64_t stash = onnx::getAttribute(ctx, "stash_type", static_cast<std::int64_t>(TensorProto::FLOAT));
    if (lowPrecision && stash != TensorProto::FLOAT && stash != TensorProto::DOUBLE)
        fail_shape_inference("Range: attribute stash_type ", stash, " must be float (1) or double (11)");

    TensorShapeProto::Dimension *length = onnx::getOutputShape(ctx, 0)->add_dim(); // always 1-D
    const TensorProto *data[3] = {ctx.getInputData(0), ctx.getInputData(1), ctx.getInputData(2)};
    if (data[0] == nullptr || data[1] == nullptr || data[2] == nullptr)
        return;
    if (data[0]->data_type() != data[1]->data_type() || data[0]->data_type() != data[2]->data_type())
        fail_shape_inference("Range: start, limit and delta must have one element type");
    const auto start = rangeValue(*data[0], names[0]);
    const auto limit = rangeValue(*data[1], names[1]);
    const auto delta = rangeValue(*data[2], names[2]);
    if (!start || !limit || !delta)
        return;
    RangeArithmetic arithmetic = RangeArithmetic::Double;
    if (start->integer)
        arithmetic = RangeArithmetic::Integer;
    else if (data[0]->data_type() == TensorProto::FLOAT)
        arithmetic = RangeArithmetic::FloatThenDouble;
    else if (lowPrecision && stash == TensorProto::FLOAT)
        arithmetic = RangeArithmetic::Float;
    if (const auto n = rangeLength(*start, *limit, *delta, arithmetic))
        length->set_dim_value(*n);
}

OpSchema range27()
{
    OpSchema s;
    s.SetName("Range")
        .SetDomain("")
        .SinceVersion(27)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Produces the 1-D sequence start, start + delta, start + 2·delta, … that stops before reaching "
                "`limit`: max(ceil((limit - start) / delta), 0) elements. Version 27 adds float16 and bfloat16 and "
                "`stash_type`, the type those two are computed in (float or double), so long ranges stay exact.")
        .Attr("stash_type", "for float16 and bfloat16 inputs, the type of the intermediate computation: float (1, "
                            "the default) or double (11); ignored for other types",
              AttributeProto::INT, static_cast<std::int64_t>(TensorProto::FLOAT))
        .Input(0, "start", "scalar: the first value", "T")
        .Input(1, "limit", "scalar: the exclusive bound", "T")
        .Input(2, "delta", "scalar: the step (nonzero)", "T")
        .Output(0, "output", "the 1-D sequence, of the inputs' type", "T")
        .TypeConstraint("T",
                        {"tensor(float)", "tensor(double)", "tensor(int16)", "tensor(int32)", "tensor(int64)",
                         "tensor(float16)", "tensor(bfloat16)"},
                        "numeric types")
        .TypeAndShapeInferenceFunction(inferRange);
    return s;
}

} // namespace

std::vector<onnx::OpSchema> conversionOpSchemas()
{
    std::vector<onnx::OpSchema> schemas{cast(19), castLike(19), cast(24), castLike(24), bitCast(), range27()};
    for (onnx::OpSchema &schema : conversionOpSchemas2())
        schemas.push_back(std::move(schema));
    return schemas;
}

} // namespace portolan::opset
