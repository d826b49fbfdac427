// lower-precision: run the main graph at fp16 or bf16, or store Conv/MatMul/Gemm weights as int8.
//
// to=fp16 | bf16
//   Before: x(float) → Conv(W) → t → Relu → y(float)
//   After:  x → Cast(fp16) → Conv(W16) → Relu → Cast(float) → y
//   Every main-graph node that has a half-precision reference kernel (a known list: convolutions,
//   products, arithmetic, activations, pooling, data movement…) is recreated with its float
//   tensors at the target type: float initializers only it reads are converted (fp16 saturates at
//   ±65504), other float inputs get a Cast. The model's interface stays float: Casts back sit before
//   graph outputs and before every node kept in fp32. Kept in fp32, with the reason reported: nodes
//   matching `keep-fp32` (a regex searched in the node name and the op type), ops without a half
//   kernel, nodes with subgraphs, and nodes whose element types are unknown (run infer-shapes).
//   bf16 Casts need opset 13. Each node is its own rewrite, in topological order, and the graph is
//   valid after each one (a lowered node's readers see float through a Cast back until they are
//   lowered too), so a numeric failure bisects to the node whose lowering breaks it.
//
// to=int8 (weight-only)
//   Before: x → Conv(W) → y
//   After:  x → Conv(DequantizeLinear(Wq, scale, 0)) → y
//   The float constant weights of Conv, ConvTranspose, MatMul, Gemm and the fused ops are stored
//   as int8 with a symmetric per-output-channel scale (axis 0 for Conv, the N axis for MatMul and
//   Gemm; per-tensor before opset 13): scale = max|W_c| / 127, Wq = round(W / scale). The
//   QuantizeLinear half of the pair is folded already (the weight is constant). Activations stay
//   float: quantizing them needs calibration data, which is another issue's work. Each weight-reading
//   node is its own rewrite.
//
// The numeric check of this pass is expected to exceed 1e-5.
#include "passes/CanonicalForms.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"
#include "passes/Pass.h"

#include "ir/Topology.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string_view>
#include <unordered_map>

namespace portolan::passes {

namespace {

using runtime::Tensor;
constexpr int kFloat = onnx::TensorProto::FLOAT;

/// Ops whose reference kernel computes float16/bfloat16 (and whose float inputs share one type).
bool hasHalfKernel(const ir::Node &node)
{
    static const std::set<std::string_view> standard{
        "Conv", "ConvTranspose", "MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Clip", "Relu",
        "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish", "Erf", "Exp", "Log", "Sqrt", "Neg", "Abs",
        "Reciprocal", "Softplus", "Elu", "Where", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
        "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze", "Concat", "Split", "Slice", "Identity", "Expand",
        "Tile", "Shape"};
    static const std::set<std::string_view> portolan{"FusedConv", "FusedGemm", "FusedMatMul"};
    if (node.domain == "ai.portolan")
        return portolan.contains(node.opType);
    return (node.domain.empty() || node.domain == "ai.onnx") && standard.contains(node.opType);
}

bool hasSubgraphs(const ir::Node &node)
{
    return std::any_of(node.attributes.begin(), node.attributes.end(),
                       [](const ir::Attribute &a) { return !a.subgraphs.empty(); });
}

onnx::TypeProto withElementType(std::optional<onnx::TypeProto> type, int elementType)
{
    onnx::TypeProto out = type ? *type : onnx::TypeProto();
    out.mutable_tensor_type()->set_elem_type(elementType);
    return out;
}

/// How a rewrite's detail names `node`: its name, or its op and first output when it has none.
std::string nodeLabel(const ir::Model &model, const ir::Node &node)
{
    if (!node.name.empty())
        return "'" + node.name + "' (" + node.opType + ")";
    const bool hasOutput = !node.outputs.empty() && node.outputs[0].valid();
    return node.opType + (hasOutput ? " producing '" + model.value(node.outputs[0]).name + "'" : "");
}

bool matchesKeep(const ir::Node &node, const std::optional<std::regex> &keep)
{
    return keep && (std::regex_search(node.name, *keep) || std::regex_search(node.opType, *keep));
}

/// The fp16 / bf16 lowering of one graph, one rewrite per node. After every rewrite the graph is
/// whole: a lowered node's float outputs are read through a Cast back to float, which the rewrite
/// lowering the last of its readers removes again. So any prefix of the rewrites is a valid model,
/// which is what the pass manager's bisection of a numeric failure needs.
class HalfLowering {
public:
    HalfLowering(PassContext &cx, int half, const std::string &suffix, const std::optional<std::regex> &keep)
        : m_cx(cx), m_model(cx.model), m_halfType(half), m_suffix(suffix), m_keep(keep), m_types(cx.model)
    {
    }

