// fuse-elementwise: merge each maximal tree of elementwise ops into one FusedElementwise node.
//
//   Before: a, b → Add → t → Sigmoid → u → Mul(u, c) → y
//   After:  a, b, c → FusedElementwise{body: (a, b, c) → Add → Sigmoid → Mul → y} → y
//
// Members: standard unary math and activations, broadcasting arithmetic, comparison and logic, Max,
// Min, Where, Clip, and Pow with a constant exponent, all in the same graph. A producer joins its
// consumer's group when its output has that one use and is no graph output, so every group is a
// tree whose inner values nothing else reads. The node's inputs are the tree's leaves (each value
// once), its output is the root's; the body holds copies of the member nodes (each standing for the
// node it copies) and runs on the reference kernels, so numerics are unchanged. Groups shorter than
// `min-length` stay as they are. FusedElementwise is an ai.portolan op: declined in standard-only mode.
#include "opset/PortolanOps.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"
#include "passes/Pass.h"
#include "passes/SubgraphBuilder.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

namespace portolan::passes {

namespace {

bool isElementwise(const ir::Model &model, const ir::Node &node)
{
    static const std::set<std::string_view> ops{
        "Abs",      "Neg",         "Reciprocal", "Sqrt",    "Exp",       "Log",      "Sin",  "Cos",   "Tanh",
        "Sigmoid",  "Erf",         "Floor",      "Ceil",    "Relu",      "LeakyRelu", "Elu", "Selu",  "Softplus",
        "Softsign", "HardSigmoid", "HardSwish",  "Sign",    "Not",       "Add",      "Sub",  "Mul",   "Div",
        "Max",      "Min",         "Where",      "Clip",    "Equal",     "Less",     "Greater", "LessOrEqual",
        "GreaterOrEqual", "And",   "Or",         "Xor",     "Pow"};
    if (!node.alive || !(node.domain.empty() || node.domain == "ai.onnx") || !ops.contains(node.opType))
        return false;
    if (node.outputs.size() != 1 || !node.outputs[0].valid() || node.inputs.empty())
        return false;
    if (node.opType == "Pow")
        return node.inputs.size() == 2 && constantValue(model, node.inputs[1]).has_value();
    return true;
}

/// A group: members producers first, and the leaves (values read from outside, once each).
struct Group {
    std::vector<ir::NodeId> members;
    std::vector<ir::ValueId> leaves;
};

/// The member whose output `value` is, when that producer joins the group of the node reading it.
const ir::Node *joiningProducer(const ir::Model &model, const ir::Node &consumer, ir::ValueId value)
{
    const ir::Node *p = producerOf(model, value);
    if (p == nullptr || p->graph != consumer.graph || !isElementwise(model, *p) || !hasSingleUse(model, value))
        return nullptr;
    return p;
}

void collect(const ir::Model &model, const ir::Node &node, Group &group, int depth)
{
    for (const ir::ValueId in : node.inputs) {
        if (!in.valid())
            continue;
        if (const ir::Node *p = depth < 256 ? joiningProducer(model, node, in) : nullptr)
            collect(model, *p, group, depth + 1); // a deeper tree is cut into several groups
        else if (std::find(group.leaves.begin(), group.leaves.end(), in) == group.leaves.end())
            group.leaves.push_back(in);
    }
    group.members.push_back(node.id);
}

/// Whether `node` is the root of its group: its output does not join a consumer's group.
bool isRoot(const ir::Model &model, const ir::Node &node)
{
    const ir::ValueId out = node.outputs[0];
    if (!hasSingleUse(model, out))
        return true;
    const ir::Node &consumer = model.node(model.value(out).uses.front().node);
    return !isElementwise(model, consumer) || joiningProducer(model, consumer, out) == nullptr;
}

onnx::TypeProto typeOf(const ir::Model &model, ir::ValueId value)
{
    const ir::Value &v = model.value(value);
    if (v.info.has_type())
        return v.info.type();
    onnx::TypeProto type;
    if (const int element = elementTypeOf(model, value))
        type.mutable_tensor_type()->set_elem_type(element);
    return type;
}

void fuseGroup(PassContext &cx, const Group &group)
{
    ir::Model &model = cx.model;
    const ir::Node &root = model.node(group.members.back());
    const ir::GraphId graph = root.graph;
    const ir::ValueId result = root.outputs[0];
    const onnx::TypeProto resultType = typeOf(model, result);
    importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
    const ir::ValueId out = cx.rewriter.createValue(graph, model.value(result).name,
                                                    resultType.has_tensor_type() ? &resultType : nullptr);
    const ir::NodeId fused = cx.rewriter.createNode(graph, "FusedElementwise", opset::kPortolanDomain, group.leaves, {out},
                                                    {}, fusedNodeName(model.node(group.members.front()), "FusedElementwise"),
                                                    root.id);
    const std::string prefix = model.node(fused).name;
    const ir::GraphId body = attachSubgraph(model, fused, "body", prefix + "_body");
    std::unordered_map<ir::ValueId, ir::ValueId> inner;
    for (std::size_t i = 0; i < group.leaves.size(); ++i)
        inner[group.leaves[i]] = addSubgraphInput(cx.rewriter, body, prefix + "/in" + std::to_string(i),
                                                  typeOf(model, group.leaves[i]));
    for (const ir::NodeId m : group.members) {
        const ir::Node &node = model.node(m);
        std::vector<ir::ValueId> inputs;
        for (const ir::ValueId in : node.inputs)
            inputs.push_back(in.valid() ? inner.at(in) : ir::ValueId());
        std::vector<onnx::AttributeProto> attributes;
        for (const ir::Attribute &a : node.attributes)
            attributes.push_back(a.proto);
        const ir::ValueId o = cx.rewriter.createValue(body, prefix + "/" + model.value(node.outputs[0]).name);
        cx.rewriter.createNode(body, node.opType, node.domain, inputs, {o}, std::move(attributes), node.name, {}, {m});
        inner[node.outputs[0]] = o;
    }
    addSubgraphOutput(cx.rewriter, body, inner.at(result), resultType);
    cx.rewriter.replaceAllUsesWith(result, out);
    for (auto it = group.members.rbegin(); it != group.members.rend(); ++it)
        cx.rewriter.eraseNode(*it);
}

} // namespace

support::Status FuseElementwise::run(PassContext &cx)
{
    auto minLength = cx.options.integer("min-length");
    if (!minLength)
        return minLength.takeError();
    if (*minLength < 1)
        return support::makeError("bad-option", "fuse-elementwise: min-length must be 1 or more, got " +
                                                    std::to_string(*minLength));
    ir::Model &model = cx.model;
    for (const ir::GraphId g : liveGraphs(model)) {
        const ir::NodeId owner = model.graph(g).ownerNode;
        if (owner.valid() && model.node(owner).opType == "FusedElementwise" &&
            model.node(owner).domain == opset::kPortolanDomain)
            continue; // a body is a fused group already
        const std::vector<ir::NodeId> nodes = liveNodes(model, g);
        for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
            const ir::Node &node = model.node(*it);
            if (!isElementwise(model, node) || !isRoot(model, node))
                continue;
            Group group;
            collect(model, node, group, 0);
            if (static_cast<std::int64_t>(group.members.size()) < *minLength)
                continue;
            if (cx.standardOnly) {
                cx.rewriter.notifyMatchFailure(node.id, "elementwise-chain",
                                               "standard-only: FusedElementwise is not a standard op");
                continue;
            }
            if (!cx.rewriter.begin("elementwise-chain"))
                return support::Status::ok();
            std::string ops;
            for (const ir::NodeId m : group.members)
                ops += (ops.empty() ? "" : ", ") + model.node(m).opType;
            fuseGroup(cx, group);
            cx.rewriter.count("fused-groups");
            cx.rewriter.count("fused-nodes", static_cast<std::int64_t>(group.members.size()));
            cx.rewriter.commit(std::to_string(group.members.size()) + " ops: " + ops);
        }
    }
    return support::Status::ok();
}

} // namespace portolan::passes
