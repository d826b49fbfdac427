// fuse-rms-norm: the exported decomposition of RMS normalization (T5, LLaMA) becomes one node.
//
//   Before: q = Pow(x, 2) or x · x; m = ReduceMean(q, trailing axes); v = m + ε; s = √v;
//           n = x / s, or x · Reciprocal(s), or x · (1 / s), or x · Pow(v, −0.5);
//           y = n · γ   (γ optional constant)
//   After:  y = ai.portolan.RMSNormalization(x, γ){axis = −k, epsilon = ε}
//
// Formula: RMSNormalization(x) = x / √(mean(x²) + ε) · γ over the k trailing axes: the same
// expression, so only rounding differs (the kernel accumulates in double). Conditions: every inner
// value has exactly the uses of the pattern; ε is a constant in (0, 1e-3]; γ a constant that varies
// only along the normalized axes (no γ: ones, when the normalized dims are static). x must not be
// x′ − mean(x′): that is a layer norm's variance (fuse-layer-norm's job), declined with a reason.
// RMSNormalization is an ai.portolan op (no standard one at opset 17): declined in standard-only mode.
#include "opset/PortolanOps.h"
#include "passes/ChainMatch.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"
#include "passes/NormalizationMatch.h"
#include "passes/Pass.h"

#include <algorithm>

