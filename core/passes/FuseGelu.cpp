// fuse-gelu: the exported decompositions of GELU (the exact erf form and the tanh approximation)
// become one Gelu node.
//
//   Before (erf):  t = x / √2 (or x · 1/√2); a = Erf(t) + 1; y = (x · a) · ½
//   Before (tanh): c = x³ (Pow(x, 3), x · (x · x) or (x · x) · x); u = (x + 0.044715 · c) · √(2/π);
//                  a = Tanh(u) + 1; y = (x · a) · ½
//   After:         y = Gelu(x){approximate = "none" | "tanh"}
//
// The ½ may come first or last: (x · a) · ½, (x · ½) · a or x · (a · ½), each ½ a Mul by 0.5 or a
// Div by 2; every Mul and Add takes its operands in either order. Formula:
//   Gelu(x) = x/2 · (1 + erf(x/√2)),  tanh: x/2 · (1 + tanh(√(2/π) · (x + 0.044715 · x³))).
// Conditions: the constants match within a relative 1e-4 (exporters print them with 5 to 9 digits);
// every inner value has one reader and is no graph output (x itself may have any readers). Produces
// the standard Gelu from opset 20, ai.portolan's Gelu below it (declined in standard-only mode).
// The standard op needs ONNX's schema of Gelu-20 (libonnx ≥ 1.15): without it the checker would
// refuse the model, so ai.portolan's Gelu stands in (and standard-only mode declines).
#include "analysis/OpSchemas.h"
#include "opset/PortolanOps.h"
#include "passes/ChainMatch.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"
#include "passes/Pass.h"

#include <onnx/defs/schema.h>

#include <cmath>
#include <numbers>

