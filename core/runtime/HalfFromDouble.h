// double -> float16 / bfloat16 with one rounding (to nearest even), for Cast, Q/DQ, Attention and Range.
#pragma once

#include "runtime/Half.h"

#include <bit>
#include <cmath>
#include <cstdint>

namespace portolan::runtime {

/// `value` as a float rounded to odd: truncated toward zero, with the last mantissa bit set when
/// anything was dropped. Rounding that float to nearest even in a format of at most 22 bits of
/// precision gives what rounding `value` directly would (float keeps two guard bits more), so
/// double -> 16-bit goes through float without the double rounding of static_cast<float>.
inline float roundToOddFloat(double value)
{
    float f = static_cast<float>(value);
    if (std::isnan(value) || static_cast<double>(f) == value)
        return f;
    if (std::fabs(static_cast<double>(f)) > std::fabs(value)) // rounded away from zero (or to inf): step back
        f = std::nextafter(f, 0.0f);
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(f) | 1u);
}

inline Float16 float16FromDouble(double value) { return Float16::fromFloat(roundToOddFloat(value)); }
inline BFloat16 bfloat16FromDouble(double value) { return BFloat16::fromFloat(roundToOddFloat(value)); }

} // namespace portolan::runtime
