// fuse-attention: scaled dot-product attention on head-split tensors becomes one Attention node.
//
//   Before: S = MatMul(Q, Kᵀ) [Kᵀ = Transpose(K…)]; S' = S / c (or · c); [S'' = S' + M, or
//           Where(C, −∞, S')]; P = Softmax(S'', axis −1); Y = MatMul(P, V)
//   After:  Y = Attention(Q, K, V, [M]){scale = 1/c (or c), causal}
//
// Formula: Attention(Q, K, V, M) = softmax(Q·Kᵀ·scale + M)·V over the last axis; a constant factor
// on the queries (Q = q / c) folds into the scale the same way as one on the scores. The transpose of
// K is absorbed: Transpose(X, p) followed by the swap of the last two axes is Transpose(X, p∘swap),
// which is X itself for the exported [B,S,H,D] → [B,H,D,S] form with the head split. A constant
// Where mask with a fill ≤ −1e9 is a causal flag when it hides exactly the keys after each query,
// else an additive mask of 0 and −∞ (declined when it would hide a whole row: the Where's uniform
// softmax over the fill is not −∞'s NaN). Every inner value has one use. Attention is an
// ai.portolan op (standard only from opset 23): declined in standard-only mode.
#include "opset/PortolanOps.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"
#include "passes/Pass.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace portolan::passes {

