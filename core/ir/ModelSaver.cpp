// Saving: each graph's extras first, then the IR's nodes, initializers and declarations in file order.
#include "ir/ModelSaver.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <filesystem>
#include <fstream>

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

onnx::GraphProto toGraphProto(const Model &model, GraphId graphId)
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
        onnx::TensorProto *t = out.add_initializer();
        *t = value.initializer->proto;
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

onnx::ModelProto toModelProto(const Model &model)
{
    onnx::ModelProto out = model.header;
    *out.mutable_graph() = toGraphProto(model, model.mainGraph());
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

support::Status saveModelFile(const Model &model, const std::string &path, Overwrite overwrite)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (overwrite == Overwrite::Refuse && fs::exists(path, ec))
        return support::makeError("file-exists", "refusing to overwrite an existing file (use --force)", path);
    const std::string bytes = serializeModel(model);
    const std::string temporary = path + ".tmp-portolan";
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        if (!file)
            return support::makeError("cannot-write", "cannot open for writing", path);
        file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!file)
            return support::makeError("cannot-write", "writing failed (disk full?)", path);
    }
    fs::rename(temporary, path, ec); // atomic: a reader never sees half a model
    if (ec)
        return support::makeError("cannot-write", "cannot move the written file into place: " + ec.message(), path);
    return support::Status::ok();
}

} // namespace portolan::ir
