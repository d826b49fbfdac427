// Kahn's algorithm over the live nodes of one graph; a cycle is reported by walking predecessors.
#include "ir/Topology.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace portolan::ir {

// True when `value` is defined in `sub` or in a graph nested inside it.
static bool definedWithin(const Model &model, ValueId value, GraphId sub)
{
    for (GraphId g = model.value(value).graph; g.valid(); g = model.graph(g).parent)
        if (g == sub)
            return true;
    return false;
}

static void collectCaptures(const Model &model, GraphId sub, std::unordered_set<ValueId> &seen,
                            std::vector<ValueId> &out)
{
    for (const NodeId n : model.graph(sub).nodes) {
        const Node &node = model.node(n);
        if (!node.alive)
            continue;
        for (const ValueId in : node.inputs) {
            if (!in.valid())
                continue;
            if (!definedWithin(model, in, sub) && seen.insert(in).second)
                out.push_back(in);
        }
        for (const Attribute &a : node.attributes)
            for (const GraphId nested : a.subgraphs)
                collectCaptures(model, nested, seen, out);
    }
    for (const ValueId outVal : model.graph(sub).outputs)
        if (!definedWithin(model, outVal, sub) && seen.insert(outVal).second)
            out.push_back(outVal);
}

std::vector<ValueId> capturedValues(const Model &model, NodeId nodeId)
{
    std::unordered_set<ValueId> seen;
    std::vector<ValueId> out;
    for (const Attribute &a : model.node(nodeId).attributes)
        for (const GraphId sub : a.subgraphs)
            collectCaptures(model, sub, seen, out);
    return out;
}

support::Expected<std::vector<NodeId>> topologicalOrder(const Model &model, GraphId graphId)
{
    const Graph &graph = model.graph(graphId);
    std::unordered_map<NodeId, std::size_t> position;
    position.reserve(graph.nodes.size());
    std::vector<NodeId> live;
    live.reserve(graph.nodes.size());
    for (const NodeId n : graph.nodes)
        if (model.node(n).alive) {
            position.emplace(n, live.size());
            live.push_back(n);
        }

    // Edges producer → consumer within this graph (explicit inputs and subgraph captures), as flat
    // arrays: one allocation per graph rather than per node.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges; // (producer position, consumer position)
    for (std::size_t i = 0; i < live.size(); ++i) {
        const Node &node = model.node(live[i]);
        auto addEdge = [&](ValueId in) {
            if (!in.valid())
                return;
            const NodeId producer = model.value(in).producer;
            if (!producer.valid() || model.node(producer).graph != graphId || !model.node(producer).alive)
                return;
            edges.emplace_back(static_cast<std::uint32_t>(position.at(producer)), static_cast<std::uint32_t>(i));
        };
        for (const ValueId in : node.inputs)
            addEdge(in);
        if (!node.attributes.empty())
            for (const ValueId in : capturedValues(model, live[i]))
                addEdge(in);
    }
    std::vector<std::uint32_t> pending(live.size(), 0);
    std::vector<std::uint32_t> firstSuccessor(live.size() + 1, 0);
    for (const auto &[from, to] : edges) {
        ++firstSuccessor[from + 1];
        ++pending[to];
    }
    for (std::size_t i = 0; i < live.size(); ++i)
        firstSuccessor[i + 1] += firstSuccessor[i];
    std::vector<std::uint32_t> successors(edges.size());
    {
        std::vector<std::uint32_t> fill(firstSuccessor.begin(), firstSuccessor.end() - 1);
        for (const auto &[from, to] : edges)
            successors[fill[from]++] = to;
    }

    // min-heap on file position keeps the order stable
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < live.size(); ++i)
        if (pending[i] == 0)
            ready.push(i);
    std::vector<NodeId> order;
    order.reserve(live.size());
    while (!ready.empty()) {
        const std::size_t i = ready.top();
        ready.pop();
        order.push_back(live[i]);
        for (std::uint32_t k = firstSuccessor[i]; k < firstSuccessor[i + 1]; ++k)
            if (--pending[successors[k]] == 0)
                ready.push(successors[k]);
    }
    if (order.size() == live.size())
        return order;

    // Walk back through unfinished predecessors until a node repeats: that loop is a cycle.
    std::size_t at = 0;
    while (pending[at] == 0)
        ++at;
    std::vector<std::size_t> path;
    std::unordered_map<std::size_t, std::size_t> onPath;
    while (!onPath.contains(at)) {
        onPath.emplace(at, path.size());
        path.push_back(at);
        for (const auto &[from, to] : edges) // only on failure: a linear scan is fine
            if (to == at && pending[from] != 0) {
                at = from;
                break;
            }
    }
    std::string names;
    for (std::size_t k = onPath[at]; k < path.size(); ++k) {
        const Node &n = model.node(live[path[k]]);
        names += (names.empty() ? "" : " <- ") + n.displayName(path[k]);
    }
    auto error = support::makeError("cycle", "the graph has a cycle: " + names);
    error.primary.node = model.node(live[at]).displayName(at);
    return error;
}

} // namespace portolan::ir
