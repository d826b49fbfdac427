// QuantizeLinear and DequantizeLinear, opsets 10 to 25: per tensor, per axis (13) and blocked (21)
// scales; int8/uint8, int16/uint16 (21), int4/uint4 (21), int2/uint2 (25) and the float8 and float4
// types (19, 23); DequantizeLinear's output in the scale's type (19) or output_dtype (23), and
// QuantizeLinear's output_dtype (21) and precision (23).
//
// Arithmetic follows ONNX's reference: QuantizeLinear divides x by the scale in numpy's promoted type
// of the two (precision overrides it), rounds half to even, adds the zero point and saturates;
// a float8 or float4 output rounds x / scale + zero point to nearest even (saturating unless
// `saturate` is 0). DequantizeLinear computes (x − zero point) × scale in float.
#include "runtime/HalfFromDouble.h"
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"

#include "ir/Type.h"
#include "runtime/NarrowTypes.h"
#include "runtime/TensorStats.h"

#include <cmath>
#include <limits>

namespace portolan::runtime::kernels {

namespace {

/// Which scale (and zero point) element quantizes element i of x.
struct ScaleLayout {
    enum class Kind { PerTensor, PerAxis, Blocked } kind = Kind::PerTensor;
    std::int64_t inner = 1;  ///< elements after the axis
    std::int64_t extent = 1; ///< x's dim along the axis
    std::int64_t block = 1;  ///< elements a scale covers along the axis (blocked)
    std::int64_t blocks = 1; ///< scales along the axis (blocked)

