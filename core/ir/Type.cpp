// Names, sizes and readable forms of ONNX types.
#include "ir/Type.h"

#include <limits>

namespace portolan::ir {

std::string dataTypeName(int dataType)
{
    switch (dataType) {
    case onnx::TensorProto::FLOAT: return "float";
    case onnx::TensorProto::UINT8: return "uint8";
    case onnx::TensorProto::INT8: return "int8";
    case onnx::TensorProto::UINT16: return "uint16";
    case onnx::TensorProto::INT16: return "int16";
    case onnx::TensorProto::INT32: return "int32";
    case onnx::TensorProto::INT64: return "int64";
    case onnx::TensorProto::STRING: return "string";
    case onnx::TensorProto::BOOL: return "bool";
    case onnx::TensorProto::FLOAT16: return "float16";
    case onnx::TensorProto::DOUBLE: return "double";
    case onnx::TensorProto::UINT32: return "uint32";
    case onnx::TensorProto::UINT64: return "uint64";
    case onnx::TensorProto::COMPLEX64: return "complex64";
    case onnx::TensorProto::COMPLEX128: return "complex128";
    case onnx::TensorProto::BFLOAT16: return "bfloat16";
    case onnx::TensorProto::UNDEFINED: return "undefined";
    // ONNX 1.14 and later (IR 9 to 11); libonnx 1.12's enum stops at bfloat16
    case 17: return "float8e4m3fn";
    case 18: return "float8e4m3fnuz";
    case 19: return "float8e5m2";
    case 20: return "float8e5m2fnuz";
    case 21: return "uint4";
    case 22: return "int4";
    case 23: return "float4e2m1";
    case 24: return "float8e8m0";
    case 25: return "uint2";
    case 26: return "int2";
    default: return "dtype(" + std::to_string(dataType) + ")";
    }
}

std::size_t dataTypeSize(int dataType)
{
    switch (dataType) {
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT8: return 1;
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: return 2;
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32: return 4;
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::COMPLEX64: return 8;
    case onnx::TensorProto::COMPLEX128: return 16;
    default: return dataType >= 17 && dataType <= 26 ? 1 : 0; // the narrow types, one element a byte
    }
}

int dataTypeFileBits(int dataType)
{
    switch (dataType) {
    case 21: // uint4
    case 22: // int4
    case 23: return 4; // float4e2m1
    case 25: // uint2
    case 26: return 2; // int2
    default: return static_cast<int>(8 * dataTypeSize(dataType));
    }
}

std::optional<std::size_t> dataTypeFileBytes(int dataType, std::uint64_t count)
{
    const auto bits = static_cast<std::uint64_t>(dataTypeFileBits(dataType));
    if (bits == 0 || count > std::numeric_limits<std::uint64_t>::max() / bits)
        return std::nullopt;
    const std::uint64_t bytes = (count * bits + 7) / 8;
    if (bytes > std::numeric_limits<std::size_t>::max())
        return std::nullopt;
    return static_cast<std::size_t>(bytes);
}

std::string Dim::str() const
{
    if (isStatic())
        return std::to_string(extent());
    if (isSymbolic())
        return symbol();
    return "?";
}

bool Shape::isStatic() const
{
    if (!dims)
        return false;
    for (const Dim &d : *dims)
        if (!d.isStatic())
            return false;
    return true;
}

std::optional<std::vector<std::int64_t>> Shape::staticDims() const
{
    if (!isStatic())
        return std::nullopt;
    std::vector<std::int64_t> extents;
    for (const Dim &d : *dims)
        extents.push_back(d.extent());
    return extents;
}

std::string Shape::str() const
{
    if (!dims)
        return "unknown";
    std::string out = "[";
    for (std::size_t i = 0; i < dims->size(); ++i) {
        if (i)
            out += ',';
        out += (*dims)[i].str();
    }
    return out + "]";
}

int tensorElementType(const onnx::TypeProto &type)
{
    if (type.has_tensor_type())
        return type.tensor_type().elem_type();
    if (type.has_sparse_tensor_type())
        return type.sparse_tensor_type().elem_type();
    return 0;
}

static Shape shapeFrom(const onnx::TensorShapeProto &proto)
{
    Shape shape;
    shape.dims.emplace();
    shape.dims->reserve(static_cast<std::size_t>(proto.dim_size()));
    for (const auto &d : proto.dim()) {
        Dim dim;
        if (d.has_dim_value())
            dim.v = d.dim_value();
        else if (d.has_dim_param() && !d.dim_param().empty())
            dim.v = d.dim_param();
        shape.dims->push_back(std::move(dim));
    }
    return shape;
}

Shape tensorShape(const onnx::TypeProto &type)
{
    if (type.has_tensor_type() && type.tensor_type().has_shape())
        return shapeFrom(type.tensor_type().shape());
    if (type.has_sparse_tensor_type() && type.sparse_tensor_type().has_shape())
        return shapeFrom(type.sparse_tensor_type().shape());
    return {};
}

// "[1,3]" after the element type; nothing when even the rank is unknown ("float").
static std::string shapeSuffix(const Shape &shape)
{
    return shape.rankKnown() ? shape.str() : std::string();
}

std::string typeString(const onnx::TypeProto &type)
{
    switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
        return dataTypeName(type.tensor_type().elem_type()) + shapeSuffix(tensorShape(type));
    case onnx::TypeProto::kSparseTensorType:
        return "sparse(" + dataTypeName(type.sparse_tensor_type().elem_type()) + shapeSuffix(tensorShape(type)) + ")";
    case onnx::TypeProto::kSequenceType:
        return "seq(" + typeString(type.sequence_type().elem_type()) + ")";
    case onnx::TypeProto::kOptionalType:
        return "optional(" + typeString(type.optional_type().elem_type()) + ")";
    case onnx::TypeProto::kMapType:
        return "map(" + dataTypeName(type.map_type().key_type()) + "," + typeString(type.map_type().value_type()) + ")";
    default:
        return "unknown";
    }
}

std::optional<std::int64_t> elementCount(const std::vector<std::int64_t> &dims)
{
    std::int64_t count = 1;
    for (const std::int64_t d : dims) {
        if (d < 0)
            return std::nullopt;
        if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / d)
            return std::nullopt;
        count *= d;
    }
    return count;
}

} // namespace portolan::ir
