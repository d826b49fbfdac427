// The narrow element types of ONNX (float8 ×5, float4e2m1, int4/uint4, int2/uint2) at run time.
//
// A tensor of these types holds one element per byte: the code for the float formats, the value
// for the integers (sign-extended int8 for INT4/INT2, uint8 for UINT4/UINT2), so kernels index them
// like any byte type. Files pack the 4- and 2-bit types (ONNX's layout, support/MiniFloats.h);
// reading unpacks them and writing packs them again, bit for bit.
#pragma once

#include "support/MiniFloats.h"

#include <cstddef>
#include <cstdint>

namespace portolan::runtime {

/// TensorProto.DataType 17 to 26 (their bits in a file: ir::dataTypeFileBits).
bool isNarrowType(int dataType);

/// How a value becomes a narrow float: Cast's `saturate` (float8 only) and `round_mode` (float8e8m0).
struct NarrowRounding {
    bool saturate = true;
    support::E8M0Rounding e8m0 = support::E8M0Rounding::Up;
    /// Cast 19 to 23 turned ±inf into NaN for the fnuz float8 types even when saturating; Cast-24
    /// made it ±max (what support::encodeMiniFloat does).
    bool fnuzInfinityIsNaN = false;
};

/// The element's value (NaN codes give NaN).
double narrowToDouble(int dataType, std::uint8_t stored);
/// What a tensor of `dataType` stores for `value` (integers: rounded half to even, then wrapped).
std::uint8_t narrowFromDouble(int dataType, double value, const NarrowRounding &rounding = {});
/// The same from an integer, exactly (the 4- and 2-bit integers keep its low bits).
std::uint8_t narrowFromInteger(int dataType, std::int64_t value, const NarrowRounding &rounding = {});

/// File bytes → one element per byte (`count` elements; packed sub-byte codes are unpacked and the
/// signed integers sign-extended).
void unpackNarrow(int dataType, const std::uint8_t *file, std::size_t count, std::uint8_t *elements);
/// One element per byte → file bytes (packing the 4- and 2-bit types); `file` holds
/// narrowFileByteCount(dataType, count) bytes.
void packNarrow(int dataType, const std::uint8_t *elements, std::size_t count, std::uint8_t *file);
std::size_t narrowFileByteCount(int dataType, std::size_t count);

} // namespace portolan::runtime