namespace {

constexpr const char *kPattern = "attention";

struct AttentionMatch {
    ir::ValueId q, kt, v, mask;
    const ir::Node *kTranspose = nullptr; ///< absorbed when K arrives transposed
    std::vector<std::int64_t> kPerm;      ///< the composed permutation for K (empty: K is kt's input as is)
    std::optional<runtime::Tensor> maskTensor; ///< an additive mask made from a constant Where condition
    float scale = 1.0f;
    bool causal = false;
    bool sequenceFirst = false;           ///< layout SND: Q, K, V and Y keep the exporter's head-split layout
    std::size_t rank = 0;
    std::vector<ir::NodeId> chain;
    ir::ValueId result;
};

// What a constant Where condition hides: causal (exactly the keys after each query), an additive
// mask, or nothing usable (a fully hidden row).
enum class MaskKind { Causal, Additive, HidesRow };

MaskKind classifyMask(const runtime::Tensor &hide)
{
    const auto rank = hide.rank();
    const std::int64_t sq = rank >= 2 ? hide.dim(rank - 2) : 1, sk = rank >= 1 ? hide.dim(rank - 1) : 1;
    const std::int64_t blocks = sq * sk > 0 ? hide.size() / (sq * sk) : 0;
    bool causal = sq == sk;
    for (std::int64_t b = 0; b < blocks; ++b)
        for (std::int64_t i = 0; i < sq; ++i) {
            bool anyVisible = false;
            for (std::int64_t j = 0; j < sk; ++j) {
                const bool hidden = hide.data<bool>()[(b * sq + i) * sk + j];
                anyVisible = anyVisible || !hidden;
                causal = causal && hidden == (j > i);
            }
            if (!anyVisible)
                return MaskKind::HidesRow;
        }
    return causal ? MaskKind::Causal : MaskKind::Additive;
}

std::optional<AttentionMatch> match(PassContext &cx, const ir::Node &softmax, ShapeOracle &shapes)
{
    const ir::Model &model = cx.model;
    auto decline = [&](const std::string &why) -> std::optional<AttentionMatch> {
        cx.rewriter.notifyMatchFailure(softmax.id, kPattern, why);
        return std::nullopt;
    };
    AttentionMatch m;
    const auto rank = shapes.rank(softmax.inputs[0]);
    const std::int64_t axis = attrInt(softmax, "axis", standardOpset(model) >= 13 ? -1 : 1);
    if (!rank || *rank < 2 || (axis != -1 && axis != static_cast<std::int64_t>(*rank) - 1))
        return std::nullopt; // not a softmax over the keys of a known-rank score tensor
    // Y = MatMul(P, V)
    if (!hasSingleUse(model, softmax.outputs[0]))
        return decline("the attention probabilities have other readers");
    const ir::Node &out = model.node(model.value(softmax.outputs[0]).uses[0].node);
    if (!isOp(out, "MatMul") || out.inputs[0] != softmax.outputs[0])
        return decline("the softmax does not feed a MatMul with V");
    m.v = out.inputs[1];
    m.result = out.outputs[0];
    std::vector<ir::NodeId> chain{softmax.id, out.id};
    // Mask: Add(S', M) or Where(C, fill, S') / Where(C, S', fill).
    ir::ValueId scores = softmax.inputs[0];
    auto step = [&](ir::ValueId v) -> const ir::Node * {
        const ir::Node *p = producerOf(model, v);
        return p && hasSingleUse(model, v) ? p : nullptr;
    };
    if (const ir::Node *p = step(scores); p && isOp(*p, "Add")) {
        const bool firstIsScores = producerOf(model, p->inputs[0], "Div") || producerOf(model, p->inputs[0], "Mul") ||
                                   producerOf(model, p->inputs[0], "MatMul");
        m.mask = firstIsScores ? p->inputs[1] : p->inputs[0];
        scores = firstIsScores ? p->inputs[0] : p->inputs[1];
        chain.insert(chain.begin(), p->id);
    } else if (p && isOp(*p, "Where")) {
        const auto fillFirst = scalarConstant(model, p->inputs[1]);
        const auto fillSecond = scalarConstant(model, p->inputs[2]);
        const bool hideWhenTrue = fillFirst.has_value();
        const auto fill = hideWhenTrue ? fillFirst : fillSecond;
        if (!fill || *fill > -1e9)
            return decline("the Where mask does not fill with −∞ (or ≤ −1e9)");
        const auto condition = constantValue(model, p->inputs[0]);
        if (!condition || condition->dataType() != onnx::TensorProto::BOOL)
            return decline("the mask condition is not a constant (a dynamic-length causal mask: run freeze-shapes first)");
        runtime::Tensor hide = condition->clone();
        if (!hideWhenTrue)
            for (std::int64_t i = 0; i < hide.size(); ++i)
                hide.mutableData<bool>()[i] = !hide.mutableData<bool>()[i];
        const MaskKind kind = classifyMask(hide);
        if (kind == MaskKind::HidesRow)
            return decline("the mask hides every key of some query");
        if (kind == MaskKind::Causal) {
            m.causal = true;
        } else {
            runtime::Tensor additive = runtime::Tensor::zeros(onnx::TensorProto::DOUBLE, hide.shape());
            for (std::int64_t i = 0; i < hide.size(); ++i)
                additive.mutableData<double>()[i] = hide.data<bool>()[i] ? -std::numeric_limits<double>::infinity() : 0.0;
            m.maskTensor = additive;
        }
        scores = hideWhenTrue ? p->inputs[2] : p->inputs[1];
        chain.insert(chain.begin(), p->id);
    }
    // Scale: Div(S, c) or Mul(S, c).
    if (const ir::Node *p = step(scores); p && (isOp(*p, "Div") || isOp(*p, "Mul"))) {
        const bool div = isOp(*p, "Div");
        const int constantAt = !div && scalarConstant(model, p->inputs[0]) ? 0 : 1;
        const auto c = scalarConstant(model, p->inputs[constantAt]);
        if (!c || *c == 0)
            return decline("the scores are scaled by something that is not a nonzero constant");
        m.scale = static_cast<float>(div ? 1.0 / *c : *c);
        scores = p->inputs[1 - constantAt];
        chain.insert(chain.begin(), p->id);
    }
    const ir::Node *qk = step(scores);
    if (!qk || !isOp(*qk, "MatMul"))
        return decline("the scores are not a MatMul of queries and keys");
    chain.insert(chain.begin(), qk->id);
    // Attention takes Q, K and V with the same batch and head dims: MatMuls that broadcast K or V
    // over them (multi-query attention) stay as they are
    const std::size_t r = *rank;
    const auto dq = shapes.dims(qk->inputs[0]), dk = shapes.dims(qk->inputs[1]), dv = shapes.dims(m.v);
    if (!dq || !dk || !dv || dq->size() != r || dk->size() != r || dv->size() != r)
        return decline("Q, K and V are not all of the scores' rank");
    auto differ = [](const ir::Dim &a, const ir::Dim &b) {
        return (a.isStatic() && b.isStatic() && a.extent() != b.extent()) || (a.isSymbolic() && b.isSymbolic() && a.symbol() != b.symbol()) ||
               (a.isStatic() != b.isStatic() && ((a.isStatic() && a.extent() == 1) || (b.isStatic() && b.extent() == 1)));
    };
    for (std::size_t i = 0; i + 2 < r; ++i)
        if (differ((*dq)[i], (*dk)[i]) || differ((*dq)[i], (*dv)[i]))
            return decline("K or V is broadcast over Q's batch or head dims (multi-query attention)");
    m.q = qk->inputs[0];
    m.kt = qk->inputs[1];
    // Exporters often scale the queries instead of the scores: Q = q / c or q · c.
    if (const ir::Node *p = step(m.q); p && (isOp(*p, "Div") || isOp(*p, "Mul"))) {
        const bool div = isOp(*p, "Div");
        const int constantAt = !div && scalarConstant(model, p->inputs[0]) ? 0 : 1;
        if (const auto c = scalarConstant(model, p->inputs[constantAt]); c && *c != 0) {
            m.scale *= static_cast<float>(div ? 1.0 / *c : *c);
            m.q = p->inputs[1 - constantAt];
            chain.insert(chain.begin(), p->id);
        }
    }
    // K arrives as Kᵀ: absorb a transpose in front of it.
    std::vector<std::int64_t> swap(r);
    std::iota(swap.begin(), swap.end(), 0);
    std::swap(swap[r - 1], swap[r - 2]);
    if (const ir::Node *t = step(m.kt); t && isOp(*t, "Transpose")) {
        const std::vector<std::int64_t> p = attrInts(*t, "perm");
        if (p.size() == r) {
            m.kTranspose = t;
            m.kPerm.resize(r);
            for (std::size_t i = 0; i < r; ++i)
                m.kPerm[i] = p[static_cast<std::size_t>(swap[i])];
            chain.insert(chain.begin(), t->id);
        }
    }
    if (!m.kTranspose)
        m.kPerm = swap; // K = Transpose(Kᵀ, swap): a new transpose
    m.rank = r;
    // Layout SND: when Q and V come from Transposes that only swap the sequence axis with the heads
    // axis before it, K's composed permutation is that same swap, and Y's one reader swaps it back,
    // those four transposes are absorbed into layout = SND.
    if (r >= 3) {
        std::vector<std::int64_t> seqSwap(r);
        std::iota(seqSwap.begin(), seqSwap.end(), 0);
        std::swap(seqSwap[r - 3], seqSwap[r - 2]);
        const ir::Node *qt = step(m.q);
        const ir::Node *vt = step(m.v);
        const ir::Node *yt = hasSingleUse(model, m.result) ? &model.node(model.value(m.result).uses[0].node) : nullptr;
        const bool swapped = qt && isOp(*qt, "Transpose") && attrInts(*qt, "perm") == seqSwap && vt &&
                             isOp(*vt, "Transpose") && attrInts(*vt, "perm") == seqSwap && m.kPerm == seqSwap && yt &&
                             isOp(*yt, "Transpose") && attrInts(*yt, "perm") == seqSwap;
        if (swapped) {
            m.sequenceFirst = true;
            m.kPerm.clear();
            m.q = qt->inputs[0];
            m.v = vt->inputs[0];
            chain.insert(chain.begin(), {qt->id, vt->id});
            chain.push_back(yt->id);
            m.result = yt->outputs[0];
        }
    }
    m.chain = std::move(chain);
    return m;
}

bool isIdentity(const std::vector<std::int64_t> &perm)
{
    for (std::size_t i = 0; i < perm.size(); ++i)
        if (perm[i] != static_cast<std::int64_t>(i))
            return false;
    return true;
}

} // namespace

