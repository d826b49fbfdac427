// What a pass did, as data: one record per rewrite, the near-misses it declined, and where every
// node of the current graph came from (provenance), so the GUI, the diff and the report can say
// "node F replaced nodes A, B, C — pass fuse-layer-norm" without recomputing anything.
#pragma once

#include "ir/Ids.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace portolan::passes {

/// One applied rewrite: a pattern that matched and the graph change it made.
struct RewriteRecord {
    std::string pass;                   ///< "fuse-layer-norm"
    std::string pattern;                ///< "layer-norm-div-form"
    std::vector<ir::NodeId> removedNodes;
    std::vector<ir::NodeId> createdNodes;
    std::vector<ir::ValueId> removedValues; ///< values that lost their producer or all their uses
    std::vector<ir::ValueId> createdValues;
    std::string detail;                 ///< optional sentence ("epsilon 1e-05, axis -1")
};

/// A pattern that looked at a node and declined, with why ("epsilon is not a constant").
struct MatchFailure {
    std::string pass;
    std::string pattern;
    ir::NodeId node;
    std::string reason;
};

/// For every node created by a pass, the nodes of the *original* model it stands for. Nodes of the
/// original model stand for themselves; chains of rewrites compose (a node made from fused nodes
/// inherits their origins).
class Provenance {
public:
    Provenance() = default;
    /// Nodes and values with an index below these counts are the original model's.
    Provenance(std::uint32_t originalNodeCount, std::uint32_t originalValueCount)
        : m_originalNodeCount(originalNodeCount), m_originalValueCount(originalValueCount) {}

    bool isOriginal(ir::NodeId node) const { return node.index < m_originalNodeCount; }
    /// Original nodes `node` stands for, sorted; {node} for an original node.
    std::vector<ir::NodeId> originsOf(ir::NodeId node) const;
    /// Records that `created` stands for the union of the origins of `sources`.
    void derive(ir::NodeId created, const std::vector<ir::NodeId> &sources);
    std::uint32_t originalNodeCount() const { return m_originalNodeCount; }

    /// The original value `value` computes (itself when original), or invalid when it has none: a
    /// value that replaced another through replaceAllUsesWith carries that one's meaning, which is
    /// how a comparison aligns a fused node's output with the original chain's last output.
    ir::ValueId originalValueOf(ir::ValueId value) const;
    /// Records that `replacement` now computes what `replaced` did.
    void equate(ir::ValueId replacement, ir::ValueId replaced);

private:
    std::uint32_t m_originalNodeCount = 0;
    std::uint32_t m_originalValueCount = 0;
    std::unordered_map<ir::NodeId, std::vector<ir::NodeId>> m_origins; // created nodes only
    std::unordered_map<ir::ValueId, ir::ValueId> m_valueOrigins;        // created values only
};

/// Named counters a pass reports ("fused=3", "skipped-non-constant-scale=1"), in name order.
using Statistics = std::map<std::string, std::int64_t>;

} // namespace portolan::passes
