// TensorProto ⇄ Tensor, and the .pb value files of ONNX's test layout.
#include "runtime/TensorProtoIO.h"

#include "support/StagedFile.h"

#include "ir/ModelSaver.h"
#include "ir/TensorValidation.h"
#include "ir/Type.h"
#include "runtime/NarrowTypes.h"
#include "support/MappedFile.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace portolan::runtime {

using support::makeError;
using onnx::TensorProto;

namespace {

template <typename Out, typename Field>
void copyTyped(Tensor &t, const Field &field)
{
    Out *out = t.mutableData<Out>();
    for (int i = 0; i < field.size(); ++i)
        out[i] = static_cast<Out>(field.Get(i));
}

// Small integer types, bool and the 16-bit floats all travel in int32_data.
void copyFromInt32Field(Tensor &t, const TensorProto &p)
{
    switch (p.data_type()) {
    case TensorProto::INT32: copyTyped<std::int32_t>(t, p.int32_data()); break;
    case TensorProto::INT16: copyTyped<std::int16_t>(t, p.int32_data()); break;
    case TensorProto::INT8: copyTyped<std::int8_t>(t, p.int32_data()); break;
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: copyTyped<std::uint16_t>(t, p.int32_data()); break;
    case TensorProto::UINT8:
    case TensorProto::BOOL: copyTyped<std::uint8_t>(t, p.int32_data()); break;
    default:
        if (isNarrowType(p.data_type())) { // one file byte an entry: an element, or 2 or 4 packed ones
            std::vector<std::uint8_t> bytes(static_cast<std::size_t>(p.int32_data_size()));
            for (int i = 0; i < p.int32_data_size(); ++i)
                bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(p.int32_data(i));
            unpackNarrow(p.data_type(), bytes.data(), static_cast<std::size_t>(t.size()), t.mutableData<std::uint8_t>());
        }
        break;
    }
}

} // namespace

support::Expected<Tensor> tensorFromProto(const TensorProto &p, std::shared_ptr<const void> owner,
                                          std::span<const std::byte> external)
{
    if (auto checked = ir::validateTensorProto(p); !checked)
        return checked.takeError();
    const Shape shape(p.dims().begin(), p.dims().end());
    const int type = p.data_type();

    if (type == TensorProto::STRING) {
        Tensor t = Tensor::zeros(type, shape);
        auto &strings = t.mutableStrings();
        for (int i = 0; i < p.string_data_size(); ++i)
            strings[static_cast<std::size_t>(i)] = p.string_data(i);
        return t;
    }

    std::span<const std::byte> raw;
    if (p.data_location() == TensorProto::EXTERNAL) {
        const auto expected = ir::expectedByteSize(p);
        if (!expected || *expected != external.size())
            return makeError("external-unresolved", "tensor's external data was not resolved", {}, {}, p.name());
        raw = external;
    } else if (p.has_raw_data()) {
        raw = std::as_bytes(std::span(p.raw_data().data(), p.raw_data().size()));
    }
    if (!raw.empty() && ir::dataTypeFileBits(type) < 8) { // packed sub-byte elements: unpack
        Tensor t = Tensor::zeros(type, shape);
        unpackNarrow(type, reinterpret_cast<const std::uint8_t *>(raw.data()), static_cast<std::size_t>(t.size()),
                     t.mutableData<std::uint8_t>());
        return t;
    }
    if (!raw.empty() || p.has_raw_data() || p.data_location() == TensorProto::EXTERNAL) {
        const std::size_t align = std::max<std::size_t>(1, ir::dataTypeSize(type));
        const bool aligned = reinterpret_cast<std::uintptr_t>(raw.data()) % std::min<std::size_t>(align, 8) == 0;
        if (owner && aligned)
            return Tensor::view(type, shape, raw.data(), std::move(owner));
        Tensor t = Tensor::zeros(type, shape);
        if (!raw.empty())
            std::memcpy(t.mutableData<std::byte>(), raw.data(), raw.size());
        return t;
    }

    Tensor t = Tensor::zeros(type, shape);
    switch (type) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64: copyTyped<float>(t, p.float_data()); break;
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128: copyTyped<double>(t, p.double_data()); break;
    case TensorProto::INT64: copyTyped<std::int64_t>(t, p.int64_data()); break;
    case TensorProto::UINT64: copyTyped<std::uint64_t>(t, p.uint64_data()); break;
    case TensorProto::UINT32: copyTyped<std::uint32_t>(t, p.uint64_data()); break;
    default: copyFromInt32Field(t, p); break;
    }
    return t;
}

support::Expected<Tensor> tensorFromInitializer(const std::shared_ptr<const ir::Initializer> &init)
{
    return tensorFromProto(init->proto, init, init->isExternal() ? init->external : std::span<const std::byte>());
}

TensorProto tensorToProto(const Tensor &tensor, const std::string &name)
{
    TensorProto p;
    p.set_name(name);
    p.set_data_type(tensor.dataType());
    for (const auto d : tensor.shape())
        p.add_dims(d);
    if (tensor.dataType() == TensorProto::STRING) {
        for (const auto &s : tensor.strings())
            p.add_string_data(s);
    } else if (ir::dataTypeFileBits(tensor.dataType()) < 8) {
        std::string packed(narrowFileByteCount(tensor.dataType(), static_cast<std::size_t>(tensor.size())), '\0');
        packNarrow(tensor.dataType(), tensor.data<std::uint8_t>(), static_cast<std::size_t>(tensor.size()),
                   reinterpret_cast<std::uint8_t *>(packed.data()));
        p.set_raw_data(std::move(packed));
    } else {
        p.set_raw_data(reinterpret_cast<const char *>(tensor.rawData()), tensor.byteSize());
    }
    return p;
}

