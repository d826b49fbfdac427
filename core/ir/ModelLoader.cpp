// ModelProto → IR. Parses with protobuf limits, then builds each graph in passes: initializers and
// inputs, node outputs (so unsorted files load), node inputs and subgraphs, value_info, outputs.
// Structural faults (duplicate definitions, dangling reads, cycles, bad tensors) are load errors.
#include "ir/ModelLoader.h"

#include "ir/ExternalData.h"
#include "ir/ModelBytesDiagnosis.h"
#include "ir/TensorValidation.h"
#include "ir/Topology.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <algorithm>
#include <climits>
#include <filesystem>

namespace portolan::ir {

using support::Error;
using support::Expected;
using support::makeError;

namespace {

// Protobuf nests three messages per subgraph level (Graph → Node → Attribute): this admits
// ~100 levels of If/Loop nesting at parse time; our own depth limit then gives the clear message.
constexpr int kProtoRecursionLimit = 320;

class GraphBuilder {
public:
    GraphBuilder(Model &model, const std::string &modelName, const LoadOptions &options,
                 support::Diagnostics &warnings)
        : m_model(model), m_modelName(modelName), m_options(options), m_warnings(warnings),
          m_external(model.baseDir)
    {
    }

    support::Status build(onnx::GraphProto &proto, GraphId graphId);

private:
    Error fail(Error error, const Graph &graph, const std::string &node = {}) const
    {
        error.primary.model = m_modelName;
        error.primary.graph = graphPath(graph);
        if (!node.empty())
            error.primary.node = node;
        return error;
    }
    std::string graphPath(const Graph &graph) const;
    support::Status addInitializers(onnx::GraphProto &proto, Graph &graph);
    support::Status addInputs(onnx::GraphProto &proto, Graph &graph);
    support::Status addNodes(onnx::GraphProto &proto, GraphId graphId);
    support::Status wireNodeInputs(onnx::GraphProto &proto, GraphId graphId, std::size_t firstNode);
    support::Status addValueInfos(onnx::GraphProto &proto, Graph &graph);
    support::Status addOutputs(onnx::GraphProto &proto, Graph &graph);
    support::Status loadAttributeTensors(Attribute &attribute, const Graph &graph, const std::string &nodeName);
    void declare(Value &value, onnx::ValueInfoProto &&info, Graph &graph, DeclarationList list, std::size_t position);

