// canonicalize: put shape plumbing into its simplest form, and attributes and constant inputs into
// one canonical form.
//
// shape-computation — Shape/Size of a statically shaped value, and what is computed from it alone:
//   Before: x: float[2,3,4] → Shape → Gather(2) → Unsqueeze → Concat(-1, ·) → s → Reshape(y, s)
//   After:  s = [-1, 4] (initializer) → Reshape(y, s)
//   (the fold of fold-constants, limited to values derived from Shape/Size: see ConstantEvaluation.h)
//
// transpose-pair — Transpose(Transpose(x, p1), p2) with p1∘p2 = identity, i.e. p1[p2[i]] = i:
//   Before: x → Transpose(p1) → Transpose(p2) → y        After: x → y
// transpose-compose — otherwise, one Transpose with perm q[i] = p1[p2[i]] (the inner one must have no
//   other consumer):
//   Before: x → Transpose([0,2,1,3]) → Transpose([0,1,3,2]) → y     After: x → Transpose([0,2,3,1]) → y
//
// shape-chain — a chain of Squeeze/Unsqueeze/Flatten/Reshape (each intermediate read only by the
//   next) whose last output has a static declared shape S: one Reshape(x, S), or nothing when S is
//   x's static shape:
//   Before: x: [1,3,1,4] → Squeeze([0,2]) → Unsqueeze([0]) → Flatten(1) → y: [1,12]
//   After:  x → Reshape([1,12]) → y
//   (declined when S has a 0 dim: Reshape's 0 means "copy" below opset 14's allowzero)
//
// reshape-chain — Reshape(Reshape(x, s1), s2) with s2 a constant (shapes need not be static): the
//   inner Reshape is skipped, Reshape(x, s2), since a reshape depends only on the element count; a 0
//   in s2 (copy the intermediate's dim) is replaced by that dim, which must then be static.
//
// slices-to-split — Slices tiling one axis of a tensor become one Split (SlicesToSplit.cpp).
//
// Canonical forms (CanonicalForms.cpp) — one spelling where the model's opset allows several; the
// op's version never changes, so attribute-versus-input forms across opsets (Squeeze axes, Clip
// bounds…) are convert-opset's business:
// drop-default-attributes — an attribute equal to its schema default at the model's opset (ONNX
//   domains only):
//   Before: Gemm <alpha = 1.0, beta = 1.0, transA = 0, transB = 1> (a, b, c)
//   After:  Gemm <transB = 1> (a, b, c)
// non-negative-axes — a negative `axis` (Concat, Gather, Softmax, Flatten, Split, ArgMax, TopK,
//   LayerNormalization, (De)QuantizeLinear…) or negative entries of an `axes` list (Reduce*, Squeeze,
//   Unsqueeze; the attribute or a constant input 1) counted from the end, once the rank is known
//   (Unsqueeze's axes index its output: rank + number of axes):
//   Before: x: [2,3,4] → Softmax <axis = -1>, ReduceSum(x, [-1, 0])
//   After:  x → Softmax <axis = 2>, ReduceSum(x, [2, 0])
//   (declined, with the reason, when the rank is unknown)
// explicit-transpose-perm — a Transpose without perm reverses the dims; written out at known rank:
//   Before: x: [2,3,4] → Transpose → y        After: x → Transpose <perm = [2, 1, 0]> → y
// drop-infinite-clip-bounds — Clip's constant min = -inf / max = +inf inputs (opset ≥ 11) bound
//   nothing and are omitted:
//   Before: Clip(x, -inf, 6)        After: Clip(x, "", 6)
// (all-zero Pads are eliminate-identity's pad-zero.)
//
// The patterns repeat until none applies.
#include "passes/CanonicalForms.h"
#include "passes/ConstantEvaluation.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"
#include "passes/Pass.h"
#include "passes/SlicesToSplit.h"

#include "ir/Topology.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace portolan::passes {

namespace {

using Dims = std::vector<std::int64_t>;

constexpr std::size_t kMaxShapeBytes = 1 << 20;

bool isShapeOp(const ir::Node &node)
{
    return isOp(node, "Squeeze") || isOp(node, "Unsqueeze") || isOp(node, "Flatten") || isOp(node, "Reshape");
}

/// A Transpose's perm; the reversal when absent and the rank is known.
std::optional<Dims> permOf(const ir::Model &model, const ir::Node &transpose)
{
    Dims perm = attrInts(transpose, "perm");
    if (!perm.empty())
        return perm;
    const ir::Shape shape = model.value(transpose.inputs[0]).shape();
    const auto dims = staticShape(model, transpose.inputs[0]);
    if (!dims && !shape.rankKnown())
        return std::nullopt;
    perm.resize(dims ? dims->size() : shape.dims->size());
    std::iota(perm.rbegin(), perm.rend(), std::int64_t(0));
    return perm;
}

class Canonicalizer {
public:
    explicit Canonicalizer(CanonicalizeRounds &rounds)
        : m_rounds(rounds), m_cx(rounds.context()), m_model(m_cx.model)
    {
    }

