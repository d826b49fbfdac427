// Reference kernels of the ai.portolan linear fusions: FusedConv, FusedGemm and FusedMatMul run the
// standard Conv / Gemm / MatMul kernel, then one epilogue (residual or bias, then the activation,
// with the same formulas as the unfused kernels); FusedElementwise runs its body subgraph.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"

#include "ir/Type.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>

namespace portolan::runtime::kernels {

// The standard kernels the fused ones build on (LinearAlgebra.cpp, Convolution.cpp).
support::Status conv(KernelContext &ctx);
support::Status gemm(KernelContext &ctx);
support::Status matMul(KernelContext &ctx);

namespace {

double sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

/// The activation named by the node's `activation` attribute as a function on doubles.
support::Expected<std::function<double(double)>> activationOf(KernelContext &ctx)
{
    const std::string name = ctx.attrString("activation", "");
    const std::vector<float> p = ctx.attrFloats("activation_params");
    auto param = [&](std::size_t i, float fallback) { return static_cast<double>(i < p.size() ? p[i] : fallback); };
    if (name.empty())
        return std::function<double(double)>([](double x) { return x; });
    if (name == "Relu")
        return std::function<double(double)>([](double x) { return x > 0 || std::isnan(x) ? x : 0.0; });
    if (name == "Sigmoid")
        return std::function<double(double)>(sigmoid);
    if (name == "Tanh")
        return std::function<double(double)>([](double x) { return std::tanh(x); });
    if (name == "HardSwish")
        return std::function<double(double)>([](double x) { return x * std::clamp(x / 6.0 + 0.5, 0.0, 1.0); });
    if (name == "LeakyRelu") {
        const double alpha = param(0, 0.01f);
        return std::function<double(double)>([alpha](double x) { return x >= 0 ? x : alpha * x; });
    }
    if (name == "HardSigmoid") {
        const double alpha = param(0, 0.2f), beta = param(1, 0.5f);
        return std::function<double(double)>([alpha, beta](double x) { return std::clamp(alpha * x + beta, 0.0, 1.0); });
    }
    if (name == "Clip") {
        const double lo = param(0, std::numeric_limits<float>::lowest());
        const double hi = param(1, std::numeric_limits<float>::max());
        return std::function<double(double)>([lo, hi](double x) { return x < lo ? lo : (x > hi ? hi : x); });
    }
    if (name == "Gelu")
        return std::function<double(double)>([](double x) { return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)); });
    if (name == "GeluTanh") {
        const double k = std::sqrt(2.0 / std::numbers::pi);
        return std::function<double(double)>(
            [k](double x) { return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x))); });
    }
    return ctx.error("unknown activation '" + name + "'");
}

/// What is added to the product before the activation.
enum class Addend { None, Residual, LastDimBias };

/// Takes output 0 of the base kernel, adds input `addendInput` (as `addend` says), applies the
/// activation and stores it back at the output's precision.
support::Status epilogue(KernelContext &ctx, Addend addend, std::size_t addendInput)
{
    auto activation = activationOf(ctx);
    if (!activation)
        return activation.takeError();
    const bool hasAddend = addend != Addend::None && ctx.hasInput(addendInput);
    if (!hasAddend && ctx.attrString("activation", "").empty())
        return support::Status::ok(); // the base kernel's output is the answer
    const int originalType = ctx.outputs()[0].tensor.dataType();
    Tensor y = toComputeType(ctx.outputs()[0].tensor);
    Tensor extra;
    if (hasAddend) {
        extra = toComputeType(ctx.input(addendInput));
        if (extra.dataType() != y.dataType())
            return ctx.error("input " + std::to_string(addendInput) + " has another element type than the output");
        if (addend == Addend::Residual && extra.shape() != y.shape())
            return ctx.error("Z " + shapeString(extra.shape()) + " must have the output's shape " + shapeString(y.shape()));
        if (addend == Addend::LastDimBias &&
            (extra.rank() != 1 || y.rank() == 0 || extra.size() != y.dim(y.rank() - 1)))
            return ctx.error("Bias " + shapeString(extra.shape()) + " must be 1-D with the output's last dim " +
                             shapeString(y.shape()));
    }
    const bool known = visitFloat(y.dataType(), [&]<typename T>() {
        T *out = y.mutableData<T>();
        const T *add = hasAddend ? extra.data<T>() : nullptr;
        const std::int64_t period = hasAddend ? extra.size() : 1;
        for (std::int64_t i = 0; i < y.size(); ++i) {
            T v = out[i];
            if (add != nullptr) {
                const std::int64_t k = addend == Addend::Residual ? i : i % period;
                v = static_cast<T>(static_cast<double>(v) + static_cast<double>(add[k]));
            }
            out[i] = static_cast<T>((*activation)(static_cast<double>(v)));
        }
    });
    if (!known)
        return ctx.error("takes floating-point inputs, not " + ir::dataTypeName(originalType));
    ctx.setOutput(0, fromComputeType(y, originalType));
    return support::Status::ok();
}

} // namespace

support::Status fusedConv(KernelContext &ctx)
{
    if (auto st = conv(ctx); !st) // reads X, W, B and the Conv attributes; Z is input 3
        return st;
    return epilogue(ctx, Addend::Residual, 3);
}

support::Status fusedGemm(KernelContext &ctx)
{
    if (auto st = gemm(ctx); !st)
        return st;
    return epilogue(ctx, Addend::None, 0);
}

support::Status fusedMatMul(KernelContext &ctx)
{
    if (auto st = matMul(ctx); !st) // reads A and B; Bias is input 2
        return st;
    return epilogue(ctx, Addend::LastDimBias, 2);
}

support::Status fusedElementwise(KernelContext &ctx)
{
    const ir::GraphId body = ctx.attrGraph("body");
    if (!body.valid())
        return ctx.error("has no body graph");
    std::vector<RuntimeValue> inputs;
    for (std::size_t i = 0; i < ctx.inputCount(); ++i) {
        if (ctx.inputValue(i) == nullptr)
            return ctx.error("input " + std::to_string(i) + " is missing");
        inputs.push_back(*ctx.inputValue(i));
    }
    auto outputs = ctx.subgraphs().runSubgraph(body, std::move(inputs));
    if (!outputs)
        return outputs.takeError();
    if (outputs->size() != 1)
        return ctx.error("the body returns " + std::to_string(outputs->size()) + " values, 1 was expected");
    ctx.setOutputValue(0, std::move(outputs->front()));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
