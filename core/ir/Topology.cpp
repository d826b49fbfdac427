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
    std::vector<NodeId> live;
    for (const NodeId n : graph.nodes)
        if (model.node(n).alive) {
            position.emplace(n, live.size());
            live.push_back(n);
        }

    // predecessors within this graph, explicit inputs and subgraph captures alike
    std::vector<std::vector<std::size_t>> successors(live.size());
    std::vector<std::vector<std::size_t>> predecessors(live.size());
    std::vector<std::size_t> pending(live.size(), 0);
    for (std::size_t i = 0; i < live.size(); ++i) {
        std::vector<ValueId> reads = model.node(live[i]).inputs;
        if (!model.node(live[i]).attributes.empty()) {
            const auto captured = capturedValues(model, live[i]);
            reads.insert(reads.end(), captured.begin(), captured.end());
        }
        for (const ValueId in : reads) {
            if (!in.valid())
                continue;
            const NodeId producer = model.value(in).producer;
            auto it = producer.valid() ? position.find(producer) : position.end();
            if (it == position.end())
                continue;
            successors[it->second].push_back(i);
            predecessors[i].push_back(it->second);
            ++pending[i];
        }
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
        for (const std::size_t s : successors[i])
            if (--pending[s] == 0)
                ready.push(s);
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
        for (const std::size_t p : predecessors[at])
            if (pending[p] != 0) {
                at = p;
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