support::Status FuseAttention::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    ShapeOracle shapes(model);
    for (const ir::GraphId g : liveGraphs(model)) {
        for (const ir::NodeId id : liveNodes(model, g)) {
            const ir::Node &node = model.node(id);
            if (!isOp(node, "Softmax"))
                continue;
            auto m = match(cx, node, shapes);
            if (!m)
                continue;
            if (cx.standardOnly) {
                cx.rewriter.notifyMatchFailure(id, kPattern, "standard-only: Attention is not a standard op before opset 23");
                continue;
            }
            if (!cx.rewriter.begin(kPattern))
                return support::Status::ok();
            importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
            ir::ValueId k = m->kTranspose ? m->kTranspose->inputs[0] : m->kt;
            if (!m->kPerm.empty() && !isIdentity(m->kPerm)) {
                const ir::ValueId kh = cx.rewriter.createValue(g, model.value(k).name + ".heads");
                cx.rewriter.createNode(g, "Transpose", "", {k}, {kh}, {makeAttribute("perm", m->kPerm)},
                                       node.name + ".k_transpose", m->chain.front());
                k = kh;
            }
            ir::ValueId mask = m->mask;
            if (m->maskTensor)
                mask = cx.rewriter.createInitializer(g, node.name + ".mask", fromDouble(*m->maskTensor, shapes.elementType(m->q)));
            std::vector<ir::ValueId> inputs{m->q, k, m->v};
            if (mask.valid())
                inputs.push_back(mask);
            std::vector<onnx::AttributeProto> attributes{makeAttribute("scale", m->scale),
                                                         makeAttribute("causal", static_cast<std::int64_t>(m->causal))};
            if (m->sequenceFirst)
                attributes.push_back(makeAttribute("layout", std::string("SND")));
            replaceChain(cx, "Attention", opset::kPortolanDomain, inputs, std::move(attributes),
                         m->result, m->chain);
            cx.rewriter.count("fused");
            cx.rewriter.commit(std::string("scale ") + std::to_string(m->scale) + (m->causal ? ", causal" : "") +
                               (mask.valid() ? ", masked" : ""));
        }
    }
    return support::Status::ok();
}

} // namespace portolan::passes
