#include "support/MiniFloats.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

namespace portolan::support {

namespace {

// How a sign-magnitude format spends its top codes on NaN.
enum class NanStyle : std::uint8_t {
    AllOnes,  // E4M3FN: only S.1111.111 is NaN, so the top exponent still holds finite values
    Ieee,     // E5M2: top exponent with a non-zero mantissa is NaN, with a zero one infinity
    NegZero,  // the FNUZ formats: the would-be -0 (0x80) is the only NaN
    None,     // E2M1
};

struct Layout {
    int bits;
    int exponentBits;
    int mantissaBits;
    int bias;
    NanStyle nan;
    std::uint8_t maxCode; // the largest finite magnitude, sign bit clear
};

// E8M0 has no sign or mantissa and is handled on its own; its entry only carries the width.
constexpr std::array<Layout, 6> kLayouts = {{
    {8, 4, 3, 7, NanStyle::AllOnes, 0x7E},  // E4M3FN: 1.75 * 2^8 = 448
    {8, 4, 3, 8, NanStyle::NegZero, 0x7F},  // E4M3FNUZ: 1.875 * 2^7 = 240
    {8, 5, 2, 15, NanStyle::Ieee, 0x7B},    // E5M2: 1.75 * 2^15 = 57344
    {8, 5, 2, 16, NanStyle::NegZero, 0x7F}, // E5M2FNUZ: 1.75 * 2^15 = 57344
    {8, 8, 0, 127, NanStyle::None, 0xFE},   // E8M0: 2^127
    {4, 2, 1, 1, NanStyle::None, 0x7},      // E2M1: 1.5 * 2^2 = 6
}};

const Layout &layout(MiniFloat format)
{
    return kLayouts[static_cast<std::size_t>(format)];
}

constexpr std::uint8_t lowMask(int bits)
{
    return static_cast<std::uint8_t>((1u << bits) - 1u);
}

float quietNaN(bool negative)
{
    return std::bit_cast<float>(negative ? 0xFFC00000u : 0x7FC00000u);
}

bool isNaNCode(const Layout &l, std::uint8_t code)
{
    const std::uint8_t magnitude = code & lowMask(l.bits - 1);
    const int exponentField = magnitude >> l.mantissaBits;
    const int topExponent = (1 << l.exponentBits) - 1;
    switch (l.nan) {
    case NanStyle::AllOnes:
        return magnitude == lowMask(l.bits - 1);
    case NanStyle::Ieee:
        return exponentField == topExponent && (magnitude & lowMask(l.mantissaBits)) != 0;
    case NanStyle::NegZero:
        return code == (1u << (l.bits - 1));
    case NanStyle::None:
        return false;
    }
    return false;
}

// Straight from the definition; only used to fill the tables below.
float decodeByDefinition(MiniFloat format, std::uint8_t code)
{
    if (format == MiniFloat::E8M0)
        return code == 0xFF ? quietNaN(false) : std::ldexp(1.0f, int(code) - 127);
    const Layout &l = layout(format);
    const bool negative = (code >> (l.bits - 1)) & 1u;
    if (isNaNCode(l, code))
        return quietNaN(negative);
    const int exponentField = (code & lowMask(l.bits - 1)) >> l.mantissaBits;
    const int mantissa = code & lowMask(l.mantissaBits);
    float magnitude;
    if (l.nan == NanStyle::Ieee && exponentField == (1 << l.exponentBits) - 1)
        magnitude = HUGE_VALF;
    else if (exponentField == 0) // subnormal: no implicit leading one, exponent as for field 1
        magnitude = std::ldexp(float(mantissa), 1 - l.bias - l.mantissaBits);
    else
        magnitude = std::ldexp(float(mantissa + (1 << l.mantissaBits)), exponentField - l.bias - l.mantissaBits);
    return negative ? -magnitude : magnitude;
}

using DecodeTable = std::array<float, 256>;

const DecodeTable &decodeTable(MiniFloat format)
{
    // Built once, thread-safely; indexed by the whole byte, so the bits of a 4-bit format's code
    // above its width decode as if they were clear.
    static const std::array<DecodeTable, 6> tables = [] {
        std::array<DecodeTable, 6> built{};
        for (std::size_t f = 0; f < built.size(); ++f) {
            const auto format = static_cast<MiniFloat>(f);
            const std::uint8_t mask = lowMask(kLayouts[f].bits);
            for (unsigned code = 0; code < 256; ++code)
                built[f][code] = decodeByDefinition(format, static_cast<std::uint8_t>(code & mask));
        }
        return built;
    }();
    return tables[static_cast<std::size_t>(format)];
}

// Rounds a non-negative, finite value to an integer, halfway cases to the even one. Written out
// rather than std::nearbyint so that the result never depends on the floating-point environment.
double roundHalfEven(double x)
{
    const double down = std::floor(x);
    const double fraction = x - down; // exact: down and x share the binade or down is 0
    if (fraction > 0.5)
        return down + 1.0;
    if (fraction < 0.5)
        return down;
    return std::fmod(down, 2.0) == 0.0 ? down : down + 1.0;
}

bool isSigned(SubByteInt type)
{
    return type == SubByteInt::Int4 || type == SubByteInt::Int2;
}

double roundHalfEvenSigned(double x)
{
    return x < 0 ? -roundHalfEven(-x) : roundHalfEven(x);
}

std::uint8_t encodeE8M0(double x, bool saturate, E8M0Rounding rounding)
{
    constexpr std::uint8_t kNaN = 0xFF;
    if (std::isnan(x))
        return kNaN;
    // Out of range, judged on x before rounding as Cast-24's table does: there is no zero and no
    // sign, so zero, -0 and every negative value count as below the smallest value 2^-127.
    if (!(x >= std::ldexp(1.0, -127)))
        return saturate ? 0x00 : kNaN;
    if (x > std::ldexp(1.0, 127))
        return saturate ? 0xFE : kNaN;
    int exponent = 0;
    const double fraction = std::frexp(x, &exponent); // x = fraction * 2^exponent, fraction in [0.5, 1)
    int power = exponent - 1;                          // x = (2 * fraction) * 2^power
    switch (rounding) {
    case E8M0Rounding::Up:
        power += fraction != 0.5 ? 1 : 0;
        break;
    case E8M0Rounding::Down:
        break;
    case E8M0Rounding::Nearest: // halfway between 2^power and 2^(power+1) is 1.5 * 2^power
        power += fraction >= 0.75 ? 1 : 0;
        break;
    }
    // x <= 2^127 keeps power <= 127: only a value with a fraction rounds up, and 2^127 has none.
    return static_cast<std::uint8_t>(power + 127);
}

} // namespace

std::optional<E8M0Rounding> parseE8M0Rounding(std::string_view text)
{
    if (text == "up")
        return E8M0Rounding::Up;
    if (text == "down")
        return E8M0Rounding::Down;
    if (text == "nearest")
        return E8M0Rounding::Nearest;
    return std::nullopt;
}

int miniFloatBits(MiniFloat format)
{
    return layout(format).bits;
}

float decodeMiniFloat(MiniFloat format, std::uint8_t code)
{
    return decodeTable(format)[code];
}

bool isMiniFloatNaN(MiniFloat format, std::uint8_t code)
{
    if (format == MiniFloat::E8M0)
        return code == 0xFF;
    const Layout &l = layout(format);
    return isNaNCode(l, code & lowMask(l.bits));
}

float miniFloatMax(MiniFloat format)
{
    return decodeMiniFloat(format, layout(format).maxCode);
}

std::uint8_t encodeMiniFloat(MiniFloat format, double x, bool saturate, E8M0Rounding rounding)
{
    if (format == MiniFloat::E8M0)
        return encodeE8M0(x, saturate, rounding);

    const Layout &l = layout(format);
    const bool negative = std::signbit(x);
    const std::uint8_t sign = negative ? static_cast<std::uint8_t>(1u << (l.bits - 1)) : 0;
    const std::uint8_t magnitudeMask = lowMask(l.bits - 1);
    const bool unsignedZero = l.nan == NanStyle::NegZero; // the -0 pattern is taken by NaN

    auto nan = [&]() -> std::uint8_t {
        switch (l.nan) {
        case NanStyle::AllOnes:
        case NanStyle::Ieee: // canonical: all mantissa bits set, x's sign kept (Cast's "-NaN" rows)
            return sign | magnitudeMask;
        case NanStyle::NegZero:
            return static_cast<std::uint8_t>(1u << (l.bits - 1));
        case NanStyle::None: // float4.md: NaN casts to 6
            return l.maxCode;
        }
        return 0;
    };
    // Past the largest finite value after rounding, or infinite.
    auto overflow = [&]() -> std::uint8_t {
        if (saturate || l.nan == NanStyle::None) // float4 always saturates
            return sign | l.maxCode;
        if (l.nan == NanStyle::Ieee)
            return sign | static_cast<std::uint8_t>(((1u << l.exponentBits) - 1u) << l.mantissaBits);
        return nan();
    };

    if (std::isnan(x))
        return nan();
    const double magnitude = std::fabs(x);
    if (std::isinf(magnitude))
        return overflow();
    if (magnitude == 0.0)
        return unsignedZero ? 0 : sign;

    // Put the format's rounding step at 1: the step is 2^(exponent - mantissaBits), where exponent
    // is that of magnitude, but never below the smallest normal exponent (subnormals share it).
    const int minExponent = 1 - l.bias;
    int binade = 0;
    std::frexp(magnitude, &binade);
    int exponent = std::max(binade - 1, minExponent);
    const double scaled = std::ldexp(magnitude, l.mantissaBits - exponent); // exact: a power-of-two scaling
    auto steps = static_cast<std::uint32_t>(roundHalfEven(scaled));         // < 2^(mantissaBits + 2)
    const std::uint32_t implicitOne = 1u << l.mantissaBits;
    if (steps == 2 * implicitOne) { // rounding carried into the next binade
        steps = implicitOne;
        ++exponent;
    }
    if (steps == 0) // rounded to zero; the FNUZ formats have only +0
        return unsignedZero ? 0 : sign;
    if (steps < implicitOne) // subnormal: exponent field 0
        return sign | static_cast<std::uint8_t>(steps);
    const int exponentField = exponent + l.bias;
    if (exponentField >= (1 << l.exponentBits))
        return overflow();
    const auto code = static_cast<std::uint32_t>(exponentField) << l.mantissaBits | (steps - implicitOne);
    if (code > l.maxCode) // codes grow with magnitude, so this also rules out the NaN / inf codes
        return overflow();
    return sign | static_cast<std::uint8_t>(code);
}

// ---- sub-byte integers ---------------------------------------------------------------------------

int subByteBits(SubByteInt type)
{
    return type == SubByteInt::UInt4 || type == SubByteInt::Int4 ? 4 : 2;
}

std::int32_t subByteMin(SubByteInt type)
{
    return isSigned(type) ? -(1 << (subByteBits(type) - 1)) : 0;
}

std::int32_t subByteMax(SubByteInt type)
{
    return isSigned(type) ? (1 << (subByteBits(type) - 1)) - 1 : (1 << subByteBits(type)) - 1;
}

std::uint8_t subByteFromInteger(SubByteInt type, std::int64_t value, SubByteOverflow overflow)
{
    if (overflow == SubByteOverflow::Saturate)
        value = std::clamp<std::int64_t>(value, subByteMin(type), subByteMax(type));
    // Two's complement low bits, whatever the sign (the conversion to unsigned is modular).
    return static_cast<std::uint8_t>(static_cast<std::uint64_t>(value) & lowMask(subByteBits(type)));
}

std::uint8_t subByteFromDouble(SubByteInt type, double x, SubByteOverflow overflow)
{
    if (std::isnan(x))
        return 0;
    const double low = subByteMin(type), high = subByteMax(type);
    if (overflow == SubByteOverflow::Saturate) {
        const double rounded = std::isinf(x) ? x : roundHalfEvenSigned(x);
        return subByteFromInteger(type, static_cast<std::int64_t>(std::clamp(rounded, low, high)));
    }
    if (std::isinf(x))
        return 0;
    // Reduce modulo 2^bits in floating point (fmod is exact), so that no magnitude overflows.
    const double modulus = std::ldexp(1.0, subByteBits(type));
    double wrapped = std::fmod(roundHalfEvenSigned(x), modulus);
    if (wrapped < 0)
        wrapped += modulus;
    return static_cast<std::uint8_t>(wrapped);
}

std::int32_t subByteValue(SubByteInt type, std::uint8_t code)
{
    const int bits = subByteBits(type);
    const std::int32_t value = code & lowMask(bits);
    return isSigned(type) && value >= (1 << (bits - 1)) ? value - (1 << bits) : value;
}

// ---- packing --------------------------------------------------------------------------------------

std::size_t packedByteCount(int bits, std::size_t count)
{
    assert(bits > 0 && 8 % bits == 0);
    const std::size_t perByte = static_cast<std::size_t>(8 / bits);
    return count / perByte + (count % perByte != 0 ? 1 : 0);
}

void packSubByte(int bits, const std::uint8_t *oneCodePerByte, std::size_t count, std::uint8_t *packed)
{
    const std::size_t bytes = packedByteCount(bits, count);
    if (bytes != 0)
        std::memset(packed, 0, bytes); // also zeroes the padding of the last byte
    const std::uint8_t mask = lowMask(bits);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t bit = i * static_cast<std::size_t>(bits);
        packed[bit / 8] |= static_cast<std::uint8_t>((oneCodePerByte[i] & mask) << (bit % 8));
    }
}

void unpackSubByte(int bits, const std::uint8_t *packed, std::size_t count, std::uint8_t *oneCodePerByte)
{
    assert(bits > 0 && 8 % bits == 0);
    const std::uint8_t mask = lowMask(bits);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t bit = i * static_cast<std::size_t>(bits);
        oneCodePerByte[i] = static_cast<std::uint8_t>((packed[bit / 8] >> (bit % 8)) & mask);
    }
}

} // namespace portolan::support
