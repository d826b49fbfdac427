// float16 and bfloat16 storage types with IEEE round-to-nearest-even conversion from float.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace portolan::runtime {

/// IEEE 754 binary16, stored as its bits.
struct Float16 {
    std::uint16_t bits = 0;

    static Float16 fromFloat(float value);
    float toFloat() const;
};

/// bfloat16 (the upper half of a binary32), stored as its bits.
struct BFloat16 {
    std::uint16_t bits = 0;

    static BFloat16 fromFloat(float value)
    {
        const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
        if (std::isnan(value))
            return {static_cast<std::uint16_t>((u >> 16) | 0x40)}; // keep it a quiet NaN
        // round to nearest even on the dropped 16 bits
        const std::uint32_t rounding = 0x7fff + ((u >> 16) & 1);
        return {static_cast<std::uint16_t>((u + rounding) >> 16)};
    }
    float toFloat() const { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }
};

inline float Float16::toFloat() const
{
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1f;
    std::uint32_t mantissa = bits & 0x3ff;
    std::uint32_t out;
    if (exponent == 0x1f) {
        out = sign | 0x7f800000 | (mantissa << 13); // inf / nan
    } else if (exponent != 0) {
        out = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        out = sign;
    } else { // subnormal: normalize
        int e = -1;
        do {
            ++e;
            mantissa <<= 1;
        } while ((mantissa & 0x400) == 0);
        out = sign | (static_cast<std::uint32_t>(112 - e) << 23) | ((mantissa & 0x3ff) << 13);
    }
    return std::bit_cast<float>(out);
}

inline Float16 Float16::fromFloat(float value)
{
    const std::uint32_t u = std::bit_cast<std::uint32_t>(value);
    const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000);
    const std::uint32_t absolute = u & 0x7fffffff;
    if (absolute >= 0x7f800000) // inf or nan
        return {static_cast<std::uint16_t>(sign | 0x7c00 | (absolute > 0x7f800000 ? 0x200 : 0))};
    if (absolute >= 0x477ff000) // rounds to ≥ 65520: overflow to inf
        return {static_cast<std::uint16_t>(sign | 0x7c00)};
    if (absolute < 0x38800000) { // below the smallest normal half: subnormal or zero
        // value * 2^24 rounded to nearest even gives the subnormal mantissa
        const float scaled = std::bit_cast<float>(absolute) * 16777216.0f;
        const auto mantissa = static_cast<std::uint16_t>(std::nearbyint(scaled));
        return {static_cast<std::uint16_t>(sign | mantissa)};
    }
    const std::uint32_t rounding = 0xfff + ((absolute >> 13) & 1);
    const std::uint32_t rebiased = absolute - (112u << 23) + rounding;
    return {static_cast<std::uint16_t>(sign | (rebiased >> 13))};
}

} // namespace portolan::runtime
