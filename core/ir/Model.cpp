// Model arenas and the primitive edits the loader builds a model with.
#include "ir/Model.h"

#include <cassert>

namespace portolan::ir {

Model::Model() = default;

std::size_t Model::liveNodeCount() const
{
    std::size_t count = 0;
    for (const Node &n : m_nodes)
        count += n.alive ? 1 : 0;
    return count;
}

GraphId Model::addGraph(std::string name, GraphId parent, NodeId ownerNode, std::string ownerAttribute)
{
    assert(parent.valid() || m_graphs.empty());
    Graph &g = m_graphs.emplace_back();
    g.id = GraphId(static_cast<std::uint32_t>(m_graphs.size() - 1));
    g.name = std::move(name);
    g.parent = parent;
    g.ownerNode = ownerNode;
    g.ownerAttribute = std::move(ownerAttribute);
    g.depth = parent.valid() ? graph(parent).depth + 1 : 0;
    return g.id;
}

ValueId Model::addValue(GraphId graphId, std::string name)
{
    Value &v = m_values.emplace_back();
    v.id = ValueId(static_cast<std::uint32_t>(m_values.size() - 1));
    v.graph = graphId;
    v.name = std::move(name);
    v.info.set_name(v.name);
    [[maybe_unused]] const bool inserted = graph(graphId).scope.emplace(v.name, v.id).second;
    assert(inserted);
    return v.id;
}

NodeId Model::addNode(GraphId graphId, std::string name, std::string opType, std::string domain)
{
    Node &n = m_nodes.emplace_back();
    n.id = NodeId(static_cast<std::uint32_t>(m_nodes.size() - 1));
    n.graph = graphId;
    n.name = std::move(name);
    n.opType = std::move(opType);
    n.domain = std::move(domain);
    graph(graphId).nodes.push_back(n.id);
    return n.id;
}

void Model::appendInput(NodeId nodeId, ValueId valueId)
{
    Node &n = node(nodeId);
    if (valueId.valid())
        value(valueId).uses.push_back({nodeId, static_cast<std::uint32_t>(n.inputs.size())});
    n.inputs.push_back(valueId);
}

void Model::appendOutput(NodeId nodeId, ValueId valueId)
{
    Node &n = node(nodeId);
    if (valueId.valid()) {
        Value &v = value(valueId);
        v.producer = nodeId;
        v.producerOutput = static_cast<std::uint32_t>(n.outputs.size());
    }
    n.outputs.push_back(valueId);
}

std::optional<ValueId> Model::lookup(GraphId graphId, const std::string &name) const
{
    for (GraphId g = graphId; g.valid(); g = graph(g).parent) {
        const auto &scope = graph(g).scope;
        if (auto it = scope.find(name); it != scope.end())
            return it->second;
    }
    return std::nullopt;
}

std::optional<int> Model::opsetVersion(const std::string &domain) const
{
    const bool standard = domain.empty() || domain == "ai.onnx";
    for (const auto &opset : header.opset_import()) {
        const bool match = standard ? (opset.domain().empty() || opset.domain() == "ai.onnx")
                                    : opset.domain() == domain;
        if (match)
            return static_cast<int>(opset.version());
    }
    return std::nullopt;
}

} // namespace portolan::ir