namespace portolan::passes {

namespace {

struct GeluMatch {
    ir::ValueId x;
    ir::ValueId result;
    std::vector<ir::NodeId> chain; ///< in dataflow order, the node producing `result` last
    bool tanh = false;
};

/// `node` computes `value` · ½ (Mul by 0.5 or Div by 2).
bool halves(const ir::Model &model, const ir::Node &node, ir::ValueId value)
{
    if (const auto m = scalarOperand(model, node, "Mul"); m && m->operand == value)
        return nearly(m->constant, 0.5);
    if (const auto d = scalarOperand(model, node, "Div", true); d && d->operand == value)
        return nearly(d->constant, 2.0);
    return false;
}

/// The ½ · x · a tail after a = 1 + erf(…) or 1 + tanh(…); appends its nodes to `m` and sets the result.
bool matchHalfTail(const ir::Model &model, ir::ValueId a, GeluMatch &m)
{
    const ir::Node *first = soleReader(model, a);
    if (!first)
        return false;
    if (halves(model, *first, a)) { // x · (a · ½)
        const ir::Node *mul = soleReader(model, first->outputs[0], "Mul");
        if (!mul || otherOperand(*mul, first->outputs[0]) != m.x)
            return false;
        m.chain.insert(m.chain.end(), {first->id, mul->id});
        m.result = mul->outputs[0];
        return true;
    }
    if (!isOp(*first, "Mul") || first->inputs.size() != 2)
        return false;
    const ir::ValueId other = otherOperand(*first, a);
    if (other == m.x) { // (x · a) · ½
        const ir::Node *half = soleReader(model, first->outputs[0]);
        if (!half || !halves(model, *half, first->outputs[0]))
            return false;
        m.chain.insert(m.chain.end(), {first->id, half->id});
        m.result = half->outputs[0];
        return true;
    }
    const ir::Node *half = producerOf(model, other); // (x · ½) · a
    if (!half || !hasSingleUse(model, other) || !halves(model, *half, m.x))
        return false;
    m.chain.insert(m.chain.end(), {half->id, first->id});
    m.result = first->outputs[0];
    return true;
}

/// The Add of 1 that reads `value` (either operand order).
const ir::Node *addsOne(const ir::Model &model, ir::ValueId value)
{
    const ir::Node *add = soleReader(model, value, "Add");
    const auto one = add ? scalarOperand(model, *add, "Add") : std::nullopt;
    return one && one->operand == value && nearly(one->constant, 1.0) ? add : nullptr;
}

/// Starting at an Erf node: x / √2 → Erf → + 1 → ½ · x · (…). `why` is set on a near-miss.
std::optional<GeluMatch> matchErfForm(const ir::Model &model, const ir::Node &erf, std::string &why)
{
    const ir::Node *scale = producerOf(model, erf.inputs[0]);
    if (!scale || !hasSingleUse(model, erf.inputs[0]))
        return std::nullopt;
    GeluMatch m;
    if (const auto d = scalarOperand(model, *scale, "Div", true); d && nearly(d->constant, std::numbers::sqrt2))
        m.x = d->operand;
    else if (const auto k = scalarOperand(model, *scale, "Mul"); k && nearly(k->constant, 1 / std::numbers::sqrt2))
        m.x = k->operand;
    else
        return std::nullopt; // some other erf
    const ir::Node *add = addsOne(model, erf.outputs[0]);
    if (!add) {
        why = "erf(x/√2) is not followed by + 1 (with one reader)";
        return std::nullopt;
    }
    m.chain = {scale->id, erf.id, add->id};
    if (!matchHalfTail(model, add->outputs[0], m)) {
        why = "1 + erf(x/√2) is not multiplied by x and ½ (with one reader each)";
        return std::nullopt;
    }
    return m;
}

/// x³ as Pow(x, 3), x · (x · x) or (x · x) · x, ending in `cube`; its nodes in dataflow order.
std::optional<std::vector<ir::NodeId>> cubeOf(const ir::Model &model, ir::ValueId cube, ir::ValueId x)
{
    const ir::Node *node = producerOf(model, cube);
    if (!node || !hasSingleUse(model, cube))
        return std::nullopt;
    if (const auto p = scalarOperand(model, *node, "Pow", true); p && p->operand == x && p->constant == 3.0)
        return std::vector<ir::NodeId>{node->id};
    if (!isOp(*node, "Mul") || node->inputs.size() != 2 || (node->inputs[0] != x && node->inputs[1] != x))
        return std::nullopt;
    const ir::ValueId square = otherOperand(*node, x);
    const ir::Node *sq = producerOf(model, square, "Mul");
    if (!sq || !hasSingleUse(model, square) || sq->inputs.size() != 2 || sq->inputs[0] != x || sq->inputs[1] != x)
        return std::nullopt;
    return std::vector<ir::NodeId>{sq->id, node->id};
}

/// Starting at a Tanh node: (x + 0.044715 · x³) · √(2/π) → Tanh → + 1 → ½ · x · (…).
std::optional<GeluMatch> matchTanhForm(const ir::Model &model, const ir::Node &tanh, std::string &why)
{
    const ir::Node *scale = producerOf(model, tanh.inputs[0]);
    const auto k = scale && hasSingleUse(model, tanh.inputs[0]) ? scalarOperand(model, *scale, "Mul") : std::nullopt;
    if (!k || !nearly(k->constant, std::sqrt(2 / std::numbers::pi)))
        return std::nullopt;
    const ir::Node *sum = producerOf(model, k->operand, "Add");
    if (!sum || !hasSingleUse(model, k->operand) || sum->inputs.size() != 2)
        return std::nullopt;
    GeluMatch m;
    m.tanh = true;
    for (std::size_t side = 0; side < 2 && !m.x.valid(); ++side) {
        const ir::ValueId term = sum->inputs[side], x = sum->inputs[1 - side];
        const ir::Node *mul = producerOf(model, term);
        const auto c = mul && hasSingleUse(model, term) ? scalarOperand(model, *mul, "Mul") : std::nullopt;
        if (!c || !nearly(c->constant, 0.044715))
            continue;
        if (auto cube = cubeOf(model, c->operand, x)) {
            m.x = x;
            m.chain = *cube;
            m.chain.insert(m.chain.end(), {mul->id, sum->id, scale->id, tanh.id});
        }
    }
    if (!m.x.valid()) {
        why = "tanh(√(2/π) · s): s is not x + 0.044715 · x³";
        return std::nullopt;
    }
    const ir::Node *add = addsOne(model, tanh.outputs[0]);
    if (!add) {
        why = "tanh(…) of the GELU approximation is not followed by + 1 (with one reader)";
        return std::nullopt;
    }
    m.chain.push_back(add->id);
    if (!matchHalfTail(model, add->outputs[0], m)) {
        why = "1 + tanh(…) is not multiplied by x and ½ (with one reader each)";
        return std::nullopt;
    }
    return m;
}

/// Why the standard Gelu cannot be created at `opset` (nullopt: it can).
std::optional<std::string> standardGeluProblem(int opset)
{
    if (opset < 20)
        return "Gelu is not a standard op before opset 20 (the model has " + std::to_string(opset) + ")";
    if (analysis::findSchema("Gelu", "", opset) == nullptr)
        return "no schema of the standard Gelu-20 is registered, so the checker would refuse it";
    return std::nullopt;
}

} // namespace

support::Status FuseGelu::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    const std::optional<std::string> nonStandard = standardGeluProblem(standardOpset(model));
    const bool standard = !nonStandard;
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId id : liveNodes(model, g)) {
            const ir::Node &node = model.node(id);
            if (!node.alive || (!isOp(node, "Erf") && !isOp(node, "Tanh")))
                continue;
            const bool erf = isOp(node, "Erf");
            const char *pattern = erf ? "gelu-erf" : "gelu-tanh";
            std::string why;
            auto m = erf ? matchErfForm(model, node, why) : matchTanhForm(model, node, why);
            if (!m) {
                if (!why.empty())
                    cx.rewriter.notifyMatchFailure(id, pattern, why);
                continue;
            }
            if (!standard && cx.standardOnly) {
                cx.rewriter.notifyMatchFailure(id, pattern, "standard-only: " + *nonStandard);
                continue;
            }
            if (!cx.rewriter.begin(pattern))
                return support::Status::ok();
            if (!standard)
                importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
            std::vector<onnx::AttributeProto> attributes;
            if (m->tanh)
                attributes.push_back(makeAttribute("approximate", std::string("tanh")));
            replaceChain(cx, "Gelu", standard ? "" : opset::kPortolanDomain, {m->x}, std::move(attributes), m->result,
                         m->chain);
            cx.rewriter.count(m->tanh ? "fused-tanh" : "fused-erf");
            cx.rewriter.commit(m->tanh ? "tanh approximation" : "erf form");
        }
    return support::Status::ok();
}

} // namespace portolan::passes
