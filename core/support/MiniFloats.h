// The narrow element types of ONNX (TensorProto.DataType 17-26): decoding and encoding of the
// 8- and 4-bit floats, conversions to the 4- and 2-bit integers, and sub-byte packing.
//
// The rules are those of ONNX's Cast-25 and QuantizeLinear-25 (see docs/docsgen/source/technical/
// float8.md, float4.md, int4.md and int2.md in the ONNX repository). Every function is exact and
// deterministic: no floating-point environment, no undefined behaviour for any input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace portolan::support {

// The small floating-point formats. A code is held in the low bits of a byte (E2M1: low 4 bits).
enum class MiniFloat : std::uint8_t {
    E4M3FN,   // FLOAT8E4M3FN = 17: bias 7, NaN = S.1111.111, no infinity, max 448
    E4M3FNUZ, // FLOAT8E4M3FNUZ = 18: bias 8, one NaN (0x80), no -0, no infinity, max 240
    E5M2,     // FLOAT8E5M2 = 19: IEEE-like, bias 15, infinities and NaNs, max 57344
    E5M2FNUZ, // FLOAT8E5M2FNUZ = 20: bias 16, one NaN (0x80), no -0, no infinity, max 57344
    E8M0,     // FLOAT8E8M0 = 24: unsigned powers of two 2^(code-127), 0xFF is NaN, max 2^127
    E2M1,     // FLOAT4E2M1 = 23: bias 1, no NaN, no infinity, max 6
};

// Cast's round_mode attribute (Cast-24 and later), which only applies to casts to float8e8m0.
enum class E8M0Rounding : std::uint8_t {
    Up,      // "up" (the default): to the next power of two away from zero
    Down,    // "down": to the power of two towards zero
    Nearest, // "nearest": to the nearer power of two, halfway (1.5 * 2^k) going up
};

// Parses a round_mode attribute value; nothing for an unknown one.
std::optional<E8M0Rounding> parseE8M0Rounding(std::string_view text);

// 8, or 4 for E2M1.
int miniFloatBits(MiniFloat format);

// The exact value of a code (only the low miniFloatBits() bits are read). NaN codes give a quiet
// NaN carrying the code's sign bit; E8M0 code 0xFF gives a positive NaN.
float decodeMiniFloat(MiniFloat format, std::uint8_t code);

// The code for x, as Cast does it:
//  - in range: round to nearest, ties to even (E8M0: by `rounding` instead);
//  - saturate (Cast's default): magnitudes rounding past the largest finite value, and infinities,
//    become +/-max; without it they become infinity (E5M2) or NaN (the other float8 formats);
//  - NaN becomes the format's NaN (with x's sign where the format has signed NaNs); E2M1, which
//    has none, gives +6, and it always saturates (Cast's saturate does not apply to float4);
//  - E8M0 has no sign and no zero: x > 2^127 (and +inf) is out of range high, x < 2^-127 (zero,
//    negative values, -inf) out of range low; saturate clamps them to 2^127 or 2^-127, otherwise
//    both become NaN (the table in Cast-24's description).
std::uint8_t encodeMiniFloat(MiniFloat format, double x, bool saturate = true,
                             E8M0Rounding rounding = E8M0Rounding::Up);

bool isMiniFloatNaN(MiniFloat format, std::uint8_t code);

// The largest finite value: 448, 240, 57344, 57344, 2^127, 6.
float miniFloatMax(MiniFloat format);

// The 4- and 2-bit integers. A code is the element's two's-complement bits, zero-extended.
enum class SubByteInt : std::uint8_t {
    UInt4, // UINT4 = 21: [0, 15]
    Int4,  // INT4 = 22: [-8, 7]
    UInt2, // UINT2 = 25: [0, 3]
    Int2,  // INT2 = 26: [-2, 1]
};

// What to do with a value outside the type's range.
enum class SubByteOverflow : std::uint8_t {
    Wrap,     // keep the low bits (Cast; "discard higher bits and reinterpret")
    Saturate, // clamp to [min, max] (QuantizeLinear)
};

int subByteBits(SubByteInt type);
std::int32_t subByteMin(SubByteInt type);
std::int32_t subByteMax(SubByteInt type);

// Rounds x to the nearest integer, ties to even (int4.md / int2.md and QuantizeLinear), then wraps
// or saturates. NaN gives 0; +/-inf give 0 when wrapping and max / min when saturating (Cast
// leaves out-of-range float-to-integer undefined).
std::uint8_t subByteFromDouble(SubByteInt type, double x, SubByteOverflow overflow = SubByteOverflow::Wrap);

// From a wider integer. Pass unsigned 64-bit values converted to int64_t: the low bits are kept.
std::uint8_t subByteFromInteger(SubByteInt type, std::int64_t value,
                                SubByteOverflow overflow = SubByteOverflow::Wrap);

// The value of a code: sign-extended for Int4 / Int2 (only the low bits are read).
std::int32_t subByteValue(SubByteInt type, std::uint8_t code);

// Sub-byte packing (bits = 4 or 2): element i sits in byte i * bits / 8 at bit (i * bits) % 8, so
// the first element takes the least significant bits; unused high bits of the last byte are zero.
std::size_t packedByteCount(int bits, std::size_t count);
void packSubByte(int bits, const std::uint8_t *oneCodePerByte, std::size_t count, std::uint8_t *packed);
void unpackSubByte(int bits, const std::uint8_t *packed, std::size_t count, std::uint8_t *oneCodePerByte);

} // namespace portolan::support
