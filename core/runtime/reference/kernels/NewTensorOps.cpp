// BitCast (opset 26) and Range-27, which adds float16/bfloat16 inputs computed in
// the `stash_type` precision (the other types keep Range-11's kernel in Constants.cpp).
#include "runtime/HalfFromDouble.h"
#include "runtime/reference/kernels/DataMovement.h"

#include "ir/Type.h"
#include "runtime/NarrowTypes.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

namespace portolan::runtime::kernels {

support::Status range(KernelContext &ctx); // Constants.cpp (Range-11)

// ---- BitCast ------------------------------------------------------------------------------------------

// A tensor's bytes are copied as they lie in memory; ONNX asks for little-endian bytes, which is what
// memory holds only on a little-endian host (it matters where a 64-bit value spans a complex's parts).
static_assert(std::endian::native == std::endian::little, "BitCast copies host memory as little-endian bytes");

support::Status bitCast(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (!ctx.hasAttribute("to"))
        return ctx.error("the attribute 'to' is required");
    const std::int64_t to = ctx.attrInt("to", 0);
    const int from = x.dataType();
    if (from == TensorProto::STRING)
        return ctx.error("the input is a string tensor, which has no bits to reinterpret");
    if (to == TensorProto::STRING)
        return ctx.error("to = " + std::to_string(to) + " (string) is not a type BitCast can produce");
    if (to <= 0 || to > 26 || ir::dataTypeFileBits(static_cast<int>(to)) == 0)
        return ctx.error("to = " + std::to_string(to) + " is not an element type BitCast can produce");
    const int target = static_cast<int>(to);
    const int bits = ir::dataTypeFileBits(from);
    if (bits == 0)
        return unsupportedType(ctx, from);
    if (ir::dataTypeFileBits(target) != bits)
        return ctx.error("the input's " + ir::dataTypeName(from) + " has " + std::to_string(bits) + " bits but to = " +
                         ir::dataTypeName(target) + " has " + std::to_string(ir::dataTypeFileBits(target)) +
                         "; BitCast needs equal widths");
    auto out = ctx.allocateUninitialized(target, x.shape()); // every element is written below
    if (!out)
        return out.takeError();
    auto *dst = out->mutableData<std::uint8_t>();
    const auto *src = reinterpret_cast<const std::uint8_t *>(x.rawData());
    if (bits >= 8) {
        // Types of one width take the same bytes per element at run time (the 8-bit narrow types store
        // their code in one byte), so the bytes themselves are the result.
        if (x.byteSize() != 0)
            std::memcpy(dst, src, x.byteSize());
        if (target == TensorProto::BOOL)
            for (std::int64_t i = 0; i < x.size(); ++i)
                if (dst[i] > 1) // only 0 and 1 mean false and true; anything else has no bool meaning
                    return ctx.error("element " + std::to_string(i) + " holds the byte " + std::to_string(dst[i]) +
                                     ", which is neither false (0) nor true (1)");
    } else {
        // The 4- and 2-bit types hold one element a byte: the code for float4e2m1, the value for the
        // integers (sign-extended for int4 and int2). Their bits are the low `bits` bits of that byte.
        const unsigned mask = (1u << bits) - 1;
        const bool signedTarget = target == 22 || target == 26; // int4, int2
        for (std::int64_t i = 0; i < x.size(); ++i) {
            unsigned code = src[i] & mask;
            if (signedTarget && (code >> (bits - 1)) != 0)
                code |= ~mask; // sign-extend to the stored int8
            dst[i] = static_cast<std::uint8_t>(code);
        }
    }
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

// ---- Range-27 -----------------------------------------------------------------------------------------

namespace {

/// Range of float16/bfloat16 operands computed in S (float or double): the count
/// max(ceil((limit - start) / delta), 0) and the values start + i·delta, each rounded once to `type`.
template <typename S>
support::Status halfRange(KernelContext &ctx, int type)
{
    auto operand = [&](std::size_t k) {
        const std::uint16_t bits = ctx.input(k).data<std::uint16_t>()[0];
        return static_cast<S>(type == TensorProto::FLOAT16 ? Float16{bits}.toFloat() : BFloat16{bits}.toFloat());
    };
    const S start = operand(0), limit = operand(1), delta = operand(2);
    if (delta == S(0))
        return ctx.error("delta is zero");
    const S count = std::ceil((limit - start) / delta);
    // NaN and infinite operands (or a count past int64) are refused; a large count meets the memory cap.
    if (!(count < S(0x1p62)))
        return ctx.error("the output would have " + (std::isnan(count) ? std::string("NaN") : std::to_string(count)) +
                         " elements");
    const auto n = static_cast<std::int64_t>(std::max(S(0), count));
    auto out = ctx.allocateUninitialized(type, {n});
    if (!out)
        return out.takeError();
    auto *o = out->mutableData<std::uint16_t>();
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = static_cast<double>(start + static_cast<S>(i) * delta); // exact for S = float
        o[i] = type == TensorProto::FLOAT16 ? float16FromDouble(v).bits : bfloat16FromDouble(v).bits;
    }
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace

support::Status range27(KernelContext &ctx)
{
    // Read for every type: it has no effect on the others (the spec), so any value is honoured there.
    const std::int64_t stash = ctx.attrInt("stash_type", TensorProto::FLOAT);
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const int type = ctx.input(0).dataType();
    if (!isHalfType(type))
        return range(ctx);
    for (std::size_t k = 0; k < 3; ++k)
        if (ctx.input(k).dataType() != type || ctx.input(k).size() != 1)
            return ctx.error("start, limit and delta must be scalars of one type");
    if (stash == TensorProto::FLOAT)
        return halfRange<float>(ctx, type);
    if (stash == TensorProto::DOUBLE)
        return halfRange<double>(ctx, type);
    return ctx.error("stash_type = " + std::to_string(stash) + " is not float (1) or double (11), the types " +
                     ir::dataTypeName(type) + " inputs may be computed in");
}

} // namespace portolan::runtime::kernels
