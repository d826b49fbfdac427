// decompose: rewrite ops a target lacks into standard primitives, the inverse of the fusions.
//
//   Before: y = LayerNormalization(x, γ, β){axis, epsilon}
//   After:  μ = ReduceMean(x); d = x − μ; s = √(ReduceMean(d²) + ε); y = d / s · γ + β
//
// and likewise (rules in DecomposeRules.cpp and DecomposeFusedLinear.cpp):
//   Gelu                → x · (1 + erf(x/√2)) · ½, or the tanh form ("approximate": "tanh")
//   HardSwish           → x · HardSigmoid(x){alpha = 1/6, beta = ½}
//   Einsum              → Transpose / MatMul for a permutation or one contraction ("bij,bjk->bik")
//   RMSNormalization    → x / √(ReduceMean(x²) + ε) · γ
//   SkipLayerNormalization → s = x + (skip + bias); the LayerNormalization primitives of s (s is output 1)
//   Attention           → Softmax(Q · Transpose(K) · scale + mask (+ a constant causal mask)) · V
//                         (layout SND: Q, K, V transposed to [..., N, S, D] first, Y back)
//   FusedConv / FusedGemm / FusedMatMul → Conv / Gemm / MatMul (+ Add) + the activation's ops
//
// The primitives compute the op's formula step by step at the tensor's precision, so results
// differ from the fused kernels (which accumulate in double) by rounding only. Option `ops`: the op
// types to decompose, comma-separated (empty: all of them); an unknown name is an error that lists
// the known ones. A node a rule cannot express (an unknown rank where the axes depend on it, a
// dynamic causal length, an Einsum with a sum or "...") is left alone with the reason.
#include "passes/DecomposeSupport.h"
#include "passes/Match.h"

#include <algorithm>
#include <set>

