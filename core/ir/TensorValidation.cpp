// Tensor data validation: a hostile file must not make us allocate what its bytes do not justify.
#include "ir/TensorValidation.h"

#include "ir/Type.h"

#include <limits>
#include <vector>

namespace portolan::ir {

using support::makeError;

static std::int64_t typedEntryCount(const onnx::TensorProto &t)
{
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::COMPLEX64: return t.float_data_size();
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX128: return t.double_data_size();
    case onnx::TensorProto::INT64: return t.int64_data_size();
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64: return t.uint64_data_size();
    case onnx::TensorProto::STRING: return t.string_data_size();
    default: return t.int32_data_size(); // int8/16/32, uint8/16, bool, float16, bfloat16, the narrow types
    }
}

static bool isComplex(int dataType)
{
    return dataType == onnx::TensorProto::COMPLEX64 || dataType == onnx::TensorProto::COMPLEX128;
}

std::optional<std::size_t> expectedByteSize(const onnx::TensorProto &tensor)
{
    const std::vector<std::int64_t> dims(tensor.dims().begin(), tensor.dims().end());
    const auto count = elementCount(dims);
    if (!count)
        return std::nullopt;
    return dataTypeFileBytes(tensor.data_type(), static_cast<std::uint64_t>(*count));
}

support::Expected<std::int64_t> validateTensorProto(const onnx::TensorProto &t)
{
    std::string dimsText;
    for (int i = 0; i < t.dims_size(); ++i) {
        dimsText += (i ? "," : "") + std::to_string(t.dims(i));
        if (t.dims(i) < 0)
            return makeError("negative-dim", "tensor dim " + std::to_string(i) + " is negative (" +
                                                 std::to_string(t.dims(i)) + ")", {}, {}, t.name());
    }
    const std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
    const auto count = elementCount(dims);
    if (!count)
        return makeError("dims-overflow", "tensor dims [" + dimsText + "] overflow a 64-bit element count",
                         {}, {}, t.name());
    if (t.data_type() == onnx::TensorProto::UNDEFINED)
        return makeError("undefined-dtype", "tensor has no data_type", {}, {}, t.name());
    const bool known = dataTypeSize(t.data_type()) > 0 || t.data_type() == onnx::TensorProto::STRING;
    if (!known)
        return makeError("unknown-dtype", "tensor has unsupported data_type " + std::to_string(t.data_type()),
                         {}, {}, t.name());

    if (t.data_location() == onnx::TensorProto::EXTERNAL)
        return *count; // checked against the mapped file by the loader

    const std::string shapeText = dataTypeName(t.data_type()) + "[" + dimsText + "]";
    if (t.has_raw_data()) {
        if (t.data_type() == onnx::TensorProto::STRING)
            return makeError("string-raw-data", "string tensor stores raw_data, which ONNX forbids", {}, {}, t.name());
        const auto expected = expectedByteSize(t);
        if (!expected || *expected != t.raw_data().size())
            return makeError("data-size-mismatch",
                             "tensor " + shapeText + " needs " + (expected ? std::to_string(*expected) : "too many") +
                                 " bytes but raw_data holds " + std::to_string(t.raw_data().size()),
                             {}, {}, t.name());
        return *count;
    }
    const std::int64_t entries = typedEntryCount(t);
    const int bits = dataTypeFileBits(t.data_type());
    if (bits > 0 && bits < 8) { // int32_data holds the sub-byte types packed, one byte (2 or 4 elements) an entry
        const auto wanted = static_cast<std::int64_t>(*dataTypeFileBytes(t.data_type(), static_cast<std::uint64_t>(*count)));
        if (entries != wanted)
            return makeError("data-size-mismatch",
                             "tensor " + shapeText + " declares " + std::to_string(*count) + " elements, " +
                                 std::to_string(wanted) + " packed int32_data entries, but holds " + std::to_string(entries),
                             {}, {}, t.name());
        return *count;
    }
    const std::int64_t wanted = isComplex(t.data_type()) ? *count * 2 : *count;
    if (entries != wanted)
        return makeError("data-size-mismatch",
                         "tensor " + shapeText + " declares " + std::to_string(*count) + " elements but holds " +
                             std::to_string(isComplex(t.data_type()) ? entries / 2 : entries),
                         {}, {}, t.name());
    return *count;
}

} // namespace portolan::ir
