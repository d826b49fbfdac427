// fuse-skip-layer-norm: the residual Add (and the bias Add of the layer before it) folds into the
// LayerNormalization that follows.
//
//   Before: t = MatMul(h, W); u = t + bias; s = x + u; y = LayerNormalization(s, γ, β)
//   After:  y, s' = SkipLayerNormalization(x, t, γ, β, bias)   (s' only when s has other readers)
//
// Formula: SkipLayerNormalization(X, Skip, γ, β, Bias) = LayerNormalization(X + Skip + Bias, γ, β):
// the same sums in another order. Conditions: both Add operands are computed tensors of the same
// shape, the LayerNormalization's mean/inv-std outputs are unused, the bias (when taken) is a
// constant along the last dim whose Add has one use. The sum keeps its readers through output 1.
#include "opset/PortolanOps.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"
#include "passes/Pass.h"

namespace portolan::passes {

namespace {

constexpr const char *kPattern = "skip-layer-norm";

bool sameShape(ShapeOracle &shapes, ir::ValueId a, ir::ValueId b)
{
    const auto da = shapes.dims(a), db = shapes.dims(b);
    if (!da || !db || da->size() != db->size())
        return false;
    for (std::size_t i = 0; i < da->size(); ++i)
        if ((*da)[i].isUnknown() || (*da)[i].v != (*db)[i].v)
            return false;
    return true;
}

// `value` = Add(t, bias) with bias a constant of `last` elements and one use: returns {t, bias}.
std::optional<std::pair<ir::ValueId, ir::ValueId>> biasAdd(const ir::Model &model, ir::ValueId value, std::optional<std::int64_t> last)
{
    const ir::Node *add = producerOf(model, value, "Add");
    if (!add || !hasSingleUse(model, value) || !last)
        return std::nullopt;
    for (int k = 0; k < 2; ++k) {
        const ir::ValueId bias = add->inputs[k], t = add->inputs[1 - k];
        const auto c = constantValue(model, bias);
        if (c && c->size() == *last && !constantValue(model, t))
            return std::make_pair(t, bias);
    }
    return std::nullopt;
}

} // namespace

support::Status FuseSkipLayerNorm::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    ShapeOracle shapes(model);
    for (const ir::GraphId g : liveGraphs(model)) {
        for (const ir::NodeId id : liveNodes(model, g)) {
            const ir::Node &ln = model.node(id);
            const bool isLayerNorm = ln.opType == "LayerNormalization" &&
                                     (ln.domain.empty() || ln.domain == "ai.onnx" || ln.domain == opset::kPortolanDomain);
            if (!ln.alive || !isLayerNorm || ln.inputs.size() < 2)
                continue;
            const ir::ValueId s = ln.inputs[0];
            const ir::Node *add = producerOf(model, s, "Add");
            if (!add)
                continue;
            auto decline = [&](const std::string &why) { cx.rewriter.notifyMatchFailure(id, kPattern, why); };
            if (constantValue(model, add->inputs[0]) || constantValue(model, add->inputs[1])) {
                decline("the Add before it adds a constant, not a residual");
                continue;
            }
            if (!sameShape(shapes, add->inputs[0], add->inputs[1])) {
                decline("the Add's operands do not have the same known shape (a broadcast is not a residual)");
                continue;
            }
            bool statsUsed = false;
            for (std::size_t o = 1; o < ln.outputs.size(); ++o)
                statsUsed = statsUsed || (ln.outputs[o].valid() && !model.value(ln.outputs[o]).uses.empty());
            if (statsUsed) {
                decline("the LayerNormalization's mean or inverse std-dev is used");
                continue;
            }
            if (cx.standardOnly) {
                decline("standard-only: SkipLayerNormalization is not a standard op");
                continue;
            }
            const auto dims = shapes.dims(s);
            std::optional<std::int64_t> last;
            if (dims && !dims->empty() && dims->back().isStatic())
                last = dims->back().extent();
            ir::ValueId x = add->inputs[0], skip = add->inputs[1], bias;
            std::vector<ir::NodeId> chain{add->id};
            for (int k = 0; k < 2 && !bias.valid(); ++k)
                if (auto b = biasAdd(model, add->inputs[k], last)) {
                    chain.insert(chain.begin(), producerOf(model, add->inputs[k])->id);
                    (k == 0 ? x : skip) = b->first;
                    bias = b->second;
                }
            chain.push_back(id);
            if (!cx.rewriter.begin(kPattern))
                return support::Status::ok();
            importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
            const ir::Value &yValue = model.value(ln.outputs[0]);
            const onnx::TypeProto yType = yValue.info.type();
            const ir::ValueId y = cx.rewriter.createValue(g, yValue.name, yValue.info.has_type() ? &yType : nullptr);
            const bool sumRead = model.value(s).uses.size() > 1 || isGraphOutput(model, s);
            std::vector<ir::ValueId> outputs{y};
            if (sumRead) {
                const onnx::TypeProto sType = model.value(s).info.type();
                outputs.push_back(cx.rewriter.createValue(g, model.value(s).name, model.value(s).info.has_type() ? &sType : nullptr));
            }
            std::vector<ir::ValueId> inputs{x, skip, ln.inputs[1], ln.inputs.size() > 2 ? ln.inputs[2] : ir::ValueId(), bias};
            while (!inputs.back().valid())
                inputs.pop_back();
            std::vector<onnx::AttributeProto> attributes{makeAttribute("epsilon", attrFloat(ln, "epsilon", 1e-5f)),
                                                         makeAttribute("axis", attrInt(ln, "axis", -1))};
            cx.rewriter.createNode(g, "SkipLayerNormalization", opset::kPortolanDomain, inputs, outputs,
                                   std::move(attributes), fusedNodeName(ln, "SkipLayerNormalization"), id);
            cx.rewriter.replaceAllUsesWith(ln.outputs[0], y);
            if (sumRead)
                cx.rewriter.replaceAllUsesWith(s, outputs[1]);
            for (auto it = chain.rbegin(); it != chain.rend(); ++it)
                cx.rewriter.eraseNode(*it);
            cx.rewriter.count("fused");
            cx.rewriter.commit(bias.valid() ? "with the bias" : "");
        }
    }
    return support::Status::ok();
}

} // namespace portolan::passes
