// Cast and CastLike, and the element conversions every kernel uses (convertTensor).
// float → bfloat16 truncates for opsets before 19: ONNX 1.12's reference (and its test data) drop the
// low 16 bits; opset 19 made it round-to-nearest-even, which BFloat16::fromFloat implements.
#include "runtime/HalfFromDouble.h"
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "ir/Type.h"
#include "runtime/NarrowTypes.h"

namespace portolan::runtime::kernels {

namespace {

// Every element as double (exact for all but 64-bit integers beyond 2^53, which go through int64 below).
template <typename T>
double asDouble(T v) { return static_cast<double>(v); }

double readAsDouble(const Tensor &t, std::int64_t i)
{
    switch (t.dataType()) {
    case TensorProto::FLOAT16: return Float16{t.data<std::uint16_t>()[i]}.toFloat();
    case TensorProto::BFLOAT16: return BFloat16{t.data<std::uint16_t>()[i]}.toFloat();
    case TensorProto::BOOL: return t.data<std::uint8_t>()[i] ? 1.0 : 0.0;
    default: {
        if (isNarrowType(t.dataType()))
            return narrowToDouble(t.dataType(), t.data<std::uint8_t>()[i]);
        double out = 0;
        visitNumeric(t.dataType(), [&]<typename T>() { out = asDouble(t.data<T>()[i]); });
        return out;
    }
    }
}

// Float to integer without undefined behaviour: NaN and out-of-range values give the type's minimum,
// as numpy's astype does on x86.
template <typename I>
I floatToInteger(double v)
{
    if (std::isnan(v) || v < static_cast<double>(std::numeric_limits<I>::min()) ||
        v >= static_cast<double>(std::numeric_limits<I>::max()))
        return std::isnan(v) || v < 0 ? std::numeric_limits<I>::min() : std::numeric_limits<I>::max();
    return static_cast<I>(v);
}

bool isIntegerType(int t)
{
    bool integer = false;
    visitInteger(t, [&]<typename T>() { integer = true; });
    return integer || t == TensorProto::BOOL;
}

std::string formatNumber(double v, int fromType)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v < 0 ? "-inf" : "inf";
    char buffer[64];
    // shortest text that reads back to the same value at the source precision (numpy's str())
    const auto result = fromType == TensorProto::DOUBLE
                            ? std::to_chars(buffer, buffer + sizeof buffer, v)
                            : std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(v));
    return std::string(buffer, result.ptr);
}

} // namespace

Tensor convertTensor(const Tensor &in, int to)
{
    return convertTensor(in, to, NarrowRounding{});
}

Tensor convertTensor(const Tensor &in, int to, const NarrowRounding &rounding)
{
    const int from = in.dataType();
    if (from == to)
        return in;
    Tensor out = Tensor::zeros(to, in.shape());
    const std::int64_t n = in.size();

    if (from == TensorProto::STRING) {
        const auto &strings = in.strings();
        for (std::int64_t i = 0; i < n; ++i) {
            const double v = std::strtod(strings[static_cast<std::size_t>(i)].c_str(), nullptr);
            Tensor scalar = Tensor::fromVector<double>(TensorProto::DOUBLE, {}, {v});
            Tensor converted = convertTensor(scalar, to, rounding);
            std::memcpy(out.mutableData<std::byte>() + i * static_cast<std::int64_t>(ir::dataTypeSize(to)),
                        converted.rawData(), ir::dataTypeSize(to));
        }
        return out;
    }
    if (to == TensorProto::STRING) {
        auto &strings = out.mutableStrings();
        for (std::int64_t i = 0; i < n; ++i) {
            if (isIntegerType(from) && from != TensorProto::BOOL && from != TensorProto::UINT64) {
                std::int64_t v = 0;
                visitInteger(from, [&]<typename T>() { v = static_cast<std::int64_t>(in.data<T>()[i]); });
                strings[static_cast<std::size_t>(i)] = std::to_string(v);
            } else if (from == TensorProto::UINT64) {
                strings[static_cast<std::size_t>(i)] = std::to_string(in.data<std::uint64_t>()[i]);
            } else {
                strings[static_cast<std::size_t>(i)] = formatNumber(readAsDouble(in, i), from);
            }
        }
        return out;
    }
    // 64-bit integers keep full precision between integer types
    if (isIntegerType(from) && isIntegerType(to) && from != TensorProto::BOOL && to != TensorProto::BOOL) {
        visitInteger(from, [&]<typename S>() {
            visitInteger(to, [&]<typename D>() {
                const S *src = in.data<S>();
                D *dst = out.mutableData<D>();
                for (std::int64_t i = 0; i < n; ++i)
                    dst[i] = static_cast<D>(src[i]);
            });
        });
        return out;
    }
    if (isNarrowType(to)) {
        auto *dst = out.mutableData<std::uint8_t>();
        if (isIntegerType(from) && from != TensorProto::BOOL) // exact, whatever the magnitude
            visitInteger(from, [&]<typename S>() {
                for (std::int64_t i = 0; i < n; ++i)
                    dst[i] = narrowFromInteger(to, static_cast<std::int64_t>(in.data<S>()[i]), rounding);
            });
        else
            for (std::int64_t i = 0; i < n; ++i)
                dst[i] = narrowFromDouble(to, readAsDouble(in, i), rounding);
        return out;
    }
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = readAsDouble(in, i);
        switch (to) {
        case TensorProto::FLOAT16: out.mutableData<std::uint16_t>()[i] = float16FromDouble(v).bits; break;
        case TensorProto::BFLOAT16: out.mutableData<std::uint16_t>()[i] = bfloat16FromDouble(v).bits; break;
        case TensorProto::BOOL: out.mutableData<std::uint8_t>()[i] = v != 0 ? 1 : 0; break;
        case TensorProto::FLOAT: out.mutableData<float>()[i] = static_cast<float>(v); break;
        case TensorProto::DOUBLE: out.mutableData<double>()[i] = v; break;
        default:
            visitInteger(to, [&]<typename D>() { out.mutableData<D>()[i] = floatToInteger<D>(v); });
        }
    }
    return out;
}