    std::size_t transposePairs(ir::GraphId graph);
    std::size_t shapeChains(ir::GraphId graph);
    std::size_t reshapeChains(ir::GraphId graph);

private:
    void decline(ir::NodeId node, const std::string &pattern, const std::string &reason)
    {
        m_rounds.decline(node, pattern, reason);
    }
    bool begin(const std::string &pattern) { return m_rounds.begin(pattern); }

    CanonicalizeRounds &m_rounds;
    PassContext &m_cx;
    ir::Model &m_model;
};

std::size_t Canonicalizer::transposePairs(ir::GraphId graph)
{
    std::size_t rewrites = 0;
    for (const ir::NodeId n : liveNodes(m_model, graph)) {
        const ir::Node &outer = m_model.node(n);
        if (!isOp(outer, "Transpose") || outer.inputs.empty())
            continue;
        const ir::Node *inner = producerOf(m_model, outer.inputs[0], "Transpose");
        if (inner == nullptr || inner->inputs.empty())
            continue;
        const auto p1 = permOf(m_model, *inner);
        const auto p2 = permOf(m_model, outer);
        if (!p1 || !p2 || p1->size() != p2->size()) {
            decline(n, "transpose-pair", p1 && p2 ? "the perms have different ranks" : "a perm is implicit and the rank is unknown");
            continue;
        }
        Dims composed(p2->size());
        bool identity = true, valid = true;
        for (std::size_t i = 0; i < p2->size() && valid; ++i) {
            const std::int64_t j = (*p2)[i];
            valid = j >= 0 && j < static_cast<std::int64_t>(p1->size()); // else the checker's business
            composed[i] = valid ? (*p1)[static_cast<std::size_t>(j)] : 0;
            identity = identity && composed[i] == static_cast<std::int64_t>(i);
        }
        if (!valid)
            continue;
        const ir::ValueId x = inner->inputs[0];
        const ir::NodeId innerId = inner->id;
        std::string why;
        if (identity) {
            if (!m_cx.rewriter.canReplace(outer.outputs[0], x, &why)) {
                decline(n, "transpose-pair", "cannot bypass: " + why);
                continue;
            }
            if (!begin("transpose-pair"))
                return rewrites;
            m_cx.rewriter.replaceAllUsesWith(outer.outputs[0], x);
            m_cx.rewriter.eraseNode(n);
            const ir::ValueId mid = m_model.node(innerId).outputs[0];
            if (m_model.value(mid).uses.empty() && !isGraphOutput(m_model, mid))
                m_cx.rewriter.eraseNode(innerId);
            m_cx.rewriter.commit("perms cancel");
        } else {
            if (!hasSingleUse(m_model, outer.inputs[0])) {
                decline(n, "transpose-compose", "the first Transpose's output has other uses");
                continue;
            }
            if (!begin("transpose-compose"))
                return rewrites;
            m_cx.rewriter.setInput(n, 0, x);
            m_cx.rewriter.setAttribute(n, makeAttribute("perm", composed));
            m_cx.rewriter.absorb(n, {innerId});
            m_cx.rewriter.eraseNode(innerId);
            m_cx.rewriter.commit("perm " + runtime::shapeString(composed));
        }
        ++rewrites;
    }
    return rewrites;
}

std::size_t Canonicalizer::shapeChains(ir::GraphId graph)
{
    if (standardOpset(m_model) < 5) // Reshape takes its shape as an attribute there
        return 0;
    std::size_t rewrites = 0;
    auto order = ir::topologicalOrder(m_model, graph);
    const std::vector<ir::NodeId> nodes = order ? std::move(*order) : liveNodes(m_model, graph);
    std::set<ir::NodeId> consumed;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        const ir::Node &last = m_model.node(*it);
        if (!last.alive || !isShapeOp(last) || consumed.contains(*it) || last.inputs.empty())
            continue;
        std::vector<ir::NodeId> chain{*it}; // consumer first
        for (const ir::Node *p = producerOf(m_model, last.inputs[0]);
             p != nullptr && isShapeOp(*p) && !p->inputs.empty() && hasSingleUse(m_model, p->outputs[0]) &&
             !consumed.contains(p->id);
             p = producerOf(m_model, p->inputs[0]))
            chain.push_back(p->id);
        if (chain.size() < 2)
            continue;
        const auto final = staticShape(m_model, last.outputs[0]);
        if (!final) {
            decline(*it, "shape-chain", "the final shape is not static");
            continue;
        }
        consumed.insert(chain.begin(), chain.end());
        const ir::ValueId x = m_model.node(chain.back()).inputs[0];
        const ir::ValueId result = last.outputs[0];
        std::vector<ir::ValueId> sideInputs;
        std::string ops;
        for (auto c = chain.rbegin(); c != chain.rend(); ++c) {
            const ir::Node &node = m_model.node(*c);
            sideInputs.insert(sideInputs.end(), node.inputs.begin() + 1, node.inputs.end());
            ops += (ops.empty() ? "" : "+") + node.opType;
        }
        const bool cancels = staticShape(m_model, x) == final;
        std::string why;
        if (cancels && !m_cx.rewriter.canReplace(result, x, &why)) {
            decline(*it, "shape-chain", "the chain keeps the shape but cannot be bypassed: " + why);
            continue;
        }
        if (!cancels && std::find(final->begin(), final->end(), 0) != final->end()) {
            decline(*it, "shape-chain", "the final shape " + runtime::shapeString(*final) + " has a zero-size dim");
            continue;
        }
        if (!begin("shape-chain"))
            return rewrites;
        if (cancels) {
            m_cx.rewriter.replaceAllUsesWith(result, x);
            for (const ir::NodeId c : chain)
                m_cx.rewriter.eraseNode(c);
        } else {
            const ir::ValueId shape = m_cx.rewriter.createInitializer(graph, m_model.value(result).name + "_shape",
                                                                      int64Tensor(*final));
            replaceChain(m_cx, "Reshape", "", {x, shape}, {}, result, {chain.rbegin(), chain.rend()});
        }
        eraseUnreadConstants(m_cx, sideInputs);
        m_cx.rewriter.commit(ops + (cancels ? " keeps the shape" : " → Reshape " + runtime::shapeString(*final)));
        ++rewrites;
    }
    return rewrites;
}

