// Value and Initializer helpers.
#include "ir/Value.h"

namespace portolan::ir {

std::span<const std::byte> Initializer::rawBytes() const
{
    if (isExternal())
        return external;
    const std::string &raw = proto.raw_data();
    return {reinterpret_cast<const std::byte *>(raw.data()), raw.size()};
}

std::size_t Initializer::byteSize() const
{
    if (isExternal())
        return external.size();
    if (proto.has_raw_data())
        return proto.raw_data().size();
    const std::size_t elem = dataTypeSize(proto.data_type());
    const std::size_t typedCount = static_cast<std::size_t>(
        proto.float_data_size() + proto.int32_data_size() + proto.int64_data_size() +
        proto.double_data_size() + proto.uint64_data_size());
    if (proto.data_type() == onnx::TensorProto::STRING) {
        std::size_t bytes = 0;
        for (const auto &s : proto.string_data())
            bytes += s.size();
        return bytes;
    }
    // complex types store two typed entries per element
    const bool complex = proto.data_type() == onnx::TensorProto::COMPLEX64 ||
                         proto.data_type() == onnx::TensorProto::COMPLEX128;
    return complex ? typedCount * elem / 2 : typedCount * elem;
}

int Value::elementType() const
{
    if (initializer)
        return initializer->proto.data_type();
    return tensorElementType(type());
}

Shape Value::shape() const
{
    if (initializer) {
        Shape s;
        s.dims.emplace();
        for (const auto d : initializer->proto.dims())
            s.dims->push_back(Dim{d});
        return s;
    }
    return tensorShape(type());
}

} // namespace portolan::ir
