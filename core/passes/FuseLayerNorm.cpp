// fuse-layer-norm: the exported decomposition of layer normalization becomes one node.
//
//   Before: μ = ReduceMean(x, trailing axes); d = x − μ; v = ReduceMean(d² or d·d); s = √(v + ε);
//           n = d / s; y = n · γ + β   (γ, β optional constants)
//   After:  y = LayerNormalization(x, γ, β){axis = −k, epsilon = ε}
//
// Formula: LayerNormalization(x) = (x − E[x]) / √(Var[x] + ε) · γ + β over the k trailing axes, the
// same expression, so only rounding differs (the kernel accumulates in double). Conditions: every
// inner value has exactly the uses of the pattern, ε is a constant in (0, max-epsilon], γ and β
// constants spanning the normalized dims. The rarer form √v + ε is not LayerNormalization and is
// declined with a reason. Produces the standard op from opset 17, ai.portolan's below it.
#include "opset/PortolanOps.h"
#include "passes/ChainMatch.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"
#include "passes/NormalizationMatch.h"
#include "passes/Pass.h"

#include <algorithm>

namespace portolan::passes {

namespace {

constexpr const char *kPattern = "layer-norm";

struct LayerNormMatch {
    ir::ValueId x;
    std::int64_t axis = -1;
    float epsilon = 1e-5f;
    std::vector<ir::NodeId> chain;
    AffineTail tail;
};

std::optional<LayerNormMatch> match(PassContext &cx, const ir::Node &mean, ShapeOracle &shapes, double maxEpsilon)
{
    const ir::Model &model = cx.model;
    auto decline = [&](const std::string &why) -> std::optional<LayerNormMatch> {
        cx.rewriter.notifyMatchFailure(mean.id, kPattern, why);
        return std::nullopt;
    };
    LayerNormMatch m;
    m.x = mean.inputs.empty() ? ir::ValueId() : mean.inputs[0];
    std::string why;
    const auto axis = trailingMeanAxis(model, mean, shapes, &why);
    const ir::Node *sub = soleReader(model, mean.outputs[0], "Sub");
    if (!sub || sub->inputs[0] != m.x || sub->inputs[1] != mean.outputs[0])
        return std::nullopt; // not a mean subtraction: some other ReduceMean, not worth a message
    if (!axis)
        return decline(why);
    m.axis = *axis;
    const ir::ValueId d = sub->outputs[0];
    const ir::Node *square = nullptr, *div = nullptr;
    for (const ir::NodeId user : consumersOf(model, d)) {
        const ir::Node &u = model.node(user);
        if ((isOp(u, "Pow") && u.inputs[0] == d && scalarConstant(model, u.inputs[1]) == 2.0) ||
            (isOp(u, "Mul") && u.inputs[0] == d && u.inputs[1] == d))
            square = &u;
        else if (isOp(u, "Div") && u.inputs[0] == d)
            div = &u;
        else
            return decline("x − mean is also read by " + u.opType + " '" + u.name + "'");
    }
    if (!square || !div || isGraphOutput(model, d))
        return decline("x − mean is not squared and divided (no variance computed from it)");
    const ir::Node *variance = soleReader(model, square->outputs[0], "ReduceMean");
    if (!variance)
        return decline("the square of x − mean is not averaged by one ReduceMean");
    std::string varianceWhy;
    if (trailingMeanAxis(model, *variance, shapes, &varianceWhy) != m.axis)
        return decline("the variance reduces other axes than the mean");
    const ir::Node *addEps = soleReader(model, variance->outputs[0], "Add");
    const ir::Node *sqrt = nullptr;
    if (!addEps) {
        if (const ir::Node *early = soleReader(model, variance->outputs[0], "Sqrt"))
            if (soleReader(model, early->outputs[0], "Add"))
                return decline("epsilon is added after Sqrt (√Var + ε), which is not LayerNormalization's √(Var + ε)");
        return decline("no epsilon is added to the variance");
    }
    const ir::ValueId epsValue = addEps->inputs[0] == variance->outputs[0] ? addEps->inputs[1] : addEps->inputs[0];
    const auto eps = scalarConstant(model, epsValue);
    if (!eps)
        return decline("epsilon is not a constant");
    if (*eps <= 0 || *eps > maxEpsilon)
        return decline("the constant added to the variance (" + std::to_string(*eps) + ") is outside (0, max-epsilon]");
    m.epsilon = static_cast<float>(*eps);
    sqrt = soleReader(model, addEps->outputs[0], "Sqrt");
    if (!sqrt || div->inputs[1] != sqrt->outputs[0] || !hasSingleUse(model, sqrt->outputs[0]))
        return decline("x − mean is not divided by √(variance + ε)");
    m.tail = matchAffineTail(model, div->outputs[0], true);
    m.chain = {mean.id, sub->id, square->id, variance->id, addEps->id, sqrt->id, div->id};
    m.chain.insert(m.chain.end(), m.tail.nodes.begin(), m.tail.nodes.end());
    return m;
}

} // namespace

support::Status FuseLayerNorm::run(PassContext &cx)
{
    auto maxEpsilon = cx.options.number("max-epsilon");
    if (!maxEpsilon)
        return maxEpsilon.error();
    ir::Model &model = cx.model;
    const int opset = standardOpset(model);
    const bool standard = opset >= 17;
    ShapeOracle shapes(model);
    for (const ir::GraphId g : liveGraphs(model)) {
        for (const ir::NodeId id : liveNodes(model, g)) {
            const ir::Node &node = model.node(id);
            if (!isOp(node, "ReduceMean"))
                continue;
            auto m = match(cx, node, shapes, *maxEpsilon);
            if (!m)
                continue;
            if (!standard && cx.standardOnly) {
                cx.rewriter.notifyMatchFailure(id, kPattern, "standard-only: LayerNormalization is not a standard op before opset 17");
                continue;
            }
            const std::int64_t k = -m->axis;
            std::optional<runtime::Tensor> scale, bias;
            if (m->tail.scale.valid() && !(scale = normalizedParameter(model, m->tail.scale, k))) {
                cx.rewriter.notifyMatchFailure(id, kPattern, "the scale varies along a non-normalized axis");
                continue;
            }
            if (m->tail.bias.valid() && !(bias = normalizedParameter(model, m->tail.bias, k))) {
                cx.rewriter.notifyMatchFailure(id, kPattern, "the bias varies along a non-normalized axis");
                continue;
            }
            if (!scale && !(scale = unitScale(shapes, m->x, k))) {
                cx.rewriter.notifyMatchFailure(id, kPattern, "there is no scale and the normalized dims are not static");
                continue;
            }
            if (!cx.rewriter.begin(kPattern))
                return support::Status::ok();
            const std::string &name = node.name;
            std::vector<ir::ValueId> inputs{m->x, cx.rewriter.createInitializer(g, name + ".scale", *scale)};
            if (bias)
                inputs.push_back(cx.rewriter.createInitializer(g, name + ".bias", *bias));
            if (!standard)
                importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
            replaceChain(cx, "LayerNormalization", standard ? "" : opset::kPortolanDomain, inputs,
                         {makeAttribute("axis", m->axis), makeAttribute("epsilon", m->epsilon)}, m->tail.result, m->chain,
                         {m->tail.scale, m->tail.bias});
            cx.rewriter.count("fused");
            cx.rewriter.commit("axis " + std::to_string(m->axis) + ", epsilon " + std::to_string(m->epsilon));
        }
    }
    return support::Status::ok();
}

} // namespace portolan::passes