namespace portolan::passes {

namespace {

constexpr const char *kPattern = "rms-norm";
constexpr double kMaxEpsilon = 1e-3;

struct RmsMatch {
    ir::ValueId x;
    std::int64_t axis = -1;
    float epsilon = 1e-5f;
    std::vector<ir::NodeId> chain;
    AffineTail tail;
};

/// The Mul of x by the output of `inverse` (Reciprocal(s), 1 / s or Pow(v, −0.5)), or nullptr.
const ir::Node *timesInverse(const ir::Model &model, const ir::Node &inverse, ir::ValueId x)
{
    const ir::Node *mul = soleReader(model, inverse.outputs[0], "Mul");
    return mul && mul->inputs.size() == 2 && otherOperand(*mul, inverse.outputs[0]) == x ? mul : nullptr;
}

std::optional<RmsMatch> match(PassContext &cx, const ir::Node &mean, ShapeOracle &shapes)
{
    const ir::Model &model = cx.model;
    const ir::Node *square = mean.inputs.empty() ? nullptr : producerOf(model, mean.inputs[0]);
    if (!square || !hasSingleUse(model, mean.inputs[0]))
        return std::nullopt;
    RmsMatch m;
    if (const auto p = scalarOperand(model, *square, "Pow", true); p && p->constant == 2.0)
        m.x = p->operand;
    else if (isOp(*square, "Mul") && square->inputs.size() == 2 && square->inputs[0] == square->inputs[1])
        m.x = square->inputs[0];
    else
        return std::nullopt; // not a mean of squares
    auto decline = [&](const std::string &why) -> std::optional<RmsMatch> {
        cx.rewriter.notifyMatchFailure(mean.id, kPattern, why);
        return std::nullopt;
    };
    if (const ir::Node *sub = producerOf(model, m.x, "Sub"))
        if (const ir::Node *centre = producerOf(model, sub->inputs[1], "ReduceMean"); centre && centre->inputs[0] == sub->inputs[0])
            return std::nullopt; // a layer norm's variance: fuse-layer-norm's business, no message here
    std::string why;
    const auto axis = trailingMeanAxis(model, mean, shapes, &why);
    const ir::Node *addEps = soleReader(model, mean.outputs[0], "Add");
    const auto eps = addEps ? scalarOperand(model, *addEps, "Add") : std::nullopt;
    const ir::Node *root = addEps ? soleReader(model, addEps->outputs[0]) : nullptr;
    const auto power = root ? scalarOperand(model, *root, "Pow", true) : std::nullopt;
    const bool inverseRoot = power && nearly(power->constant, -0.5, 0.0); // Pow(v, −0.5) = 1 / √v
    if (!root || (!isOp(*root, "Sqrt") && !inverseRoot))
        return decline("the mean of x² is not followed by + ε and Sqrt or Pow(·, −0.5) (with one reader each)");
    if (!axis)
        return decline(why);
    m.axis = *axis;
    if (!eps)
        return decline("epsilon is not a constant");
    if (eps->constant <= 0 || eps->constant > kMaxEpsilon)
        return decline("the constant added to the mean square (" + std::to_string(eps->constant) + ") is outside (0, 1e-3]");
    m.epsilon = static_cast<float>(eps->constant);
    m.chain = {square->id, mean.id, addEps->id, root->id};
    const ir::ValueId s = root->outputs[0];
    const ir::Node *reader = soleReader(model, s);
    const ir::Node *result = nullptr;
    if (inverseRoot) { // x · Pow(v, −0.5)
        result = timesInverse(model, *root, m.x);
    } else if (reader && isOp(*reader, "Div") && reader->inputs.size() == 2 && reader->inputs[1] == s) {
        if (reader->inputs[0] == m.x) { // x / s
            result = reader;
        } else if (nearly(scalarConstant(model, reader->inputs[0]), 1.0, 0.0)) { // x · (1 / s)
            m.chain.push_back(reader->id);
            result = timesInverse(model, *reader, m.x);
        }
    } else if (reader && isOp(*reader, "Reciprocal")) { // x · Reciprocal(s)
        m.chain.push_back(reader->id);
        result = timesInverse(model, *reader, m.x);
    }
    if (!result)
        return decline("x is not divided by √(mean(x²) + ε)");
    m.chain.push_back(result->id);
    m.tail = matchAffineTail(model, result->outputs[0], false);
    m.chain.insert(m.chain.end(), m.tail.nodes.begin(), m.tail.nodes.end());
    return m;
}

/// γ over the normalized dims, or ones when there is none; `why` says what stands in the way.
std::optional<runtime::Tensor> scaleOf(const ir::Model &model, const RmsMatch &m, ShapeOracle &shapes, std::string &why)
{
    const std::int64_t k = -m.axis;
    std::optional<runtime::Tensor> scale =
        m.tail.scale.valid() ? normalizedParameter(model, m.tail.scale, k) : unitScale(shapes, m.x, k);
    if (!scale)
        why = m.tail.scale.valid() ? "the scale varies along a non-normalized axis"
                                   : "there is no scale and the normalized dims are not static";
    return scale;
}

} // namespace

support::Status FuseRmsNorm::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    ShapeOracle shapes(model);
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId id : liveNodes(model, g)) {
            const ir::Node &node = model.node(id);
            if (!isOp(node, "ReduceMean"))
                continue;
            auto m = match(cx, node, shapes);
            if (!m)
                continue;
            if (cx.standardOnly) {
                cx.rewriter.notifyMatchFailure(id, kPattern, "standard-only: RMSNormalization is not a standard op at opset " +
                                                                 std::to_string(standardOpset(model)));
                continue;
            }
            std::string why;
            const auto scale = scaleOf(model, *m, shapes, why);
            if (!scale) {
                cx.rewriter.notifyMatchFailure(id, kPattern, why);
                continue;
            }
            if (!cx.rewriter.begin(kPattern))
                return support::Status::ok();
            importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
            const ir::ValueId gamma =
                cx.rewriter.createInitializer(g, (node.name.empty() ? std::string("rms_norm") : node.name) + ".scale", *scale);
            replaceChain(cx, "RMSNormalization", opset::kPortolanDomain, {m->x, gamma},
                         {makeAttribute("axis", m->axis), makeAttribute("epsilon", m->epsilon)},
                         m->tail.result, m->chain,
                         {m->tail.scale});
            cx.rewriter.count("fused");
            cx.rewriter.commit("axis " + std::to_string(m->axis) + ", epsilon " + std::to_string(m->epsilon));
        }
    return support::Status::ok();
}

} // namespace portolan::passes
