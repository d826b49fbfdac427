// The one place graph mutation happens. A pass matches first, then opens a rewrite with begin(),
// edits, and commit()s; every edit lands in the rewrite record, and every created node's origins in
// the provenance. Near-misses are reported with notifyMatchFailure() so "why was this not fused?"
// has an answer.
#pragma once

#include "ir/Model.h"
#include "passes/RewriteRecord.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace portolan::runtime {
class Tensor;
}

namespace portolan::passes {

class Rewriter {
public:
    Rewriter(ir::Model &model, Provenance &provenance, std::string passName);

    ir::Model &model() { return m_model; }
    const ir::Model &model() const { return m_model; }
    const std::string &passName() const { return m_pass; }

    /// Opens a rewrite of `pattern`; the edits until commit() form one record. False when the
    /// rewrite budget is spent (the pass manager bisects a numeric failure to one rewrite this
    /// way): the pattern must then leave the graph alone.
    [[nodiscard]] bool begin(std::string pattern);
    /// Allows only the first `budget` rewrites of this pass (unlimited by default).
    void setRewriteBudget(std::size_t budget) { m_budget = budget; }
    /// Closes the open rewrite; it is recorded when it changed anything.
    void commit(std::string detail = {});

    /// A pattern that looked at `node` and declined, and why.
    void notifyMatchFailure(ir::NodeId node, std::string pattern, std::string reason);
    /// Adds `amount` to the statistic `name`.
    void count(const std::string &name, std::int64_t amount = 1);

    // ---- edits (inside begin/commit) ----

    /// A new value in `graph`'s scope named after `nameHint` (made unique), with `type` when given.
    ir::ValueId createValue(ir::GraphId graph, const std::string &nameHint, const onnx::TypeProto *type = nullptr);
    /// A new initializer holding `tensor`.
    ir::ValueId createInitializer(ir::GraphId graph, const std::string &nameHint, const runtime::Tensor &tensor);
    /// A new node, placed in file order just before `before` (appended when invalid). Its origins are
    /// the origins of `standsFor`, or of every node this rewrite has removed (so far and later) when
    /// `standsFor` is empty.
    ir::NodeId createNode(ir::GraphId graph, const std::string &opType, const std::string &domain,
                          const std::vector<ir::ValueId> &inputs, const std::vector<ir::ValueId> &outputs,
                          std::vector<onnx::AttributeProto> attributes, const std::string &nameHint,
                          ir::NodeId before = {}, std::vector<ir::NodeId> standsFor = {});

    /// Whether every use of `from` can read `to` instead; `why` says what stands in the way.
    bool canReplace(ir::ValueId from, ir::ValueId to, std::string *why = nullptr) const;
    /// Every use of `from` reads `to` instead. When `from` is a graph output, `to` takes its place
    /// and its name (so the model's interface keeps its names). Requires canReplace().
    void replaceAllUsesWith(ir::ValueId from, ir::ValueId to);
    /// Input `index` of `node` reads `value` (invalid: the optional input is omitted).
    void setInput(ir::NodeId node, std::size_t index, ir::ValueId value);
    /// Sets (adds or replaces) an attribute of `node`.
    void setAttribute(ir::NodeId node, onnx::AttributeProto attribute);
    /// Removes an attribute of `node` (no-op when absent).
    void removeAttribute(ir::NodeId node, const std::string &name);
    /// `node` now also stands for the origins of `absorbed` (an in-place fusion).
    void absorb(ir::NodeId node, const std::vector<ir::NodeId> &absorbed);
    /// Sets the declared type of `value` (adding a value_info entry for intermediates); no-op when equal.
    void setValueType(ir::ValueId value, const onnx::TypeProto &type);
    /// Removes `node` (and its subgraphs). Its outputs must be unused and not graph outputs.
    void eraseNode(ir::NodeId node);
    /// Removes an initializer nothing reads (also from the graph inputs when listed there).
    void eraseInitializer(ir::ValueId value);

    // ---- after the pass ----

    /// Drops removed nodes from the graph lists and puts every touched graph back in topological
    /// order. Called by the pass manager after each pass.
    void finish();

    bool changed() const { return m_editCount > 0; }
    std::vector<RewriteRecord> takeRecords() { return std::move(m_records); }
    std::vector<MatchFailure> takeMatchFailures() { return std::move(m_failures); }
    Statistics takeStatistics() { return std::move(m_statistics); }
    /// Pattern of the rewrite now open or last committed (for error reports).
    const std::string &currentPattern() const { return m_current.pattern; }

private:
    void edited();
    void dropUse(ir::ValueId value, ir::NodeId node, std::uint32_t inputIndex);
    void eraseNodeRecursive(ir::NodeId node);
    std::string uniqueValueName(ir::GraphId graph, const std::string &hint) const;
    std::string uniqueNodeName(const std::string &hint);

    ir::Model &m_model;
    Provenance &m_provenance;
    std::string m_pass;
    bool m_open = false;
    RewriteRecord m_current;
    std::vector<ir::NodeId> m_pendingDerivations; // created nodes whose origins are "all removed"
    std::vector<RewriteRecord> m_records;
    std::vector<MatchFailure> m_failures;
    Statistics m_statistics;
    std::size_t m_editCount = 0;
    std::size_t m_budget = static_cast<std::size_t>(-1);
    std::size_t m_begun = 0;
    std::size_t m_editCountAtBegin = 0;
    void countNodeNames();
    void reclaimName(ir::NodeId node, const std::string &wanted);
    // Names handed out are never ones any node of the model has had (a removed "Conv_3" must not come
    // back as another layer's name), counted on first use; live ones are counted apart.
    std::unordered_set<std::string> m_takenNodeNames;
    std::unordered_map<std::string, std::size_t> m_liveNodeNames;
    bool m_nodeNamesCounted = false;
    // created nodes whose name hint was taken, often by the very node the rewrite replaces (a node
    // recreated at another precision): at commit they take the hint when only a node this rewrite
    // removed held it
    std::vector<std::pair<ir::NodeId, std::string>> m_suffixedNames;
    std::unordered_set<std::uint32_t> m_touchedGraphs;
    std::unordered_set<ir::ValueId> m_removedValues; // erased initializers and outputs of erased nodes
    std::unordered_map<ir::NodeId, std::vector<ir::NodeId>> m_placements; // node → created nodes to put before it
};

} // namespace portolan::passes
