// Element types and shapes as Portolan reads them from ONNX TypeProtos (static, symbolic or unknown dims).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace portolan::ir {

using DataType = onnx::TensorProto_DataType;

/// ONNX's name for an element type ("float", "int64", "bfloat16", …); "undefined" for 0.
std::string dataTypeName(int dataType);

/// Bytes per element in memory, 0 for string and undefined types. The narrow types (float8, float4,
/// int4, int2: 17 to 26) take one byte an element at run time (runtime/NarrowTypes.h).
std::size_t dataTypeSize(int dataType);

/// Bits per element in a file (raw_data, external data): 4 for int4, uint4 and float4e2m1, 2 for int2
/// and uint2, otherwise 8 × dataTypeSize (0 for string and undefined types).
int dataTypeFileBits(int dataType);

/// Bytes `count` elements take in a file, the sub-byte types packed (the last byte padded); nullopt
/// for types without a fixed size or when the count overflows.
std::optional<std::size_t> dataTypeFileBytes(int dataType, std::uint64_t count);

/// One dimension: a known extent, a symbol ("batch"), or unknown.
struct Dim {
    std::variant<std::monostate, std::int64_t, std::string> v;

    bool isStatic() const { return std::holds_alternative<std::int64_t>(v); }
    bool isSymbolic() const { return std::holds_alternative<std::string>(v); }
    bool isUnknown() const { return std::holds_alternative<std::monostate>(v); }
    std::int64_t extent() const { return std::get<std::int64_t>(v); }
    const std::string &symbol() const { return std::get<std::string>(v); }
    /// "3", "batch" or "?".
    std::string str() const;
};

/// A tensor's shape, or none when the rank itself is unknown.
struct Shape {
    std::optional<std::vector<Dim>> dims;

    bool rankKnown() const { return dims.has_value(); }
    bool isStatic() const;
    /// The extents when the shape is fully static; nullopt otherwise.
    std::optional<std::vector<std::int64_t>> staticDims() const;
    /// "[1,3,224,224]", "[batch,seq,768]", "[?]" or "unknown".
    std::string str() const;
};

/// Readable summary of a TypeProto: "float[1,3,224,224]", "seq(float[?])", "optional(int64[])", "map(string,float)".
std::string typeString(const onnx::TypeProto &type);

/// Element type of a tensor (or sparse tensor) type; 0 when the type is not a tensor.
int tensorElementType(const onnx::TypeProto &type);

/// Shape of a tensor type; unknown rank when absent or not a tensor.
Shape tensorShape(const onnx::TypeProto &type);

/// Element count of fully static dims; nullopt on a negative dim or int64 overflow.
std::optional<std::int64_t> elementCount(const std::vector<std::int64_t> &dims);

} // namespace portolan::ir