    support::Status run(ir::GraphId graph)
    {
        auto order = ir::topologicalOrder(m_model, graph);
        if (!order)
            return order.takeError();
        std::vector<ir::NodeId> lowered;
        for (const ir::NodeId n : *order)
            if (decide(m_model.node(n)))
                lowered.push_back(n);
        for (const ir::NodeId n : lowered) {
            if (!m_cx.rewriter.begin("lower-" + m_suffix))
                break; // the budget is spent: the rest stays fp32 behind the Casts already in place
            const ir::Node &node = m_model.node(n);
            const std::string label = nodeLabel(m_model, node);
            lower(node);
            m_cx.rewriter.count("lowered-nodes");
            m_cx.rewriter.commit(label + " at " + m_suffix);
        }
        return support::Status::ok();
    }

private:
    /// Whether `node` runs at half precision; a float node kept in fp32 is reported.
    bool decide(const ir::Node &node)
    {
        bool touchesFloat = false, unknown = false;
        for (const auto *list : {&node.inputs, &node.outputs})
            for (const ir::ValueId v : *list) {
                if (!v.valid())
                    continue;
                const int t = m_types.elementType(v);
                touchesFloat = touchesFloat || t == kFloat;
                unknown = unknown || t == 0;
            }
        if (!touchesFloat || isOp(node, "Constant")) // a float Constant feeds lowered readers through a Cast
            return false;
        std::string why;
        if (matchesKeep(node, m_keep))
            why = "matches keep-fp32";
        else if (hasSubgraphs(node))
            why = node.opType + " has subgraphs";
        else if (!hasHalfKernel(node))
            why = node.opType + " has no half-precision reference kernel";
        else if (unknown)
            why = "element types are unknown (run infer-shapes first)";
        if (why.empty())
            return true;
        m_cx.rewriter.notifyMatchFailure(node.id, "lower-" + m_suffix, "kept in fp32: " + why);
        m_cx.rewriter.count("kept-fp32");
        return false;
    }

    ir::ValueId cast(ir::ValueId value, int to, ir::NodeId standsFor, const std::optional<onnx::TypeProto> &type)
    {
        const ir::GraphId graph = m_model.node(standsFor).graph;
        const onnx::TypeProto t = withElementType(type, to);
        const ir::ValueId out = m_cx.rewriter.createValue(
            graph, m_model.value(value).name + (to == kFloat ? "_fp32" : "_" + m_suffix), &t);
        m_cx.rewriter.createNode(graph, "Cast", "", {value}, {out}, {makeAttribute("to", std::int64_t(to))}, "Cast",
                                 standsFor, {standsFor});
        m_cx.rewriter.count("casts");
        return out;
    }

    /// The half-precision version of float value `v`, read by lowered node `consumer`: the value a
    /// lowered producer computed, a converted initializer, or a Cast.
    ir::ValueId halfOf(ir::ValueId v, const ir::Node &consumer)
    {
        if (auto it = m_half.find(v); it != m_half.end())
            return it->second;
        const ir::Value &value = m_model.value(v);
        ir::ValueId h;
        if (value.isInitializer() && value.graph == consumer.graph && !isGraphInput(m_model, v)) {
            if (auto t = constantValue(m_model, v)) {
                Tensor d = asDouble(*t);
                const double limit = m_halfType == onnx::TensorProto::FLOAT16 ? 65504.0 : 3.38e38;
                double *p = d.mutableData<double>();
                for (std::int64_t i = 0; i < d.size(); ++i)
                    p[i] = std::clamp(p[i], -limit, limit);
                h = m_cx.rewriter.createInitializer(value.graph, value.name + "_" + m_suffix, fromDouble(d, m_halfType));
                m_cx.rewriter.count("converted-initializers");
            }
        }
        if (!h.valid())
            h = cast(v, m_halfType, consumer.id, m_types.type(v));
        m_half[v] = h;
        return h;
    }

    /// Recreates `node` at half precision; its readers read the new outputs (float ones through a Cast
    /// back) and what only it read goes.
    void lower(const ir::Node &node)
    {
        std::vector<ir::ValueId> inputs;
        for (const ir::ValueId in : node.inputs)
            inputs.push_back(in.valid() && m_types.elementType(in) == kFloat ? halfOf(in, node) : in);
        std::vector<ir::ValueId> outputs;
        for (const ir::ValueId o : node.outputs) {
            if (!o.valid()) {
                outputs.push_back(o);
                continue;
            }
            const int type = m_types.elementType(o);
            const onnx::TypeProto t = withElementType(m_types.type(o), type == kFloat ? m_halfType : type);
            outputs.push_back(m_cx.rewriter.createValue(node.graph, m_model.value(o).name + "_" + m_suffix, &t));
        }
        std::vector<onnx::AttributeProto> attributes;
        for (const ir::Attribute &a : node.attributes)
            attributes.push_back(a.proto);
        m_cx.rewriter.createNode(node.graph, node.opType, node.domain, inputs, outputs, std::move(attributes), node.name,
                                 node.id, {node.id});
        for (std::size_t i = 0; i < node.outputs.size(); ++i)
            if (node.outputs[i].valid())
                redirectReaders(node, node.outputs[i], outputs[i]);
        const std::set<ir::ValueId> read(node.inputs.begin(), node.inputs.end());
        m_cx.rewriter.eraseNode(node.id);
        for (const ir::ValueId in : read)
            dropIfUnread(in);
    }

