// The in-memory model: owns every graph, node and value (arenas indexed by stable ids).
#pragma once

#include "ir/Graph.h"
#include "ir/Node.h"
#include "ir/Value.h"

#include <onnx/onnx_pb.h>

#include <deque>
#include <optional>
#include <string>

namespace portolan::ir {

class Model {
public:
    Model();

    /// Everything of the ModelProto but the graph: ir_version, opset imports, producer, metadata,
    /// functions, training info and unknown fields.
    onnx::ModelProto header;
    /// Where the model was loaded from ("" for bytes); external data resolves against `baseDir`.
    std::string sourcePath;
    std::string baseDir;

    GraphId mainGraph() const { return GraphId(0); }
    Graph &graph(GraphId id) { return m_graphs[id.index]; }
    const Graph &graph(GraphId id) const { return m_graphs[id.index]; }
    Node &node(NodeId id) { return m_nodes[id.index]; }
    const Node &node(NodeId id) const { return m_nodes[id.index]; }
    Value &value(ValueId id) { return m_values[id.index]; }
    const Value &value(ValueId id) const { return m_values[id.index]; }

    std::size_t graphCount() const { return m_graphs.size(); }
    std::size_t nodeCapacity() const { return m_nodes.size(); }
    std::size_t valueCapacity() const { return m_values.size(); }
    /// Live nodes in all graphs, subgraphs included.
    std::size_t liveNodeCount() const;

    /// New empty graph; `parent` invalid for the main graph (which must be added first).
    GraphId addGraph(std::string name, GraphId parent, NodeId ownerNode, std::string ownerAttribute);
    /// New value defined in `graph`'s scope; the name must not be taken there.
    ValueId addValue(GraphId graph, std::string name);
    /// New node appended to `graph` (inputs/outputs wired with connect*()).
    NodeId addNode(GraphId graph, std::string name, std::string opType, std::string domain);
    /// Appends `value` as input `node.inputs.size()` and records the use.
    void appendInput(NodeId node, ValueId value);
    /// Appends `value` as an output of `node` and records it as its producer.
    void appendOutput(NodeId node, ValueId value);

    /// Resolves `name` in `graph`'s scope, then in its ancestors' (outer-scope capture).
    std::optional<ValueId> lookup(GraphId graph, const std::string &name) const;

    /// Opset version imported for `domain` ("" and "ai.onnx" are the same), or nullopt.
    std::optional<int> opsetVersion(const std::string &domain) const;

private:
    std::deque<Graph> m_graphs; // deques: references stay valid as the model grows
    std::deque<Node> m_nodes;
    std::deque<Value> m_values;
};

} // namespace portolan::ir
