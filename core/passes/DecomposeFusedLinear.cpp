// decompose's rules for the ai.portolan linear fusions (docs/portolan-ops.md): FusedConv, FusedGemm
// and FusedMatMul become the standard Conv / Gemm / MatMul, the Add of their residual or bias, and
// the ops of their activation.
#include "passes/DecomposeSupport.h"
#include "runtime/Dispatch.h"
#include "passes/Match.h"

#include <limits>

namespace portolan::passes {

namespace {

/// Why the node's `activation` cannot be written with standard ops at this opset (nullopt: it can).
std::optional<std::string> activationProblem(const DecomposeInput &in)
{
    const std::string name = attrString(in.node, "activation", "");
    static const std::vector<std::string> known{"",           "Relu",      "Clip", "LeakyRelu", "Sigmoid",
                                                "HardSigmoid", "HardSwish", "Tanh", "Gelu",      "GeluTanh"};
    if (std::find(known.begin(), known.end(), name) == known.end())
        return "unknown activation '" + name + "'";
    if (name == "Gelu" && standardOpset(in.model) < 9)
        return "the Gelu activation needs Erf (opset 9)";
    if (!runtime::kernels::isFloatingType(in.elementType))
        return "the input is not known to be a floating-point tensor";
    return std::nullopt;
}

/// The activation of `node` applied to `x`.
ir::ValueId emitActivation(Emitter &e, const ir::Node &node, ir::ValueId x)
{
    const std::string name = attrString(node, "activation", "");
    const std::vector<float> p = attrFloats(node, "activation_params");
    const auto param = [&](std::size_t i, float fallback) { return i < p.size() ? p[i] : fallback; };
    if (name.empty())
        return x;
    if (name == "Relu" || name == "Sigmoid" || name == "Tanh")
        return e.op(name, {x});
    if (name == "LeakyRelu")
        return e.op(name, {x}, {makeAttribute("alpha", param(0, 0.01f))});
    if (name == "HardSigmoid")
        return e.op(name, {x}, {makeAttribute("alpha", param(0, 0.2f)), makeAttribute("beta", param(1, 0.5f))});
    if (name == "HardSwish")
        return e.opset() >= 14 ? e.op(name, {x})
                               : e.op("Mul", {x, e.op("HardSigmoid", {x}, {makeAttribute("alpha", 1.0f / 6.0f),
                                                                            makeAttribute("beta", 0.5f)})});
    if (name == "Clip") {
        const float lo = param(0, std::numeric_limits<float>::lowest()), hi = param(1, std::numeric_limits<float>::max());
        if (e.opset() >= 11)
            return e.op("Clip", {x, e.scalar(lo), e.scalar(hi)});
        return e.op("Clip", {x}, {makeAttribute("min", lo), makeAttribute("max", hi)});
    }
    return emitGelu(e, x, name == "GeluTanh");
}

ir::ValueId inputOf(const ir::Node &node, std::size_t i)
{
    return i < node.inputs.size() ? node.inputs[i] : ir::ValueId();
}

/// The base op reading inputs [0, arity) (an omitted trailing input dropped), then + input
/// `addend` when present, then the activation.
DecomposePlan fused(const DecomposeInput &in, const char *base, std::size_t arity, std::size_t addend,
                    std::vector<std::string> keptAttributes)
{
    if (auto problem = activationProblem(in))
        return declined(*problem);
    const ir::Node &n = in.node;
    return {{}, [&n, base, arity, addend, kept = std::move(keptAttributes)](Emitter &e) {
                std::vector<ir::ValueId> inputs;
                for (std::size_t i = 0; i < arity; ++i)
                    inputs.push_back(inputOf(n, i));
                while (!inputs.empty() && !inputs.back().valid())
                    inputs.pop_back();
                ir::ValueId y = e.op(base, inputs, copyAttributes(n, kept));
                if (addend != 0 && inputOf(n, addend).valid())
                    y = e.op("Add", {y, n.inputs[addend]});
                e.replaceOutput(0, emitActivation(e, n, y));
            }};
}

DecomposePlan fusedConv(const DecomposeInput &in)
{
    return fused(in, "Conv", 3, 3, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
}

DecomposePlan fusedGemm(const DecomposeInput &in)
{
    return fused(in, "Gemm", 3, 0, {"alpha", "beta", "transA", "transB"});
}

DecomposePlan fusedMatMul(const DecomposeInput &in)
{
    return fused(in, "MatMul", 2, 2, {});
}

} // namespace

const std::vector<DecomposeRule> &fusedLinearDecompositions()
{
    static const std::vector<DecomposeRule> rules{
        {"FusedConv", false, true, fusedConv},
        {"FusedGemm", false, true, fusedGemm},
        {"FusedMatMul", false, true, fusedMatMul},
    };
    return rules;
}

} // namespace portolan::passes