    /// The readers of `node`'s output `old` read `replacement` (through a Cast back when it is half).
    void redirectReaders(const ir::Node &node, ir::ValueId old, ir::ValueId replacement)
    {
        const ir::Value &value = m_model.value(old);
        if (value.uses.empty() && !isGraphOutput(m_model, old))
            return;
        if (m_types.elementType(old) != kFloat) {
            m_cx.rewriter.replaceAllUsesWith(old, replacement);
            return;
        }
        const ir::ValueId back = cast(replacement, kFloat, node.id, m_types.type(old));
        m_half[back] = replacement; // a reader lowered later skips the Cast
        m_cx.rewriter.replaceAllUsesWith(old, back);
    }

    /// Removes a converted initializer or a Cast back to float that no reader needs any more.
    void dropIfUnread(ir::ValueId v)
    {
        if (!v.valid() || !m_half.contains(v) || !m_model.value(v).uses.empty() || isGraphOutput(m_model, v))
            return;
        if (m_model.value(v).isInitializer()) {
            m_cx.rewriter.eraseInitializer(v);
        } else if (const ir::Node *castBack = producerOf(m_model, v, "Cast")) {
            m_cx.rewriter.eraseNode(castBack->id);
            m_cx.rewriter.count("casts", -1); // net count: this Cast was only needed until now
        }
    }

