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

support::Status saveModelFile(const Model &model, const std::string &path, Overwrite overwrite)
{
    std::error_code ec;
    if (overwrite == Overwrite::Refuse && std::filesystem::exists(path, ec))
        return support::makeError("file-exists", "refusing to overwrite an existing file (use --force)", path);
    const onnx::ModelProto proto = toModelProto(model);
    if (proto.ByteSizeLong() > static_cast<std::size_t>(INT_MAX))
        return support::makeError("too-large", "the model protobuf would be over 2 GiB, protobuf's limit: store weights as "
                                               "external data", path);

    // Write a uniquely named file beside the target, then move it into place in one step, so a reader
    // never sees half a model and an existing file is never clobbered unless asked for. The proto is
    // serialized straight into the file: a string of it would cost the model's size once more.
    std::string temporary = path + ".XXXXXX";
    const int fd = ::mkstemp(temporary.data());
    if (fd < 0)
        return support::makeError("cannot-write", std::string("cannot create a file beside it: ") + std::strerror(errno), path);
    bool written = false;
    {
        google::protobuf::io::FileOutputStream file(fd, 1 << 20);
        {
            google::protobuf::io::CodedOutputStream coded(&file);
            coded.SetSerializationDeterministic(true);
            written = proto.SerializeToCodedStream(&coded) && !coded.HadError();
        }
        written = file.Flush() && written;
    }
    const bool complete = written && ::fsync(fd) == 0;
    ::fchmod(fd, 0644); // mkstemp creates 0600; a saved model is an ordinary file
    ::close(fd);
    if (!complete) {
        ::unlink(temporary.c_str());
        return support::makeError("cannot-write", "writing failed (disk full?)", path);
    }
    int moved = 0;
    if (overwrite == Overwrite::Allow) {
        moved = ::rename(temporary.c_str(), path.c_str());
    } else {
        moved = ::link(temporary.c_str(), path.c_str()); // fails if the file appeared meanwhile
        ::unlink(temporary.c_str());
    }
    if (moved != 0) {
        const int err = errno;
        ::unlink(temporary.c_str());
        if (err == EEXIST)
            return support::makeError("file-exists", "refusing to overwrite an existing file (use --force)", path);
        return support::makeError("cannot-write", std::string("cannot move the file into place: ") + std::strerror(err), path);
    }
    return support::Status::ok();
}

} // namespace portolan::ir
