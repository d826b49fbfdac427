#include "runtime/NarrowTypes.h"

#include "ir/Type.h"

#include <cmath>
#include <cstring>
#include <optional>

namespace portolan::runtime {

using support::MiniFloat;
using support::SubByteInt;

namespace {

std::optional<MiniFloat> miniFloatOf(int dataType)
{
    switch (dataType) {
    case 17: return MiniFloat::E4M3FN;
    case 18: return MiniFloat::E4M3FNUZ;
    case 19: return MiniFloat::E5M2;
    case 20: return MiniFloat::E5M2FNUZ;
    case 23: return MiniFloat::E2M1;
    case 24: return MiniFloat::E8M0;
    default: return std::nullopt;
    }
}

std::optional<SubByteInt> subByteOf(int dataType)
{
    switch (dataType) {
    case 21: return SubByteInt::UInt4;
    case 22: return SubByteInt::Int4;
    case 25: return SubByteInt::UInt2;
    case 26: return SubByteInt::Int2;
    default: return std::nullopt;
    }
}

/// A sub-byte integer's code as the byte a tensor stores: its value, sign-extended for the signed ones.
std::uint8_t storedFromCode(SubByteInt type, std::uint8_t code)
{
    return static_cast<std::uint8_t>(static_cast<std::int8_t>(support::subByteValue(type, code)));
}

} // namespace

bool isNarrowType(int dataType)
{
    return dataType >= 17 && dataType <= 26;
}

double narrowToDouble(int dataType, std::uint8_t stored)
{
    if (const auto f = miniFloatOf(dataType))
        return support::decodeMiniFloat(*f, stored);
    if (const auto s = subByteOf(dataType))
        return support::subByteValue(*s, stored);
    return 0;
}

std::uint8_t narrowFromDouble(int dataType, double value, const NarrowRounding &rounding)
{
    constexpr std::uint8_t kFnuzNaN = 0x80;
    if (rounding.fnuzInfinityIsNaN && (dataType == 18 || dataType == 20) && std::isinf(value))
        return kFnuzNaN;
    if (const auto f = miniFloatOf(dataType))
        return support::encodeMiniFloat(*f, value, rounding.saturate, rounding.e8m0);
    if (const auto s = subByteOf(dataType))
        return storedFromCode(*s, support::subByteFromDouble(*s, value));
    return 0;
}

std::uint8_t narrowFromInteger(int dataType, std::int64_t value, const NarrowRounding &rounding)
{
    if (const auto s = subByteOf(dataType))
        return storedFromCode(*s, support::subByteFromInteger(*s, value));
    return narrowFromDouble(dataType, static_cast<double>(value), rounding);
}

std::size_t narrowFileByteCount(int dataType, std::size_t count)
{
    const int bits = ir::dataTypeFileBits(dataType);
    return bits == 8 ? count : support::packedByteCount(bits, count);
}

void unpackNarrow(int dataType, const std::uint8_t *file, std::size_t count, std::uint8_t *elements)
{
    const int bits = ir::dataTypeFileBits(dataType);
    if (bits == 8) {
        if (count)
            std::memcpy(elements, file, count);
        return;
    }
    support::unpackSubByte(bits, file, count, elements);
    if (const auto s = subByteOf(dataType))
        for (std::size_t i = 0; i < count; ++i)
            elements[i] = storedFromCode(*s, elements[i]);
}

void packNarrow(int dataType, const std::uint8_t *elements, std::size_t count, std::uint8_t *file)
{
    const int bits = ir::dataTypeFileBits(dataType);
    if (bits == 8) {
        if (count)
            std::memcpy(file, elements, count);
        return;
    }
    support::packSubByte(bits, elements, count, file);
}

} // namespace portolan::runtime
