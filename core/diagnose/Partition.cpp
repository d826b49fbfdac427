#include "diagnose/Partition.h"

#include "ir/Topology.h"
#include "ir/Type.h"
#include "passes/FusionSupport.h"

#include <numeric>
#include <unordered_map>

namespace portolan::diagnose {

namespace {

/// The main-graph node that holds `node` (itself, or the If/Loop/Scan its graph belongs to).
ir::NodeId mainOwner(const ir::Model &model, ir::NodeId node)
{
    for (ir::GraphId g = model.node(node).graph; !model.graph(g).isMain(); g = model.graph(g).parent)
        node = model.graph(g).ownerNode;
    return node;
}

struct DisjointSets {
    std::vector<std::size_t> parent;
    explicit DisjointSets(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
    std::size_t find(std::size_t x)
    {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    }
    void unite(std::size_t a, std::size_t b) { parent[find(a)] = find(b); }
};

} // namespace

Partitioning partitionModel(const ir::Model &model, const std::set<ir::NodeId> &unsupported)
{
    Partitioning result;
    auto order = ir::topologicalOrder(model, model.mainGraph());
    if (!order)
        return result;
    std::set<ir::NodeId> offTarget;
    for (const ir::NodeId n : unsupported)
        offTarget.insert(mainOwner(model, n));

    // A node's stage counts the switches between target and host on the longest path to it. Two
    // neighbours of the same side and stage can share a partition; a path leaving the side and
    // coming back raises the stage, which is what would make a merged partition feed itself.
    std::vector<ir::NodeId> nodes;
    std::unordered_map<std::uint32_t, std::size_t> slot;
    for (const ir::NodeId n : *order)
        if (!model.node(n).isConstant()) {
            slot[n.index] = nodes.size();
            nodes.push_back(n);
        }
    std::vector<int> stage(nodes.size(), 0);
    std::vector<bool> host(nodes.size());
    DisjointSets sets(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const ir::Node &node = model.node(nodes[i]);
        host[i] = offTarget.contains(nodes[i]);
        std::vector<std::size_t> producers;
        std::vector<ir::ValueId> reads(node.inputs.begin(), node.inputs.end());
        for (const ir::ValueId v : ir::capturedValues(model, nodes[i]))
            reads.push_back(v);
        for (const ir::ValueId v : reads) {
            if (!v.valid() || !model.value(v).producer.valid())
                continue;
            const auto it = slot.find(model.value(v).producer.index);
            if (it == slot.end())
                continue;
            producers.push_back(it->second);
            stage[i] = std::max(stage[i], stage[it->second] + (host[it->second] != host[i] ? 1 : 0));
        }
        for (const std::size_t p : producers)
            if (host[p] == host[i] && stage[p] == stage[i])
                sets.unite(p, i);
    }
    std::set<std::size_t> targetRoots, hostRoots;
    for (std::size_t i = 0; i < nodes.size(); ++i)
        (host[i] ? hostRoots : targetRoots).insert(sets.find(i));
    result.targetPartitions = targetRoots.size();
    result.fallbackPartitions = hostRoots.size();
    if (hostRoots.empty())
        return result;

    // Tensors produced on one side and read on the other, each counted once.
    passes::ShapeOracle shapes(model);
    for (std::size_t i = 0; i < nodes.size(); ++i)
        for (const ir::ValueId v : model.node(nodes[i]).outputs) {
            if (!v.valid())
                continue;
            bool crosses = false;
            for (const ir::Use &use : model.value(v).uses) {
                const auto it = slot.find(mainOwner(model, use.node).index);
                crosses = crosses || (it != slot.end() && host[it->second] != host[i]);
            }
            if (!crosses)
                continue;
            ++result.crossingTensors;
            const auto dims = shapes.staticDims(v);
            const auto count = dims ? ir::elementCount(*dims) : std::nullopt;
            const std::size_t size = ir::dataTypeSize(shapes.elementType(v));
            if (count && size)
                result.crossingBytes += static_cast<std::uint64_t>(*count) * size;
            else
                ++result.crossingUnsized;
        }
    return result;
}

} // namespace portolan::diagnose
