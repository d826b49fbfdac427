// eliminate-common-subexpressions: merge nodes that compute the same thing from the same inputs.
//
//   Before: x → Relu → a;  x → Relu → b;  Add(a, b) → y       (two identical Relu)
//   After:  x → Relu → a;  Add(a, a) → y
//
// Two nodes are the same when op type, domain, output count, inputs (the very same values, in
// order) and attributes (each AttributeProto serialized deterministically, compared by name) are
// equal; the later one's outputs are replaced by the first's, and the later one goes. Nodes with
// subgraphs and nondeterministic ops (Random*, Multinomial, Bernoulli, Dropout) never merge.
// Constants merge too (duplicate-constant): initializers that are not graph inputs and Constant
// nodes of at most 1 KiB with the same element type, dims and bytes, the first (initializers
// before Constant nodes, each in file order) standing for the others. Only within one graph.
// Merging is repeated until nothing merges (the consumers of merged values may now be equal).
// A merge that would fuse two graph outputs (or make a graph output an initializer) is declined
// with the reason.
#include "passes/ConstantEvaluation.h"
#include "passes/Match.h"
#include "passes/Pass.h"

#include "ir/ModelSaver.h"
#include "ir/Topology.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace portolan::passes {

namespace {

constexpr std::size_t kMaxConstantBytes = 1024;

/// The identity of a node's computation, nullopt when it must not merge.
std::optional<std::string> nodeKey(const ir::Node &node)
{
    if (isOp(node, "Constant") || hasSubgraphs(node) || isNondeterministic(node) || node.outputs.empty())
        return std::nullopt;
    std::string key = node.domain + '\n' + node.opType + '\n' + std::to_string(node.outputs.size()) + '\n';
    for (const ir::ValueId in : node.inputs)
        key += (in.valid() ? std::to_string(in.index) : std::string("-")) + ',';
    std::vector<const ir::Attribute *> attributes;
    for (const ir::Attribute &a : node.attributes) {
        if (a.externalTensor)
            return std::nullopt;
        attributes.push_back(&a);
    }
    std::sort(attributes.begin(), attributes.end(), [](auto *a, auto *b) { return a->name() < b->name(); });
    for (const ir::Attribute *a : attributes) {
        const std::string bytes = ir::serializeDeterministic(a->proto);
        key += '\n' + std::to_string(bytes.size()) + ':' + bytes;
    }
    return key;
}

/// The identity of a small constant's contents, nullopt when too big or not comparable by bytes.
std::optional<std::string> constantKey(const ir::Model &model, ir::ValueId value)
{
    const auto tensor = constantValue(model, value);
    if (!tensor || tensor->byteSize() > kMaxConstantBytes || tensor->dataType() == onnx::TensorProto::STRING ||
        (tensor->size() > 0 && tensor->rawData() == nullptr))
        return std::nullopt;
    std::string key = std::to_string(tensor->dataType()) + runtime::shapeString(tensor->shape()) + '\n';
    key.append(reinterpret_cast<const char *>(tensor->rawData()), tensor->byteSize());
    return key;
}

class Merger {
public:
    explicit Merger(PassContext &cx) : m_cx(cx), m_model(cx.model) {}

    /// One sweep over `graph`; false when the rewrite budget is spent.
    bool sweep(ir::GraphId graph, std::size_t &merged);

private:
    bool mergeConstant(ir::ValueId duplicate, ir::ValueId first, std::size_t &merged);
    bool mergeNode(const ir::Node &duplicate, const ir::Node &first, std::size_t &merged);
    void decline(ir::NodeId node, const std::string &pattern, const std::string &reason)
    {
        if (m_reported.insert(node.index).second)
            m_cx.rewriter.notifyMatchFailure(node, pattern, reason);
    }

