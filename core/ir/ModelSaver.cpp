// Saving: each graph's extras first, then the IR's nodes, initializers and declarations in file order.
#include "ir/ModelSaver.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <sys/stat.h>
#include <unistd.h>

namespace portolan::ir {

static const std::string &nameOf(const Model &model, ValueId id)
{
    static const std::string omitted;
    return id.valid() ? model.value(id).name : omitted;
}

static void writeInfo(const Value &value, onnx::ValueInfoProto *out)
{
    *out = value.info;
    if (out->name() != value.name)
        out->set_name(value.name);
}

namespace {

constexpr std::size_t kShapesOnlyPayloadBytes = 64 * 1024;

bool isWeightType(int dataType)
{
    switch (dataType) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
        return true;
    default:
        return false;
    }
}

std::size_t payloadBytes(const onnx::TensorProto &t)
{
    return t.raw_data().size() + 4 * (static_cast<std::size_t>(t.float_data_size()) + static_cast<std::size_t>(t.int32_data_size())) +
           8 * (static_cast<std::size_t>(t.double_data_size()) + static_cast<std::size_t>(t.int64_data_size()) +
                static_cast<std::size_t>(t.uint64_data_size()));
}

void writeInitializer(const onnx::TensorProto &in, Payloads payloads, onnx::TensorProto *out)
{
    if (payloads == Payloads::All || in.data_location() == onnx::TensorProto::EXTERNAL || !isWeightType(in.data_type()) ||
        payloadBytes(in) <= kShapesOnlyPayloadBytes) {
        *out = in;
        return;
    }
    out->set_name(in.name());
    out->set_data_type(in.data_type());
    *out->mutable_dims() = in.dims();
    if (in.has_doc_string())
        out->set_doc_string(in.doc_string());
}

} // namespace

bool payloadLeftOut(const onnx::TensorProto &t)
{
    if (t.data_location() == onnx::TensorProto::EXTERNAL || t.dims_size() == 0 || !t.string_data().empty() || payloadBytes(t) > 0)
        return false;
    for (const std::int64_t d : t.dims())
        if (d == 0)
            return false;
    return true;
}

static void writeNode(const Model &model, const Node &node, onnx::NodeProto *out)
{
    *out = node.extras;
    for (const ValueId in : node.inputs)
        out->add_input(nameOf(model, in));
    for (const ValueId o : node.outputs)
        out->add_output(nameOf(model, o));
    // Set only what changed, so an unchanged node serializes exactly as it was read.
    if (out->name() != node.name)
        out->set_name(node.name);
    if (out->op_type() != node.opType)
        out->set_op_type(node.opType);
    if (out->domain() != node.domain)
        out->set_domain(node.domain);
    for (const Attribute &attribute : node.attributes) {
        onnx::AttributeProto *a = out->add_attribute();
        *a = attribute.proto;
        for (std::size_t k = 0; k < attribute.subgraphs.size(); ++k) {
            if (k == 0 && attribute.firstFromG)
                *a->mutable_g() = toGraphProto(model, attribute.subgraphs[k]);
            else
                *a->add_graphs() = toGraphProto(model, attribute.subgraphs[k]);
        }
    }
}

onnx::NodeProto toNodeProto(const Model &model, NodeId node)
{
    onnx::NodeProto out;
    writeNode(model, model.node(node), &out);
    return out;
}

onnx::GraphProto toGraphProto(const Model &model, GraphId graphId, Payloads payloads)
{
    const Graph &graph = model.graph(graphId);
    onnx::GraphProto out = graph.extras;
    if (out.name() != graph.name)
        out.set_name(graph.name);
    for (const NodeId n : graph.nodes) {
        const Node &node = model.node(n);
        if (node.alive)
            writeNode(model, node, out.add_node());
    }
    for (const ValueId v : graph.initializers) {
        const Value &value = model.value(v);
        if (!value.initializer)
            continue; // erased by a rewrite still open (a pass asking for shapes mid-way)
        onnx::TensorProto *t = out.add_initializer();
        writeInitializer(value.initializer->proto, payloads, t);
        if (t->name() != value.name)
            t->set_name(value.name);
    }
    auto writeList = [&](DeclarationList list, const std::vector<ValueId> &values, auto add) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            const auto verbatim = graph.verbatimDeclarations.find({list, i});
            if (verbatim != graph.verbatimDeclarations.end())
                *add() = verbatim->second;
            else
                writeInfo(model.value(values[i]), add());
        }
    };
    writeList(DeclarationList::Input, graph.inputs, [&] { return out.add_input(); });
    writeList(DeclarationList::Output, graph.outputs, [&] { return out.add_output(); });
    writeList(DeclarationList::ValueInfo, graph.valueInfos, [&] { return out.add_value_info(); });
    return out;
}

onnx::ModelProto toModelProto(const Model &model, Payloads payloads)
{
    onnx::ModelProto out = model.header;
    *out.mutable_graph() = toGraphProto(model, model.mainGraph(), payloads);
    return out;
}

std::string serializeDeterministic(const google::protobuf::MessageLite &message)
{
    std::string bytes;
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
    coded.Trim();
    return bytes;
}

std::string serializeModel(const Model &model)
{
    return serializeDeterministic(toModelProto(model));
}