    std::size_t index(std::int64_t i) const
    {
        switch (kind) {
        case Kind::PerTensor: return 0;
        case Kind::PerAxis: return static_cast<std::size_t>((i / inner) % extent);
        case Kind::Blocked: {
            const std::int64_t along = (i / inner) % extent, outer = i / (inner * extent);
            return static_cast<std::size_t>((outer * blocks + along / block) * inner + i % inner);
        }
        }
        return 0;
    }
};

support::Expected<ScaleLayout> scaleLayout(KernelContext &ctx, const Tensor &x, const Tensor &scale, const char *scaleName)
{
    const std::int64_t block = ctx.attrInt("block_size", 0);
    if (block < 0)
        return ctx.error("attribute 'block_size' is " + std::to_string(block) + "; it must be 0 or positive");
    ScaleLayout layout;
    if (scale.size() == 1 && (block == 0 || scale.rank() <= 1)) {
        ctx.attrInt("axis", 1); // the spec ignores axis for a per-tensor scale (ONNX's own tests set it)
        return layout;
    }
    if (ctx.opset() < 13)
        return ctx.error(std::string(scaleName) + " must be a scalar before opset 13, got " + shapeString(scale.shape()));
    const auto rank = static_cast<std::int64_t>(x.rank());
    std::int64_t axis = ctx.attrInt("axis", 1);
    if (rank == 1 && !ctx.hasAttribute("axis"))
        axis = 0; // a 1-D x has one axis to quantize along
    if (axis < -rank || axis >= rank)
        return ctx.error("attribute 'axis' is " + std::to_string(axis) + ", out of range for x of rank " + std::to_string(rank));
    axis = axis < 0 ? axis + rank : axis;
    layout.extent = x.dim(static_cast<std::size_t>(axis));
    for (std::int64_t d = axis + 1; d < rank; ++d)
        layout.inner *= x.dim(static_cast<std::size_t>(d));
    if (block == 0) {
        if (scale.rank() != 1 || scale.size() != layout.extent)
            return ctx.error(std::string(scaleName) + " " + shapeString(scale.shape()) + " must be a scalar or 1-D of x's dim " +
                             std::to_string(layout.extent) + " along axis " + std::to_string(axis));
        layout.kind = ScaleLayout::Kind::PerAxis;
        return layout;
    }
    layout.kind = ScaleLayout::Kind::Blocked;
    layout.block = block;
    layout.blocks = (layout.extent + block - 1) / block;
    bool fits = scale.rank() == x.rank();
    for (std::int64_t d = 0; fits && d < rank; ++d)
        fits = scale.dim(static_cast<std::size_t>(d)) == (d == axis ? layout.blocks : x.dim(static_cast<std::size_t>(d)));
    if (!fits)
        return ctx.error(std::string(scaleName) + " " + shapeString(scale.shape()) + " does not block x " + shapeString(x.shape()) +
                         " by " + std::to_string(block) + " along axis " + std::to_string(axis) + " (it needs " +
                         std::to_string(layout.blocks) + " there and x's dims elsewhere)");
    return layout;
}

/// Every element of t as double (the narrow types decoded), for scales and zero points.
std::vector<double> asDoubles(const Tensor &t)
{
    const Tensor d = convertTensor(t, TensorProto::DOUBLE);
    return std::vector<double>(d.data<double>(), d.data<double>() + d.size());
}

support::Status checkZeroPoint(KernelContext &ctx, const Tensor &zeroPoint, const Tensor &scale, const char *name)
{
    // one zero point for every scale is accepted too, as earlier Portolan (and ONNX Runtime) did
    if (zeroPoint.defined() && zeroPoint.shape() != scale.shape() && zeroPoint.size() != 1)
        return ctx.error(std::string(name) + " " + shapeString(zeroPoint.shape()) + " must have the scale's shape " +
                         shapeString(scale.shape()));
    return support::Status::ok();
}

bool isFloatElement(int type)
{
    return type == TensorProto::FLOAT || type == TensorProto::DOUBLE || type == TensorProto::FLOAT16 ||
           type == TensorProto::BFLOAT16;
}

/// numpy's result type of x / scale for the float and int32 types the ops take.
int promotedDivisionType(int x, int scale)
{
    if (x == TensorProto::INT32 || x == TensorProto::DOUBLE || scale == TensorProto::DOUBLE)
        return TensorProto::DOUBLE;
    if (x == scale)
        return x;
    return TensorProto::FLOAT; // float with a half type, or float16 with bfloat16
}

/// v rounded to `type` (one of the float types), as a division computed in that type would give.
double roundedTo(int type, double v)
{
    switch (type) {
    case TensorProto::FLOAT: return static_cast<float>(v);
    case TensorProto::FLOAT16: return float16FromDouble(v).toFloat();
    case TensorProto::BFLOAT16: return bfloat16FromDouble(v).toFloat();
    default: return v;
    }
}

/// Round half to even, add the zero point, clamp to [lo, hi]; NaN gives lo.
std::int64_t saturatedInteger(double v, double zeroPoint, double lo, double hi)
{
    const double r = std::nearbyint(v) + zeroPoint;
    return static_cast<std::int64_t>(!(r >= lo) ? lo : (r > hi ? hi : r));
}

/// The range of an integer quantized type; false for a float one.
bool integerRange(int type, double &lo, double &hi)
{
    switch (type) {
    case TensorProto::INT8: lo = -128, hi = 127; return true;
    case TensorProto::UINT8: lo = 0, hi = 255; return true;
    case TensorProto::INT16: lo = -32768, hi = 32767; return true;
    case TensorProto::UINT16: lo = 0, hi = 65535; return true;
    case 21: lo = 0, hi = 15; return true;  // uint4
    case 22: lo = -8, hi = 7; return true;  // int4
    case 25: lo = 0, hi = 3; return true;   // uint2
    case 26: lo = -2, hi = 1; return true;  // int2
    default: return false;
    }
}

bool isNarrowFloat(int type)
{
    return isNarrowType(type) && type != 21 && type != 22 && type != 25 && type != 26;
}

} // namespace

support::Status quantizeLinear(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0), &scale = ctx.input(1), &zeroPoint = ctx.input(2);
    const auto wanted = static_cast<int>(ctx.attrInt("output_dtype", 0));
    if (wanted != 0 && zeroPoint.defined() && wanted != zeroPoint.dataType())
        return ctx.error("attribute 'output_dtype' (" + ir::dataTypeName(wanted) + ") differs from y_zero_point's type (" +
                         ir::dataTypeName(zeroPoint.dataType()) + ")");
    const int outType = zeroPoint.defined() ? zeroPoint.dataType() : (wanted != 0 ? wanted : TensorProto::UINT8);
    double lo = 0, hi = 0;
    const bool integer = integerRange(outType, lo, hi);
    if (!integer && !isNarrowFloat(outType))
        return ctx.error("cannot quantize to " + ir::dataTypeName(outType));
    if (x.dataType() != TensorProto::INT32 && !isFloatElement(x.dataType()))
        return ctx.error("x must be a float type or int32, not " + ir::dataTypeName(x.dataType()));
    if (!isFloatElement(scale.dataType()))
        return ctx.error("y_scale must be a float type, not " + ir::dataTypeName(scale.dataType()));
    const auto precision = static_cast<int>(ctx.attrInt("precision", 0));
    if (precision != 0 && !isFloatElement(precision))
        return ctx.error("attribute 'precision' names " + ir::dataTypeName(precision) + "; it must be a float type");
    const std::int64_t saturate = ctx.attrInt("saturate", 1);
    if (saturate != 0 && saturate != 1)
        return ctx.error("attribute 'saturate' is " + std::to_string(saturate) + "; it must be 0 or 1");
    if (auto st = checkZeroPoint(ctx, zeroPoint, scale, "y_zero_point"); !st)
        return st;
    auto layout = scaleLayout(ctx, x, scale, "y_scale");
    if (!layout)
        return layout.takeError();
    auto out = ctx.allocate(outType, x.shape());
    if (!out)
        return out.takeError();