    PassContext &m_cx;
    ir::Model &m_model;
    int m_halfType;
    std::string m_suffix;
    const std::optional<std::regex> &m_keep;
    ShapeOracle m_types;
    std::unordered_map<ir::ValueId, ir::ValueId> m_half; // float value → its half version
};

/// The symmetric int8 form of a float weight: per channel along `axis`, per tensor when it is -1.
struct QuantizedWeight {
    Tensor values; // int8
    Tensor scale;  // float, [channels] or a scalar
};

QuantizedWeight quantizeSymmetric(const Tensor &w, std::int64_t axis)
{
    const std::int64_t channels = axis < 0 ? 1 : w.dim(static_cast<std::size_t>(axis));
    std::int64_t inner = 1;
    for (std::size_t k = static_cast<std::size_t>(axis + 1); axis >= 0 && k < w.rank(); ++k)
        inner *= w.dim(k);
    auto channelOf = [&](std::int64_t i) { return static_cast<std::size_t>(axis < 0 ? 0 : (i / inner) % channels); };
    const float *src = w.data<float>();
    std::vector<float> scale(static_cast<std::size_t>(channels), 0.0f);
    for (std::int64_t i = 0; i < w.size(); ++i)
        scale[channelOf(i)] = std::max(scale[channelOf(i)], std::fabs(src[i]));
    for (float &s : scale)
        s = s > 0 ? s / 127.0f : 1.0f;
    Tensor q = Tensor::zeros(onnx::TensorProto::INT8, w.shape());
    for (std::int64_t i = 0; i < w.size(); ++i)
        q.mutableData<std::int8_t>()[i] =
            static_cast<std::int8_t>(std::clamp(std::nearbyint(src[i] / scale[channelOf(i)]), -127.0f, 127.0f));
    const runtime::Shape scaleShape = axis < 0 ? runtime::Shape{} : runtime::Shape{channels};
    return {std::move(q), Tensor::fromVector<float>(kFloat, scaleShape, scale)};
}

/// The channel axis a weight of `host` is quantized along (-1: per tensor).
std::int64_t quantizationAxis(const ir::Node &host, const Tensor &w, bool perChannel)
{
    const bool conv = host.opType.find("Conv") != std::string::npos;
    if (!perChannel || (!conv && w.rank() != 2))
        return -1;
    if (conv)
        return host.opType == "ConvTranspose" ? 1 : 0;
    return attrInt(host, "transB", 0) != 0 ? 0 : static_cast<std::int64_t>(w.rank()) - 1;
}

/// Inside an open rewrite: DequantizeLinear(Wq, scale, 0) computing `weight` from its int8 form.
ir::ValueId createDequantized(PassContext &cx, const ir::Node &host, ir::ValueId weight, const Tensor &w,
                              std::int64_t axis)
{
    const ir::GraphId g = host.graph;
    QuantizedWeight q = quantizeSymmetric(w, axis);
    const std::string &name = cx.model.value(weight).name;
    const ir::ValueId qv = cx.rewriter.createInitializer(g, name + "_int8", q.values);
    const ir::ValueId sv = cx.rewriter.createInitializer(g, name + "_scale", q.scale);
    const ir::ValueId zv =
        cx.rewriter.createInitializer(g, name + "_zero_point", Tensor::zeros(onnx::TensorProto::INT8, q.scale.shape()));
    const onnx::TypeProto t = withElementType(cx.model.value(weight).info.type(), kFloat);
    const ir::ValueId dq = cx.rewriter.createValue(g, name + "_dequantized", &t);
    std::vector<onnx::AttributeProto> attributes;
    // written as canonicalize would leave it (axis 1 is the default), so -O3 stays idempotent
    const onnx::AttributeProto axisAttribute = makeAttribute("axis", axis);
    if (axis >= 0 && !holdsSchemaDefault(cx.model, "DequantizeLinear", "", axisAttribute))
        attributes.push_back(axisAttribute);
    cx.rewriter.createNode(g, "DequantizeLinear", "", {qv, sv, zv}, {dq}, std::move(attributes), name + "_DequantizeLinear",
                           host.id, {host.id});
    cx.rewriter.count("quantized-weights");
    return dq;
}

bool hostsQuantizedWeight(const ir::Node &node)
{
    static const std::set<std::string_view> hosts{"Conv", "ConvTranspose", "MatMul", "Gemm",
                                                  "FusedConv", "FusedGemm", "FusedMatMul"};
    const bool known = node.domain.empty() || node.domain == "ai.onnx" || node.domain == "ai.portolan";
    return known && hosts.contains(node.opType) && node.inputs.size() >= 2;
}

/// int8 weight-only quantization of every graph, one rewrite per weight-reading node (a weight two
/// nodes share is quantized once, by the first).
void quantizeWeights(PassContext &cx, const std::optional<std::regex> &keep)
{
    ir::Model &model = cx.model;
    const bool perChannel = standardOpset(model) >= 13;
    std::map<std::pair<ir::ValueId, std::int64_t>, ir::ValueId> done; // (weight, axis) → dequantized
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId n : liveNodes(model, g)) {
            const ir::Node &node = model.node(n);
            if (!hostsQuantizedWeight(node))
                continue;
            if (matchesKeep(node, keep)) {
                cx.rewriter.notifyMatchFailure(n, "weight-qdq", "kept in fp32: matches keep-fp32");
                continue;
            }
            const ir::ValueId weight = node.inputs[1];
            const auto w = constantValue(model, weight);
            if (!w || w->dataType() != kFloat || w->rank() < 1) {
                cx.rewriter.notifyMatchFailure(n, "weight-qdq", node.opType + " weight is not a float constant");
                continue;
            }
            const std::int64_t axis = quantizationAxis(node, *w, perChannel);
            if (!cx.rewriter.begin("weight-qdq"))
                return;
            auto &dq = done[{weight, axis}];
            if (!dq.valid())
                dq = createDequantized(cx, node, weight, *w, axis);
            cx.rewriter.setInput(n, 1, dq);
            const ir::Value &old = model.value(weight);
            if (old.isInitializer() && old.uses.empty() && !isGraphOutput(model, weight) && !isGraphInput(model, weight))
                cx.rewriter.eraseInitializer(weight);
            cx.rewriter.commit(nodeLabel(model, node) + " weight at int8");
        }
}

} // namespace

support::Status LowerPrecision::run(PassContext &cx)
{
    const std::string &to = cx.options.text("to");
    std::optional<std::regex> keep;
    if (const std::string &pattern = cx.options.text("keep-fp32"); !pattern.empty()) {
        try {
            keep.emplace(pattern);
        } catch (const std::regex_error &e) {
            return support::makeError("bad-option", "lower-precision: keep-fp32 '" + pattern +
                                                        "' is not a valid regex: " + e.what());
        }
    }
    if (to == "int8") {
        if (standardOpset(cx.model) < 10)
            return support::makeError("bad-opset", "lower-precision: int8 needs opset 10 or later (DequantizeLinear)");
        quantizeWeights(cx, keep);
        return support::Status::ok();
    }
    if (to != "fp16" && to != "bf16")
        return support::makeError("bad-option", "lower-precision: to must be fp16, bf16 or int8, not '" + to + "'");
    if (to == "bf16" && standardOpset(cx.model) < 13)
        return support::makeError("bad-opset", "lower-precision: bf16 needs opset 13 or later (Cast to bfloat16)");
    HalfLowering lowering(cx, to == "fp16" ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::BFLOAT16, to, keep);
    return lowering.run(cx.model.mainGraph());
}

} // namespace portolan::passes