namespace {

/// Where an external tensor's reference points (location, offset, length…), whatever its name.
std::string referenceKey(const onnx::TensorProto &tensor)
{
    std::string key;
    for (const auto &entry : tensor.external_data())
        key += entry.key() + '\0' + entry.value() + '\0';
    return key;
}

/// The bytes behind each external reference of `model`, keyed by where the reference points.
std::map<std::string, std::span<const std::byte>> externalBytes(const Model &model)
{
    std::map<std::string, std::span<const std::byte>> out;
    for (std::size_t i = 0; i < model.valueCapacity(); ++i) {
        const Value &value = model.value(ValueId(static_cast<std::uint32_t>(i)));
        if (value.initializer && value.initializer->isExternal())
            out.emplace(referenceKey(value.initializer->proto), value.initializer->external);
    }
    for (std::size_t i = 0; i < model.nodeCapacity(); ++i) // a Constant's value may be external too
        for (const Attribute &a : model.node(NodeId(static_cast<std::uint32_t>(i))).attributes)
            if (a.externalTensor && a.externalTensor->isExternal())
                out.emplace(referenceKey(a.externalTensor->proto), a.externalTensor->external);
    return out;
}

/// Every EXTERNAL tensor of `graph` (and its subgraphs), for rewriting its reference.
void collectExternal(onnx::GraphProto &graph, std::vector<onnx::TensorProto *> &out)
{
    for (onnx::TensorProto &t : *graph.mutable_initializer())
        if (t.data_location() == onnx::TensorProto::EXTERNAL)
            out.push_back(&t);
    for (onnx::NodeProto &node : *graph.mutable_node())
        for (onnx::AttributeProto &a : *node.mutable_attribute()) {
            if (a.has_t() && a.t().data_location() == onnx::TensorProto::EXTERNAL)
                out.push_back(a.mutable_t());
            if (a.has_g())
                collectExternal(*a.mutable_g(), out);
            for (onnx::GraphProto &g : *a.mutable_graphs())
                collectExternal(g, out);
        }
}

/// Writes the external tensors' bytes into `data` (64-byte aligned) and points each at it.
support::Status relocateExternalData(const Model &model, onnx::ModelProto &proto, const std::string &location, int data)
{
    std::vector<onnx::TensorProto *> tensors;
    collectExternal(*proto.mutable_graph(), tensors);
    const auto bytesOf = externalBytes(model);
    std::uint64_t offset = 0;
    static const char zeros[64] = {};
    for (onnx::TensorProto *t : tensors) {
        const auto found = bytesOf.find(referenceKey(*t));
        if (found == bytesOf.end())
            return support::makeError("cannot-write", "the bytes of external tensor '" + t->name() + "' are not loaded", model.sourcePath);
        const std::size_t pad = (64 - offset % 64) % 64;
        if (!support::writeAll(data, zeros, pad) || !support::writeAll(data, found->second.data(), found->second.size()))
            return support::makeError("cannot-write", "writing the external data failed (disk full?)", location);
        offset += pad;
        t->clear_external_data();
        for (const auto &[key, value] : {std::pair<std::string, std::string>{"location", location},
                                         {"offset", std::to_string(offset)},
                                         {"length", std::to_string(found->second.size())}}) {
            onnx::StringStringEntryProto *entry = t->add_external_data();
            entry->set_key(key);
            entry->set_value(value);
        }
        offset += found->second.size();
    }
    return support::Status::ok();
}

} // namespace

std::string externalDataFileFor(const Model &model, const std::string &path)
{
    return externalBytes(model).empty() ? std::string() : path + ".data";
}

support::Status saveModelFile(const Model &model, const std::string &path, Overwrite overwrite)
{
    std::error_code ec;
    if (overwrite == Overwrite::Refuse && std::filesystem::exists(path, ec))
        return support::makeError("file-exists", "refusing to overwrite an existing file (use --force)", path);
    onnx::ModelProto proto = toModelProto(model);

    // Weights kept outside the source model go into a data file of the saved model's own, so it
    // opens on its own and does not change when the source's data file does.
    std::optional<support::StagedFile> data;
    const std::string dataPath = externalDataFileFor(model, path);
    if (!dataPath.empty()) {
        if (overwrite == Overwrite::Refuse && std::filesystem::exists(dataPath, ec))
            return support::makeError("file-exists", "refusing to overwrite an existing file (use --force)", dataPath);
        auto staged = support::StagedFile::create(dataPath);
        if (!staged)
            return staged.takeError();
        data.emplace(std::move(*staged));
        if (auto st = relocateExternalData(model, proto, std::filesystem::path(dataPath).filename().string(), data->fd()); !st)
            return st;
    }
    if (proto.ByteSizeLong() > static_cast<std::size_t>(INT_MAX))
        return support::makeError("too-large", "the model protobuf would be over 2 GiB, protobuf's limit: store weights as "
                                               "external data", path);

    // The proto is serialized straight into the file: a string of it would cost the model's size once more.
    auto staged = support::StagedFile::create(path);
    if (!staged)
        return staged.takeError();
    bool written = false;
    {
        google::protobuf::io::FileOutputStream file(staged->fd(), 1 << 20);
        {
            google::protobuf::io::CodedOutputStream coded(&file);
            coded.SetSerializationDeterministic(true);
            written = proto.SerializeToCodedStream(&coded) && !coded.HadError();
        }
        written = file.Flush() && written;
    }
    if (!written)
        return support::makeError("cannot-write", "writing failed (disk full?)", path);
    // The data first: a model in place always finds its data.
    if (data)
        if (auto st = data->commit(true, overwrite); !st)
            return st;
    if (auto st = staged->commit(written, overwrite); !st) {
        if (data && overwrite == Overwrite::Refuse)
            ::unlink(dataPath.c_str()); // it did not exist before this save
        return st;
    }
    return support::Status::ok();
}

} // namespace portolan::ir
