// Integer arithmetic without undefined behaviour. Overflow wraps as two's-complement hardware does
// (what ONNX Runtime and numpy compute on x86); where the hardware traps (x / 0, INT_MIN / -1) the
// result is the one numpy gives: 0 for a zero divisor, INT_MIN for INT_MIN / -1 (docs/integer-semantics.md).
#pragma once

#include <concepts>
#include <limits>
#include <type_traits>

namespace portolan::support {

namespace detail {
// Types narrower than int promote to int, where a product can overflow: compute in unsigned int.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
} // namespace detail

template <std::integral T>
constexpr T wrappingAdd(T a, T b)
{
    using W = detail::WrapType<T>;
    return static_cast<T>(static_cast<W>(static_cast<W>(a) + static_cast<W>(b)));
}

template <std::integral T>
constexpr T wrappingSub(T a, T b)
{
    using W = detail::WrapType<T>;
    return static_cast<T>(static_cast<W>(static_cast<W>(a) - static_cast<W>(b)));
}

template <std::integral T>
constexpr T wrappingMul(T a, T b)
{
    using W = detail::WrapType<T>;
    return static_cast<T>(static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
}

template <std::integral T>
constexpr T wrappingNeg(T a)
{
    return wrappingSub(T(0), a);
}

/// |a|, with |INT_MIN| = INT_MIN as the hardware (and numpy) give.
template <std::integral T>
constexpr T wrappingAbs(T a)
{
    if constexpr (std::is_signed_v<T>)
        return a < 0 ? wrappingNeg(a) : a;
    else
        return a;
}

/// a / b truncated toward zero; 0 when b is 0, and INT_MIN / -1 wraps to INT_MIN.
template <std::integral T>
constexpr T integerDivide(T a, T b)
{
    if (b == 0)
        return T(0);
    if constexpr (std::is_signed_v<T>)
        if (b == T(-1))
            return wrappingNeg(a);
    return static_cast<T>(a / b);
}

/// C's a % b (the sign of a, ONNX Mod with fmod = 1); 0 when b is 0 or -1.
template <std::integral T>
constexpr T truncatedRemainder(T a, T b)
{
    if (b == 0)
        return T(0);
    if constexpr (std::is_signed_v<T>)
        if (b == T(-1))
            return T(0);
    return static_cast<T>(a % b);
}

/// Python's a % b (the sign of b, ONNX Mod with fmod = 0); 0 when b is 0 or -1.
template <std::integral T>
constexpr T flooredRemainder(T a, T b)
{
    const T r = truncatedRemainder(a, b);
    if constexpr (std::is_signed_v<T>)
        if (r != 0 && ((r < 0) != (b < 0)))
            return static_cast<T>(r + b); // opposite signs: cannot overflow
    return r;
}

/// a shifted by `bits` (either way); 0 once the shift reaches the type's width.
template <std::unsigned_integral T>
constexpr T shiftBits(T a, T bits, bool left)
{
    if (bits >= T(std::numeric_limits<T>::digits))
        return T(0);
    using W = detail::WrapType<T>;
    return static_cast<T>(left ? static_cast<W>(static_cast<W>(a) << bits) : static_cast<W>(a) >> bits);
}

} // namespace portolan::support