namespace portolan::passes {

Emitter::Emitter(PassContext &cx, const ir::Node &node, int elementType,
                 std::vector<std::optional<onnx::TypeProto>> outputTypes)
    : m_cx(cx), m_node(node), m_type(elementType), m_opset(standardOpset(cx.model)), m_outputTypes(std::move(outputTypes))
{
}

ir::ValueId Emitter::op(const std::string &opType, const std::vector<ir::ValueId> &inputs,
                        std::vector<onnx::AttributeProto> attributes)
{
    const std::string hint = (m_node.name.empty() ? m_node.opType : m_node.name) + "/" + opType;
    const ir::ValueId out = m_cx.rewriter.createValue(m_node.graph, hint);
    m_cx.rewriter.createNode(m_node.graph, opType, "", inputs, {out}, std::move(attributes), hint, m_node.id, {m_node.id});
    ++m_created;
    return out;
}

ir::ValueId Emitter::scalar(double value)
{
    const runtime::Tensor d = runtime::Tensor::fromVector<double>(onnx::TensorProto::DOUBLE, {}, {value});
    return constant(fromDouble(d, m_type), "constant");
}

ir::ValueId Emitter::constant(const runtime::Tensor &tensor, const std::string &hint)
{
    return m_cx.rewriter.createInitializer(m_node.graph, (m_node.name.empty() ? m_node.opType : m_node.name) + "/" + hint,
                                           tensor);
}

ir::ValueId Emitter::ints(const std::vector<std::int64_t> &values)
{
    return constant(runtime::Tensor::fromVector<std::int64_t>(onnx::TensorProto::INT64,
                                                              {static_cast<std::int64_t>(values.size())}, values),
                    "axes");
}

ir::ValueId Emitter::reduceMean(ir::ValueId x, const std::vector<std::int64_t> &axes)
{
    if (m_opset >= 18)
        return op("ReduceMean", {x, ints(axes)}, {makeAttribute("keepdims", std::int64_t(1))});
    return op("ReduceMean", {x}, {makeAttribute("axes", axes), makeAttribute("keepdims", std::int64_t(1))});
}

ir::ValueId Emitter::transpose(ir::ValueId x, const std::vector<std::int64_t> &perm)
{
    bool identity = true;
    for (std::size_t i = 0; i < perm.size(); ++i)
        identity = identity && perm[i] == static_cast<std::int64_t>(i);
    return identity ? x : op("Transpose", {x}, {makeAttribute("perm", perm)});
}

void Emitter::replaceOutput(std::size_t index, ir::ValueId value)
{
    const ir::ValueId out = m_node.outputs[index];
    if (index < m_outputTypes.size() && m_outputTypes[index] && !m_cx.model.value(value).isInitializer() &&
        !isGraphInput(m_cx.model, value))
        m_cx.rewriter.setValueType(value, *m_outputTypes[index]);
    m_cx.rewriter.replaceAllUsesWith(out, value);
}

std::optional<std::vector<std::int64_t>> axesFrom(std::int64_t axis, std::optional<std::size_t> rank)
{
    if (axis >= 0) {
        if (!rank || axis >= static_cast<std::int64_t>(*rank))
            return std::nullopt;
        axis -= static_cast<std::int64_t>(*rank);
    } else if (rank && -axis > static_cast<std::int64_t>(*rank)) {
        return std::nullopt;
    }
    std::vector<std::int64_t> axes;
    for (std::int64_t a = axis; a < 0; ++a)
        axes.push_back(a);
    return axes;
}

namespace {

const std::vector<const DecomposeRule *> &allRules()
{
    static const std::vector<const DecomposeRule *> rules = [] {
        std::vector<const DecomposeRule *> out;
        for (const auto *list : {&transformerDecompositions(), &fusedLinearDecompositions()})
            for (const DecomposeRule &rule : *list)
                out.push_back(&rule);
        return out;
    }();
    return rules;
}

const DecomposeRule *ruleFor(const ir::Node &node)
{
    const bool standard = node.domain.empty() || node.domain == "ai.onnx";
    const bool portolan = node.domain == "ai.portolan";
    for (const DecomposeRule *rule : allRules())
        if (rule->opType == node.opType && ((standard && rule->standardDomain) || (portolan && rule->portolanDomain)))
            return rule;
    return nullptr;
}

/// The op types of option `ops` (all known ones when empty), or an error naming the unknown one.
support::Expected<std::set<std::string>> selectedOps(const std::string &text)
{
    std::set<std::string> known;
    for (const DecomposeRule *rule : allRules())
        known.insert(rule->opType);
    if (text.find_first_not_of(" ,") == std::string::npos)
        return known;
    std::set<std::string> selected;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        std::string name = text.substr(start, end - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        if (!name.empty() && !known.contains(name)) {
            std::string list;
            for (const std::string &k : known)
                list += (list.empty() ? "" : ", ") + k;
            return support::makeError("bad-option", "decompose: unknown op type '" + name + "' in option 'ops' (known: " +
                                                        list + ")");
        }
        if (!name.empty())
            selected.insert(name);
        start = end + 1;
    }
    return selected;
}

} // namespace

support::Status Decompose::run(PassContext &cx)
{
    auto selected = selectedOps(cx.options.text("ops"));
    if (!selected)
        return selected.error();
    ir::Model &model = cx.model;
    ShapeOracle shapes(model);
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId id : liveNodes(model, g)) {
            const ir::Node &node = model.node(id);
            const DecomposeRule *rule = ruleFor(node);
            if (!node.alive || !rule || !selected->contains(rule->opType))
                continue;
            const std::string pattern = "decompose-" + node.opType;
            const int type = node.inputs.empty() || !node.inputs[0].valid() ? 0 : shapes.elementType(node.inputs[0]);
            DecomposePlan plan = rule->plan(DecomposeInput{model, node, shapes, type});
            for (std::size_t i = rule->outputs; plan.why.empty() && i < node.outputs.size(); ++i)
                if (node.outputs[i].valid() && (!model.value(node.outputs[i]).uses.empty() || isGraphOutput(model, node.outputs[i])))
                    plan.why = "output " + std::to_string(i) + " is read (the primitives compute the first " +
                               std::to_string(rule->outputs) + " only)";
            if (!plan.why.empty()) {
                cx.rewriter.notifyMatchFailure(id, pattern, plan.why);
                continue;
            }
            if (!cx.rewriter.begin(pattern))
                return support::Status::ok();
            std::vector<std::optional<onnx::TypeProto>> outputTypes;
            for (const ir::ValueId out : node.outputs)
                outputTypes.push_back(shapes.type(out));
            Emitter emitter(cx, node, type, std::move(outputTypes));
            plan.emit(emitter);
            cx.rewriter.eraseNode(id);
            cx.rewriter.count("decomposed-" + node.opType);
            cx.rewriter.commit(node.opType + " → " + std::to_string(emitter.created()) + " nodes");
        }
    return support::Status::ok();
}

} // namespace portolan::passes