    Model &m_model;
    const std::string &m_modelName;
    const LoadOptions &m_options;
    support::Diagnostics &m_warnings;
    ExternalDataResolver m_external;
    struct Declaration {
        GraphId graph;
        DeclarationList list;
        std::size_t position;
    };
    std::unordered_map<ValueId, Declaration> m_firstDeclaration;
};

std::string GraphBuilder::graphPath(const Graph &graph) const
{
    if (graph.isMain())
        return graph.name.empty() ? "main" : graph.name;
    const Graph &parent = m_model.graph(graph.parent);
    const Node &owner = m_model.node(graph.ownerNode);
    return graphPath(parent) + "/" + (owner.name.empty() ? owner.opType : owner.name) + "." + graph.ownerAttribute;
}

// The first declaration of a value becomes its effective one (a later typed one replaces an untyped
// first); any entry that then differs from the effective declaration is kept verbatim for saving.
void GraphBuilder::declare(Value &value, onnx::ValueInfoProto &&info, Graph &graph, DeclarationList list,
                           std::size_t position)
{
    auto first = m_firstDeclaration.find(value.id);
    if (first == m_firstDeclaration.end()) {
        m_firstDeclaration.emplace(value.id, Declaration{graph.id, list, position});
        value.hasDeclaredType = info.has_type();
        value.info = std::move(info);
        return;
    }
    if (info.SerializeAsString() == value.info.SerializeAsString())
        return;
    if (!value.hasDeclaredType && info.has_type()) {
        const Declaration &earlier = first->second; // keep that untyped entry as it was read
        m_model.graph(earlier.graph).verbatimDeclarations[{earlier.list, earlier.position}] = value.info;
        first->second = {graph.id, list, position};
        value.hasDeclaredType = true;
        value.info = std::move(info);
        return;
    }
    if (value.hasDeclaredType && info.has_type() &&
        info.type().SerializeAsString() != value.info.type().SerializeAsString()) {
        support::Diagnostic d;
        d.severity = support::Severity::Warning;
        d.code = "conflicting-declarations";
        d.message = "declared twice with different types; using " + typeString(value.info.type()) + ", not " +
                    typeString(info.type());
        d.model = m_modelName;
        d.graph = graphPath(graph);
        d.value = value.name;
        m_warnings.push_back(std::move(d));
    }
    graph.verbatimDeclarations[{list, position}] = std::move(info);
}

support::Status GraphBuilder::addInitializers(onnx::GraphProto &proto, Graph &graph)
{
    for (auto &tensor : *proto.mutable_initializer()) {
        if (tensor.name().empty())
            return fail(makeError("unnamed-initializer", "an initializer has no name"), graph);
        if (graph.scope.contains(tensor.name()))
            return fail(makeError("duplicate-definition", "initializer is defined twice", {}, {}, tensor.name()),
                        graph);
        if (auto checked = validateTensorProto(tensor); !checked)
            return fail(checked.takeError(), graph);

        auto init = std::make_shared<Initializer>();
        init->proto.Swap(&tensor);
        if (init->proto.data_location() == onnx::TensorProto::EXTERNAL && m_options.loadExternalData) {
            if (auto st = m_external.resolve(*init); !st) {
                Error e = st.error();
                e.primary.value = init->proto.name();
                return fail(std::move(e), graph);
            }
        }
        const ValueId id = m_model.addValue(graph.id, init->proto.name());
        Value &v = m_model.value(id);
        v.info.mutable_type()->mutable_tensor_type()->set_elem_type(init->proto.data_type());
        v.initializer = std::move(init);
        graph.initializers.push_back(id);
    }
    // Sparse initializers stay in the graph's extras (saved as read); their names are defined all the
    // same, and their values and indices are checked like any tensor.
    for (const auto &sparse : proto.sparse_initializer()) {
        const std::string &name = sparse.values().name();
        if (name.empty())
            return fail(makeError("unnamed-initializer", "a sparse initializer has no name"), graph);
        if (graph.scope.contains(name))
            return fail(makeError("duplicate-definition", "sparse initializer is defined twice", {}, {}, name), graph);
        for (const onnx::TensorProto *part : {&sparse.values(), &sparse.indices()})
            if (auto checked = validateTensorProto(*part); !checked) {
                Error e = checked.takeError();
                e.primary.value = name;
                e.primary.message = "sparse initializer: " + e.primary.message;
                return fail(std::move(e), graph);
            }
        Value &v = m_model.value(m_model.addValue(graph.id, name));
        auto *type = v.info.mutable_type()->mutable_sparse_tensor_type();
        type->set_elem_type(sparse.values().data_type());
        for (const auto d : sparse.dims())
            type->mutable_shape()->add_dim()->set_dim_value(d);
    }
    return support::Status::ok();
}

support::Status GraphBuilder::addInputs(onnx::GraphProto &proto, Graph &graph)
{
    for (auto &info : *proto.mutable_input()) {
        const std::string name = info.name();
        if (name.empty())
            return fail(makeError("unnamed-input", "a graph input has no name"), graph);
        ValueId id;
        if (auto it = graph.scope.find(name); it != graph.scope.end()) {
            // IR < 4 lists initializers among the inputs too; anything else is a duplicate.
            const bool isInitializer = m_model.value(it->second).isInitializer();
            for (const ValueId existing : graph.inputs)
                if (existing == it->second)
                    return fail(makeError("duplicate-definition", "graph input is listed twice", {}, {}, name), graph);
            if (!isInitializer)
                return fail(makeError("duplicate-definition", "graph input is defined twice", {}, {}, name), graph);
            id = it->second;
        } else {
            id = m_model.addValue(graph.id, name);
        }
        declare(m_model.value(id), std::move(info), graph, DeclarationList::Input, graph.inputs.size());
        graph.inputs.push_back(id);
    }
    return support::Status::ok();
}

support::Status GraphBuilder::addNodes(onnx::GraphProto &proto, GraphId graphId)
{
    Graph &graph = m_model.graph(graphId);
    for (int i = 0; i < proto.node_size(); ++i) {
        onnx::NodeProto &np = *proto.mutable_node(i);
        const NodeId id = m_model.addNode(graphId, np.name(), np.op_type(), np.domain());
        if (np.op_type().empty())
            return fail(makeError("missing-op-type", "node has no op_type"), graph, m_model.node(id).displayName(i));
        for (const std::string &out : np.output()) {
            if (out.empty()) {
                m_model.appendOutput(id, ValueId());
                continue;
            }
            if (auto it = graph.scope.find(out); it != graph.scope.end()) {
                const Value &prior = m_model.value(it->second);
                std::string what = "an input or initializer";
                if (prior.producer.valid()) {
                    const Node &other = m_model.node(prior.producer);
                    what = "node '" + (other.name.empty() ? other.opType : other.name) + "'";
                }
                return fail(makeError("duplicate-definition",
                                      "output '" + out + "' is already defined by " + what, {}, {}, out),
                            graph, m_model.node(id).displayName(i));
            }
            m_model.appendOutput(id, m_model.addValue(graphId, out));
        }
    }
    return support::Status::ok();
}

// Checks an attribute's tensors; a `t` stored as external data is resolved like an initializer.
support::Status GraphBuilder::loadAttributeTensors(Attribute &attribute, const Graph &graph, const std::string &nodeName)
{
    auto check = [&](const onnx::TensorProto &t) -> support::Status {
        if (auto checked = validateTensorProto(t); !checked) {
            Error e = checked.takeError();
            e.primary.message = "attribute '" + attribute.name() + "': " + e.primary.message;
            return fail(std::move(e), graph, nodeName);
        }
        return support::Status::ok();
    };
    const onnx::AttributeProto &proto = attribute.proto;
    if (proto.has_t()) {
        if (auto st = check(proto.t()); !st)
            return st;
        if (proto.t().data_location() == onnx::TensorProto::EXTERNAL && m_options.loadExternalData) {
            auto init = std::make_shared<Initializer>();
            init->proto = proto.t();
            if (auto st = m_external.resolve(*init); !st) {
                Error e = st.error();
                e.primary.message = "attribute '" + attribute.name() + "': " + e.primary.message;
                return fail(std::move(e), graph, nodeName);
            }
            attribute.externalTensor = std::move(init);
        }
    }
    for (const auto &t : proto.tensors()) {
        if (t.data_location() == onnx::TensorProto::EXTERNAL)
            return fail(makeError("external-in-attribute", "attribute '" + attribute.name() +
                                                               "' keeps a tensor list in external data, which is not supported"),
                        graph, nodeName);
        if (auto st = check(t); !st)
            return st;
    }
    return support::Status::ok();
}

support::Status GraphBuilder::wireNodeInputs(onnx::GraphProto &proto, GraphId graphId, std::size_t firstNode)
{
    for (int i = 0; i < proto.node_size(); ++i) {
        onnx::NodeProto &np = *proto.mutable_node(i);
        const NodeId id = m_model.graph(graphId).nodes[firstNode + static_cast<std::size_t>(i)];
        const std::string display = m_model.node(id).displayName(static_cast<std::size_t>(i));

        for (const std::string &in : np.input()) {
            if (in.empty()) {
                m_model.appendInput(id, ValueId());
                continue;
            }
            const auto found = m_model.lookup(graphId, in);
            if (!found)
                return fail(makeError("missing-producer",
                                      "input '" + in + "' is not produced by any node, graph input or initializer",
                                      {}, {}, in),
                            m_model.graph(graphId), display);
            m_model.appendInput(id, *found);
        }

        // Attributes: subgraphs become IR graphs (loaded now, when every outer name is known).
        for (auto &ap : *np.mutable_attribute()) {
            Attribute attribute;
            std::vector<std::unique_ptr<onnx::GraphProto>> bodies;
            if (ap.has_g()) {
                bodies.emplace_back(ap.release_g());
                attribute.firstFromG = true;
            }
            for (auto &g : *ap.mutable_graphs())
                bodies.push_back(std::make_unique<onnx::GraphProto>(std::move(g)));
            ap.clear_graphs();
            for (auto &body : bodies) {
                const int depth = m_model.graph(graphId).depth + 1;
                if (depth > m_options.maxSubgraphDepth)
                    return fail(makeError("nesting-too-deep", "subgraphs nest deeper than the limit of " +
                                                                  std::to_string(m_options.maxSubgraphDepth) + " levels"),
                                m_model.graph(graphId), display);
                const GraphId sub = m_model.addGraph(body->name(), graphId, id, ap.name());
                attribute.subgraphs.push_back(sub);
                if (auto st = build(*body, sub); !st)
                    return st;
            }
            attribute.proto.Swap(&ap);
            if (auto st = loadAttributeTensors(attribute, m_model.graph(graphId), display); !st)
                return st;
            m_model.node(id).attributes.push_back(std::move(attribute));
        }
        np.clear_input();
        np.clear_output();
        np.clear_attribute(); // name, op_type and domain stay: the saver rewrites them only when changed
        m_model.node(id).extras.Swap(&np);
    }
    return support::Status::ok();
}

support::Status GraphBuilder::addValueInfos(onnx::GraphProto &proto, Graph &graph)
{
    for (auto &info : *proto.mutable_value_info()) {
        const std::string name = info.name();
        ValueId id;
        if (auto found = m_model.lookup(graph.id, name)) {
            id = *found;
        } else {
            id = m_model.addValue(graph.id, name); // annotates nothing: kept so saving loses nothing
            m_model.value(id).declarationOnly = true;
        }
        declare(m_model.value(id), std::move(info), graph, DeclarationList::ValueInfo, graph.valueInfos.size());
        graph.valueInfos.push_back(id);
    }
    return support::Status::ok();
}

support::Status GraphBuilder::addOutputs(onnx::GraphProto &proto, Graph &graph)
{
    for (auto &info : *proto.mutable_output()) {
        const std::string name = info.name();
        const auto found = m_model.lookup(graph.id, name);
        if (!found || m_model.value(*found).declarationOnly)
            return fail(makeError("missing-producer", "graph output is not produced by any node, input or initializer",
                                  {}, {}, name),
                        graph);
        declare(m_model.value(*found), std::move(info), graph, DeclarationList::Output, graph.outputs.size());
        graph.outputs.push_back(*found);
    }
    return support::Status::ok();
}

support::Status GraphBuilder::build(onnx::GraphProto &proto, GraphId graphId)
{
    Graph &graph = m_model.graph(graphId);
    const std::size_t firstNode = graph.nodes.size();
    graph.scope.reserve(static_cast<std::size_t>(proto.initializer_size() + proto.input_size() + proto.node_size() * 2));
    graph.nodes.reserve(static_cast<std::size_t>(proto.node_size()));
    if (auto st = addInitializers(proto, graph); !st)
        return st;
    if (auto st = addInputs(proto, graph); !st)
        return st;
    if (auto st = addNodes(proto, graphId); !st)
        return st;
    if (auto st = wireNodeInputs(proto, graphId, firstNode); !st)
        return st;
    Graph &g = m_model.graph(graphId); // subgraph loading may have grown the arena; deque keeps refs valid
    if (auto st = addValueInfos(proto, g); !st)
        return st;
    if (auto st = addOutputs(proto, g); !st)
        return st;
    if (auto order = topologicalOrder(m_model, graphId); !order)
        return fail(order.takeError(), g);

    proto.clear_node();
    proto.clear_input();
    proto.clear_output();
    proto.clear_initializer();
    proto.clear_value_info();
    g.extras.Swap(&proto);
    return support::Status::ok();
}

Error notAModel(const std::string &displayName, std::string why)
{
    return makeError("not-a-model", std::move(why), displayName);
}

} // namespace

Expected<LoadedModel> loadModelProto(onnx::ModelProto &&proto, const std::string &displayName,
                                     const std::string &baseDir, const LoadOptions &options)
{
    if (!proto.has_graph())
        return notAModel(displayName, "not an ONNX model: the protobuf has no graph");
    if (proto.ir_version() <= 0)
        return notAModel(displayName, "not an ONNX model: ir_version is missing");

    LoadedModel loaded;
    loaded.model = std::make_unique<Model>();
    Model &model = *loaded.model;
    model.sourcePath = displayName;
    model.baseDir = baseDir;

    std::unique_ptr<onnx::GraphProto> graph(proto.release_graph());
    model.header = std::move(proto);
    const GraphId main = model.addGraph(graph->name(), GraphId(), NodeId(), {});
    GraphBuilder builder(model, displayName, options, loaded.warnings);
    if (auto st = builder.build(*graph, main); !st)
        return st.error();
    return loaded;
}

namespace {

support::Error unparsable(std::span<const std::byte> bytes, const std::string &displayName, const LoadOptions &options)
{
    return notAModel(displayName, "cannot parse as an ONNX model: " +
                                      diagnoseModelBytes(bytes, std::min(options.maxSubgraphDepth, kProtoRecursionLimit / 3 - 1)));
}

bool parseModel(google::protobuf::io::CodedInputStream &stream, onnx::ModelProto &proto)
{
    stream.SetRecursionLimit(kProtoRecursionLimit);
    return proto.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

std::optional<support::Error> unloadableSize(std::size_t size, const std::string &displayName)
{
    if (size == 0)
        return notAModel(displayName, "the file is empty");
    if (size > static_cast<std::size_t>(INT_MAX))
        return notAModel(displayName, "the model protobuf is over 2 GiB, protobuf's limit: store weights as external data");
    return std::nullopt;
}

} // namespace

Expected<LoadedModel> loadModelBytes(std::span<const std::byte> bytes, const std::string &displayName,
                                     const std::string &baseDir, const LoadOptions &options)
{
    if (auto refused = unloadableSize(bytes.size(), displayName))
        return std::move(*refused);
    onnx::ModelProto proto;
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t *>(bytes.data()),
                                                  static_cast<int>(bytes.size()));
    if (!parseModel(stream, proto))
        return unparsable(bytes, displayName, options);
    return loadModelProto(std::move(proto), displayName, baseDir, options);
}

Expected<LoadedModel> loadModelFile(const std::string &path, const LoadOptions &options)
{
    // Read through a buffer, not a mapping: a mapped file stays resident while its proto is built,
    // and a model with embedded weights would cost twice its size at the peak.
    auto file = support::ReadOnlyFile::open(path);
    if (!file)
        return file.takeError();
    if (auto refused = unloadableSize(file->size(), path))
        return std::move(*refused);
    onnx::ModelProto proto;
    bool parsed = false;
    {
        google::protobuf::io::FileInputStream input(file->descriptor(), 1 << 20);
        google::protobuf::io::CodedInputStream stream(&input);
        parsed = parseModel(stream, proto);
    }
    if (!parsed) {
        auto mapped = support::MappedFile::open(path);
        if (!mapped)
            return mapped.takeError();
        return unparsable((*mapped)->bytes(), path, options);
    }
    const std::string baseDir = std::filesystem::path(path).parent_path().string();
    return loadModelProto(std::move(proto), path, baseDir.empty() ? "." : baseDir, options);
}

} // namespace portolan::ir