    PassContext &m_cx;
    ir::Model &m_model;
    std::unordered_set<std::uint32_t> m_reported;
};

bool Merger::mergeConstant(ir::ValueId duplicate, ir::ValueId first, std::size_t &merged)
{
    const ir::NodeId producer = m_model.value(duplicate).producer;
    std::string why;
    if (!m_cx.rewriter.canReplace(duplicate, first, &why)) {
        decline(producer, "duplicate-constant", "cannot merge '" + m_model.value(duplicate).name + "': " + why);
        return true;
    }
    if (!m_cx.rewriter.begin("duplicate-constant"))
        return false;
    const std::string detail = m_model.value(duplicate).name + " = " + m_model.value(first).name;
    m_cx.rewriter.replaceAllUsesWith(duplicate, first);
    eraseUnreadConstants(m_cx, {duplicate});
    m_cx.rewriter.count("merged-constants");
    m_cx.rewriter.commit(detail);
    ++merged;
    return true;
}

bool Merger::mergeNode(const ir::Node &duplicate, const ir::Node &first, std::size_t &merged)
{
    for (std::size_t k = 0; k < duplicate.outputs.size(); ++k) {
        const ir::ValueId out = duplicate.outputs[k];
        if (!out.valid())
            continue;
        std::string why;
        if (!first.outputs[k].valid())
            why = "output " + std::to_string(k) + " is omitted by the first node";
        else
            m_cx.rewriter.canReplace(out, first.outputs[k], &why);
        if (!why.empty()) {
            decline(duplicate.id, "duplicate-node", "cannot merge into '" + (first.name.empty() ? first.opType : first.name) + "': " + why);
            return true;
        }
    }
    if (!m_cx.rewriter.begin("duplicate-node"))
        return false;
    const std::string detail = duplicate.opType + " " + duplicate.name + " = " + first.name;
    for (std::size_t k = 0; k < duplicate.outputs.size(); ++k)
        if (duplicate.outputs[k].valid())
            m_cx.rewriter.replaceAllUsesWith(duplicate.outputs[k], first.outputs[k]);
    m_cx.rewriter.absorb(first.id, {duplicate.id});
    m_cx.rewriter.eraseNode(duplicate.id);
    m_cx.rewriter.count("merged-nodes");
    m_cx.rewriter.commit(detail);
    ++merged;
    return true;
}

bool Merger::sweep(ir::GraphId graph, std::size_t &merged)
{
    // Constants: initializers first, then Constant nodes.
    std::unordered_map<std::string, ir::ValueId> constants;
    std::vector<ir::ValueId> candidates;
    for (const ir::ValueId v : m_model.graph(graph).initializers)
        if (!m_model.value(v).uses.empty())
            candidates.push_back(v);
    for (const ir::NodeId n : liveNodes(m_model, graph))
        if (isOp(m_model.node(n), "Constant") && !m_model.node(n).outputs.empty())
            candidates.push_back(m_model.node(n).outputs[0]);
    for (const ir::ValueId v : candidates) {
        const auto key = constantKey(m_model, v);
        if (!key)
            continue;
        const auto [it, inserted] = constants.emplace(*key, v);
        if (!inserted && !mergeConstant(v, it->second, merged))
            return false;
    }
    // Nodes, in topological order so that merged inputs are seen by their consumers' keys.
    auto order = ir::topologicalOrder(m_model, graph);
    const std::vector<ir::NodeId> nodes = order ? std::move(*order) : liveNodes(m_model, graph);
    std::unordered_map<std::string, ir::NodeId> seen;
    for (const ir::NodeId n : nodes) {
        const ir::Node &node = m_model.node(n);
        if (!node.alive)
            continue;
        const auto key = nodeKey(node);
        if (!key)
            continue;
        const auto [it, inserted] = seen.emplace(*key, n);
        if (!inserted && !mergeNode(node, m_model.node(it->second), merged))
            return false;
    }
    return true;
}

} // namespace

support::Status EliminateCommonSubexpressions::run(PassContext &cx)
{
    Merger merger(cx);
    for (std::size_t merged = 1; merged > 0;) {
        merged = 0;
        for (const ir::GraphId g : liveGraphs(cx.model))
            if (!merger.sweep(g, merged))
                return support::Status::ok();
    }
    return support::Status::ok();
}

} // namespace portolan::passes
