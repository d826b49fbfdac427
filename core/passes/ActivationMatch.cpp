// Reading activations off their nodes, and folding them into the op that produces their input.
#include "passes/ActivationMatch.h"

#include "opset/PortolanOps.h"
#include "passes/FusionSupport.h"
#include "passes/Match.h"

#include <array>
#include <limits>
#include <string_view>

namespace portolan::passes {

namespace {

constexpr std::array<std::string_view, 7> kActivations{"Relu",        "Clip",      "LeakyRelu", "Sigmoid",
                                                       "HardSigmoid", "HardSwish", "Tanh"};

bool isGelu(const ir::Node &node)
{
    return node.alive && node.opType == "Gelu" && (node.domain == opset::kPortolanDomain || isOp(node, "Gelu"));
}

/// Clip's bound from its input `index` (opset ≥ 11) or attribute (older), `fallback` when absent.
std::optional<float> clipBound(const ir::Model &model, const ir::Node &node, std::size_t index, const char *name,
                               float fallback, std::string &why)
{
    if (standardOpset(model) < 11)
        return attrFloat(node, name, fallback);
    if (index >= node.inputs.size() || !node.inputs[index].valid())
        return fallback;
    const auto value = scalarConstant(model, node.inputs[index]);
    if (!value) {
        why = std::string("Clip ") + name + " is not a constant";
        return std::nullopt;
    }
    return static_cast<float>(*value);
}

const ActivationHost *hostOf(const ir::Node &producer, const std::vector<ActivationHost> &hosts)
{
    for (const ActivationHost &h : hosts) {
        const bool domainMatches = h.domain.empty() ? isOp(producer, h.opType)
                                                    : producer.alive && producer.domain == h.domain &&
                                                          producer.opType == h.opType;
        if (domainMatches)
            return &h;
    }
    return nullptr;
}

} // namespace

bool isActivationOp(const ir::Node &node, bool withGelu)
{
    for (const std::string_view name : kActivations)
        if (isOp(node, name))
            return true;
    return withGelu && isGelu(node);
}

std::optional<FusedActivation> readActivation(const ir::Model &model, const ir::Node &node, std::string &why)
{
    const std::string &op = node.opType;
    if (isGelu(node)) {
        const std::string approximate = attrString(node, "approximate", "none");
        if (approximate == "none")
            return FusedActivation{"Gelu", {}};
        if (approximate == "tanh")
            return FusedActivation{"GeluTanh", {}};
        why = "Gelu approximate '" + approximate + "' is unknown";
        return std::nullopt;
    }
    if (op == "LeakyRelu")
        return FusedActivation{op, {attrFloat(node, "alpha", 0.01f)}};
    if (op == "HardSigmoid")
        return FusedActivation{op, {attrFloat(node, "alpha", 0.2f), attrFloat(node, "beta", 0.5f)}};
    if (op == "Clip") {
        const auto lo = clipBound(model, node, 1, "min", std::numeric_limits<float>::lowest(), why);
        if (!lo)
            return std::nullopt;
        const auto hi = clipBound(model, node, 2, "max", std::numeric_limits<float>::max(), why);
        if (!hi)
            return std::nullopt;
        return FusedActivation{op, {*lo, *hi}};
    }
    return FusedActivation{op, {}};
}

std::vector<onnx::AttributeProto> activationAttributes(const FusedActivation &activation)
{
    std::vector<onnx::AttributeProto> out{makeAttribute("activation", activation.name)};
    if (!activation.params.empty())
        out.push_back(makeAttribute("activation_params", activation.params));
    return out;
}

support::Status fuseActivations(PassContext &cx, const std::vector<ActivationHost> &hosts, bool withGelu,
                                const std::string &pattern)
{
    ir::Model &model = cx.model;
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId n : liveNodes(model, g)) {
            const ir::Node &act = model.node(n);
            if (!isActivationOp(act, withGelu) || act.inputs.empty() || act.outputs.empty())
                continue;
            const ir::Node *producer = producerOf(model, act.inputs[0]);
            const ActivationHost *host = producer ? hostOf(*producer, hosts) : nullptr;
            if (host == nullptr)
                continue;
            if (cx.standardOnly) {
                cx.rewriter.notifyMatchFailure(producer->id, pattern,
                                               "standard-only: " + host->fusedOp + " is not a standard op");
                continue;
            }
            if (!attrString(*producer, "activation", "").empty()) {
                cx.rewriter.notifyMatchFailure(producer->id, pattern, producer->opType + " already has an activation");
                continue;
            }
            if (auto problem = singleUseProblem(model, producer->outputs[0], producer->opType + " output")) {
                cx.rewriter.notifyMatchFailure(producer->id, pattern, *problem);
                continue;
            }
            std::string why;
            const auto activation = readActivation(model, act, why);
            if (!activation) {
                cx.rewriter.notifyMatchFailure(act.id, pattern, why);
                continue;
            }
            if (!cx.rewriter.begin(pattern))
                return support::Status::ok();
            std::vector<onnx::AttributeProto> attributes = copyAttributes(*producer, host->keptAttributes);
            for (auto &a : activationAttributes(*activation))
                attributes.push_back(std::move(a));
            const std::vector<ir::ValueId> inputs = producer->inputs;
            const std::string detail = producer->opType + " + " + act.opType;
            importDomain(model, opset::kPortolanDomain, opset::kPortolanDomainVersion);
            replaceChain(cx, host->fusedOp, opset::kPortolanDomain, inputs, std::move(attributes), act.outputs[0],
                         {producer->id, act.id});
            cx.rewriter.count("fused");
            cx.rewriter.commit(detail);
        }
    return support::Status::ok();
}

} // namespace portolan::passes