namespace {

support::Expected<std::string> readFile(const std::string &path)
{
    auto mapped = support::MappedFile::open(path);
    if (!mapped)
        return mapped.takeError();
    const auto bytes = (*mapped)->bytes();
    return std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

support::Expected<RuntimeValue> fromSequenceProto(const onnx::SequenceProto &seq, const std::string &path)
{
    if (seq.elem_type() != onnx::SequenceProto::TENSOR && seq.elem_type() != onnx::SequenceProto::UNDEFINED)
        return makeError("unsupported-value", "only sequences of tensors are supported", path);
    std::vector<Tensor> items;
    int elementType = 0;
    for (const auto &tp : seq.tensor_values()) {
        auto t = tensorFromProto(tp);
        if (!t)
            return t.takeError();
        elementType = t->dataType();
        items.push_back(std::move(*t));
    }
    return RuntimeValue::ofSequence(std::move(items), elementType);
}

} // namespace

support::Expected<RuntimeValue> readValueFile(const std::string &path, const onnx::TypeProto &type)
{
    auto bytes = readFile(path);
    if (!bytes)
        return bytes.takeError();
    if (type.has_sequence_type()) {
        onnx::SequenceProto seq;
        if (!seq.ParseFromString(*bytes))
            return makeError("bad-value-file", "not a SequenceProto", path);
        auto v = fromSequenceProto(seq, path);
        if (v && v->sequence.empty())
            v->elementType = ir::tensorElementType(type.sequence_type().elem_type());
        return v;
    }
    if (type.has_optional_type()) {
        onnx::OptionalProto opt;
        if (!opt.ParseFromString(*bytes))
            return makeError("bad-value-file", "not an OptionalProto", path);
        const auto &elem = type.optional_type().elem_type();
        if (opt.has_tensor_value()) {
            auto t = tensorFromProto(opt.tensor_value());
            if (!t)
                return t.takeError();
            RuntimeValue v = RuntimeValue::ofTensor(std::move(*t));
            v.isOptional = true;
            return v;
        }
        if (opt.has_sequence_value()) {
            auto v = fromSequenceProto(opt.sequence_value(), path);
            if (v)
                v->isOptional = true;
            return v;
        }
        const bool ofSequence = elem.has_sequence_type();
        const int elementType = ir::tensorElementType(ofSequence ? elem.sequence_type().elem_type() : elem);
        return RuntimeValue::emptyOptional(elementType, ofSequence);
    }
    onnx::TensorProto proto;
    if (!proto.ParseFromString(*bytes))
        return makeError("bad-value-file", "not a TensorProto", path);
    // ONNX 1.12's tools store 16-bit float tensors as their uint16 bit patterns: relabel them
    const int declared = ir::tensorElementType(type);
    if (proto.data_type() == onnx::TensorProto::UINT16 &&
        (declared == onnx::TensorProto::BFLOAT16 || declared == onnx::TensorProto::FLOAT16))
        proto.set_data_type(declared);
    auto t = tensorFromProto(proto);
    if (!t) {
        support::Error e = t.takeError();
        e.primary.model = path;
        return e;
    }
    return RuntimeValue::ofTensor(std::move(*t));
}

std::string valueFileName(const std::string &path, const onnx::TypeProto &type)
{
    auto bytes = readFile(path);
    if (!bytes)
        return {};
    if (type.has_sequence_type()) {
        onnx::SequenceProto seq;
        return seq.ParseFromString(*bytes) ? seq.name() : std::string();
    }
    if (type.has_optional_type()) {
        onnx::OptionalProto opt;
        return opt.ParseFromString(*bytes) ? opt.name() : std::string();
    }
    onnx::TensorProto t;
    return t.ParseFromString(*bytes) ? t.name() : std::string();
}

support::Status writeValueFile(const RuntimeValue &value, const std::string &name, const std::string &path,
                               bool overwrite)
{
    std::error_code ec;
    if (!overwrite && std::filesystem::exists(path, ec))
        return makeError("file-exists", "refusing to overwrite an existing file (use --force)", path);
    std::string bytes;
    auto sequenceProto = [&](const std::vector<Tensor> &items, int elementType) {
        onnx::SequenceProto seq;
        seq.set_name(name);
        seq.set_elem_type(onnx::SequenceProto::TENSOR);
        for (const Tensor &t : items)
            *seq.add_tensor_values() = tensorToProto(t, "");
        (void)elementType;
        return seq;
    };
    if (value.isOptional) {
        onnx::OptionalProto opt;
        opt.set_name(name);
        if (value.kind == RuntimeValue::Kind::Tensor) {
            opt.set_elem_type(onnx::OptionalProto::TENSOR);
            *opt.mutable_tensor_value() = tensorToProto(value.tensor, "");
        } else if (value.kind == RuntimeValue::Kind::Sequence) {
            opt.set_elem_type(onnx::OptionalProto::SEQUENCE);
            *opt.mutable_sequence_value() = sequenceProto(value.sequence, value.elementType);
        } else {
            opt.set_elem_type(value.optionalOfSequence ? onnx::OptionalProto::SEQUENCE : onnx::OptionalProto::TENSOR);
        }
        bytes = ir::serializeDeterministic(opt);
    } else if (value.kind == RuntimeValue::Kind::Sequence) {
        bytes = ir::serializeDeterministic(sequenceProto(value.sequence, value.elementType));
    } else {
        bytes = ir::serializeDeterministic(tensorToProto(value.tensor, name));
    }
    return support::writeFileWhole(path, bytes, overwrite ? support::Overwrite::Allow : support::Overwrite::Refuse);
}

} // namespace portolan::runtime