    const int divisionType = precision != 0 ? precision : promotedDivisionType(x.dataType(), scale.dataType());
    const std::vector<double> scales = asDoubles(scale);
    const std::vector<double> zeros = zeroPoint.defined() ? asDoubles(zeroPoint) : std::vector<double>{0.0};
    const Tensor xs = convertTensor(x, TensorProto::DOUBLE);
    const double *xv = xs.data<double>();
    NarrowRounding rounding;
    rounding.saturate = saturate == 1;
    for (std::int64_t i = 0; i < x.size(); ++i) {
        const std::size_t p = layout->index(i);
        const double q = roundedTo(divisionType, roundedTo(divisionType, xv[i]) / roundedTo(divisionType, scales[p]));
        const double zero = zeros[zeros.size() == 1 ? 0 : p];
        if (!integer) {
            out->mutableData<std::uint8_t>()[i] = narrowFromDouble(outType, q + zero, rounding);
            continue;
        }
        const std::int64_t v = saturatedInteger(q, zero, lo, hi);
        switch (outType) {
        case TensorProto::INT16: out->mutableData<std::int16_t>()[i] = static_cast<std::int16_t>(v); break;
        case TensorProto::UINT16: out->mutableData<std::uint16_t>()[i] = static_cast<std::uint16_t>(v); break;
        default: out->mutableData<std::uint8_t>()[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(v)); break;
        }
    }
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status dequantizeLinear(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0), &scale = ctx.input(1), &zeroPoint = ctx.input(2);
    if (zeroPoint.defined() && zeroPoint.dataType() != x.dataType())
        return ctx.error("x_zero_point (" + ir::dataTypeName(zeroPoint.dataType()) + ") must have x's element type (" +
                         ir::dataTypeName(x.dataType()) + ")");
    double lo = 0, hi = 0;
    if (x.dataType() != TensorProto::INT32 && !integerRange(x.dataType(), lo, hi) && !isNarrowFloat(x.dataType()))
        return ctx.error("cannot dequantize " + ir::dataTypeName(x.dataType()));
    if (!isFloatElement(scale.dataType()) || scale.dataType() == TensorProto::DOUBLE)
        return ctx.error("x_scale must be float, float16 or bfloat16, not " + ir::dataTypeName(scale.dataType()));
    // the output: float before opset 19, then the scale's type, then output_dtype when given (23)
    int outType = ctx.opset() >= 19 ? scale.dataType() : TensorProto::FLOAT;
    if (const auto wanted = static_cast<int>(ctx.attrInt("output_dtype", 0)); wanted != 0) {
        if (!isFloatElement(wanted) || wanted == TensorProto::DOUBLE)
            return ctx.error("attribute 'output_dtype' names " + ir::dataTypeName(wanted) + "; it must be float, float16 or bfloat16");
        outType = wanted;
    }
    if (auto st = checkZeroPoint(ctx, zeroPoint, scale, "x_zero_point"); !st)
        return st;
    auto layout = scaleLayout(ctx, x, scale, "x_scale");
    if (!layout)
        return layout.takeError();
    auto out = ctx.allocate(TensorProto::FLOAT, x.shape());
    if (!out)
        return out.takeError();
    const std::vector<double> scales = asDoubles(scale);
    const std::vector<double> zeros = zeroPoint.defined() ? asDoubles(zeroPoint) : std::vector<double>{0.0};
    const Tensor xs = convertTensor(x, TensorProto::DOUBLE); // exact for every type DequantizeLinear takes
    const double *xv = xs.data<double>();
    float *y = out->mutableData<float>();
    for (std::int64_t i = 0; i < x.size(); ++i) {
        const std::size_t p = layout->index(i);
        const auto zero = static_cast<float>(zeros[zeros.size() == 1 ? 0 : p]);
        y[i] = (static_cast<float>(xv[i]) - zero) * static_cast<float>(scales[p]);
    }
    ctx.setOutput(0, outType == TensorProto::FLOAT ? std::move(*out) : convertTensor(*out, outType));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