/// The element types convertTensor reads and writes (all but the complex ones).
static bool convertible(int type)
{
    return isIntegerType(type) || type == TensorProto::FLOAT || type == TensorProto::DOUBLE || type == TensorProto::FLOAT16 ||
           type == TensorProto::BFLOAT16 || type == TensorProto::STRING || isNarrowType(type);
}

/// Cast's `saturate` (opset 19 on; it only changes casts to float8) and `round_mode` (opset 24 on; it
/// only changes casts to float8e8m0). Before opset 19 the float8 types did not exist.
static support::Expected<NarrowRounding> narrowRounding(KernelContext &ctx)
{
    NarrowRounding rounding;
    rounding.fnuzInfinityIsNaN = ctx.opset() < 24;
    if (const ir::Attribute *saturate = ctx.attribute("saturate")) {
        if (saturate->proto.i() != 0 && saturate->proto.i() != 1)
            return ctx.error("attribute 'saturate' is " + std::to_string(saturate->proto.i()) + "; it must be 0 or 1");
        rounding.saturate = saturate->proto.i() == 1;
    }
    if (const ir::Attribute *mode = ctx.attribute("round_mode")) {
        const auto parsed = support::parseE8M0Rounding(mode->proto.s());
        if (!parsed)
            return ctx.error("attribute 'round_mode' is '" + mode->proto.s() + "'; it must be up, down or nearest");
        rounding.e8m0 = *parsed;
    }
    return rounding;
}

static support::Status castTo(KernelContext &ctx, int to)
{
    const Tensor &in = ctx.input(0);
    for (const int type : {in.dataType(), to})
        if (!convertible(type))
            return ctx.error("casting " + ir::dataTypeName(in.dataType()) + " to " + ir::dataTypeName(to) +
                             " is not implemented (element type " + std::to_string(type) + ")");
    auto out = ctx.allocate(to, in.shape()); // checks the budget; the conversion below allocates its own
    if (!out)
        return out.takeError();
    if (in.dataType() == TensorProto::FLOAT && to == TensorProto::BFLOAT16 && ctx.opset() < 19) {
        const auto *src = in.data<std::uint32_t>();
        auto *dst = out->mutableData<std::uint16_t>();
        for (std::int64_t i = 0; i < in.size(); ++i)
            dst[i] = static_cast<std::uint16_t>(src[i] >> 16);
        ctx.setOutput(0, std::move(*out));
        return support::Status::ok();
    }
    auto rounding = narrowRounding(ctx);
    if (!rounding)
        return rounding.takeError();
    ctx.setOutput(0, convertTensor(in, to, *rounding));
    return support::Status::ok();
}

support::Status cast(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const ir::Attribute *to = ctx.attribute("to");
    if (!to)
        return ctx.error("has no 'to' attribute");
    if (to->proto.type() == onnx::AttributeProto::STRING) { // opset 1 spelled the type out: "FLOAT"
        TensorProto::DataType parsed{};
        if (!TensorProto::DataType_Parse(to->proto.s(), &parsed))
            return ctx.error("'to' names an unknown type '" + to->proto.s() + "'");
        return castTo(ctx, parsed);
    }
    return castTo(ctx, static_cast<int>(to->proto.i()));
}

support::Status castLike(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    return castTo(ctx, ctx.input(1).dataType());
}

} // namespace portolan::runtime::kernels