std::size_t Canonicalizer::reshapeChains(ir::GraphId graph)
{
    if (standardOpset(m_model) < 5)
        return 0;
    std::size_t rewrites = 0;
    for (const ir::NodeId n : liveNodes(m_model, graph)) {
        const ir::Node &outer = m_model.node(n);
        if (!outer.alive || !isOp(outer, "Reshape") || outer.inputs.size() < 2)
            continue;
        const ir::Node *inner = producerOf(m_model, outer.inputs[0], "Reshape");
        if (inner == nullptr || inner->inputs.size() < 2)
            continue;
        const auto target = constantValue(m_model, outer.inputs[1]);
        auto shape = target ? integerValues(*target) : std::nullopt;
        if (!shape) {
            decline(n, "reshape-chain", "the outer target shape is not a constant");
            continue;
        }
        if (!hasSingleUse(m_model, outer.inputs[0])) {
            decline(n, "reshape-chain", "the first Reshape's output has other uses");
            continue;
        }
        bool copies = false;
        if (attrInt(outer, "allowzero", 0) == 0) {
            const auto mid = staticShape(m_model, outer.inputs[0]);
            for (std::size_t i = 0; i < shape->size(); ++i)
                if ((*shape)[i] == 0) {
                    if (!mid || i >= mid->size())
                        break;
                    (*shape)[i] = (*mid)[i];
                    copies = true;
                }
            if (std::find(shape->begin(), shape->end(), 0) != shape->end()) {
                decline(n, "reshape-chain", "the outer shape copies (0) a dim of an intermediate whose shape is not static");
                continue;
            }
        }
        const ir::NodeId innerId = inner->id;
        const std::vector<ir::ValueId> unread{inner->inputs[1], outer.inputs[1]};
        const ir::ValueId x = inner->inputs[0];
        if (!begin("reshape-chain"))
            return rewrites;
        m_cx.rewriter.setInput(n, 0, x);
        if (copies)
            m_cx.rewriter.setInput(n, 1, m_cx.rewriter.createInitializer(graph, m_model.value(outer.outputs[0]).name + "_shape",
                                                                        int64Tensor(*shape)));
        m_cx.rewriter.absorb(n, {innerId});
        m_cx.rewriter.eraseNode(innerId);
        eraseUnreadConstants(m_cx, unread);
        m_cx.rewriter.commit("Reshape " + runtime::shapeString(*shape));
        ++rewrites;
    }
    return rewrites;
}

} // namespace

support::Status Canonicalize::run(PassContext &cx)
{
    CanonicalizeRounds rounds(cx);
    Canonicalizer canonicalizer(rounds);
    ShapeOracle shapes(cx.model);
    const FoldSettings shapeComputations{"shape-computation", kMaxShapeBytes, true};
    for (int round = 0; round < 16; ++round) {
        std::size_t rewrites = foldConstants(cx, shapeComputations);
        for (const ir::GraphId g : liveGraphs(cx.model)) {
            rewrites += canonicalizer.transposePairs(g);
            rewrites += canonicalizer.shapeChains(g);
            rewrites += canonicalizer.reshapeChains(g);
            rewrites += slicesToSplit(cx, g);
            // last, so what the patterns above create is in canonical form too (the pass is idempotent)
            rewrites += canonicalizeForms(rounds, shapes, g);
        }
        if (rewrites == 0 || rounds.budgetSpent())
            break;
    }
    return support::Status::ok();
}

} // namespace portolan::passes
