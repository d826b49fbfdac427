// Elementwise kernels on one input: math and activations (computed in double, stored at the input's
// precision), Not, IsNaN, IsInf.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "support/IntegerArithmetic.h"
#include "support/ParallelFor.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace portolan::runtime::kernels {

namespace {

template <typename F>
support::Status mapFloat(KernelContext &ctx, F &&f)
{
    const Tensor in = toComputeType(ctx.input(0));
    auto out = ctx.allocateUninitialized(in.dataType(), in.shape());
    if (!out)
        return out.takeError();
    const bool known = visitFloat(in.dataType(), [&]<typename T>() {
        const T *x = in.data<T>();
        T *y = out->mutableData<T>();
        // a large tensor is shared among the cores: erf, tanh and exp cost tens of cycles an element
        support::parallelFor(in.size(), in.size() >= (std::int64_t(1) << 16), [&](std::int64_t first, std::int64_t last) {
            const auto fn = f; // a local copy: stores through y cannot alias its captures
            for (std::int64_t i = first; i < last; ++i)
                y[i] = static_cast<T>(fn(static_cast<double>(x[i])));
        });
    });
    if (!known)
        return ctx.error(ctx.node().opType + " needs a floating-point input");
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

// Ops that are exact on integers are computed in the integer type itself (no int64 → double loss).
template <typename F>
support::Status mapInteger(KernelContext &ctx, F &&f)
{
    const Tensor &in = ctx.input(0);
    auto out = ctx.allocateUninitialized(in.dataType(), in.shape());
    if (!out)
        return out.takeError();
    visitInteger(in.dataType(), [&]<typename T>() {
        const T *x = in.data<T>();
        T *y = out->mutableData<T>();
        const auto fn = f;
        const std::int64_t n = in.size();
        for (std::int64_t i = 0; i < n; ++i)
            y[i] = fn(x[i]);
    });
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

bool isInteger(int type)
{
    return visitInteger(type, []<typename T>() {});
}

double sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

} // namespace

support::Status unaryMath(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const std::string_view op = ctx.node().opType;
    const int type = ctx.input(0).dataType();

    if (isInteger(type)) {
        auto generic = [&](auto f) { return mapInteger(ctx, f); };
        if (op == "Abs")
            return generic([]<typename T>(T x) { return support::wrappingAbs(x); });
        if (op == "Neg")
            return generic([]<typename T>(T x) { return support::wrappingNeg(x); });
        if (op == "Sign")
            return generic([]<typename T>(T x) { return static_cast<T>((x > T(0)) - (x < T(0))); });
        if (op == "Relu")
            return generic([]<typename T>(T x) { return x > T(0) ? x : T(0); });
        return ctx.error(std::string(op) + " does not take integer inputs");
    }

    const double alpha = ctx.attrFloat("alpha", op == "LeakyRelu" ? 0.01f
                                                : op == "HardSigmoid" ? 0.2f
                                                : op == "Selu" ? 1.67326319217681884765625f
                                                                : 1.0f);
    if (op == "Abs") return mapFloat(ctx, [](double x) { return std::fabs(x); });
    if (op == "Neg") return mapFloat(ctx, [](double x) { return -x; });
    if (op == "Reciprocal") return mapFloat(ctx, [](double x) { return 1.0 / x; });
    if (op == "Sqrt") return mapFloat(ctx, [](double x) { return std::sqrt(x); });
    if (op == "Exp") return mapFloat(ctx, [](double x) { return std::exp(x); });
    if (op == "Log") return mapFloat(ctx, [](double x) { return std::log(x); });
    if (op == "Sin") return mapFloat(ctx, [](double x) { return std::sin(x); });
    if (op == "Cos") return mapFloat(ctx, [](double x) { return std::cos(x); });
    if (op == "Tan") return mapFloat(ctx, [](double x) { return std::tan(x); });
    if (op == "Asin") return mapFloat(ctx, [](double x) { return std::asin(x); });
    if (op == "Acos") return mapFloat(ctx, [](double x) { return std::acos(x); });
    if (op == "Atan") return mapFloat(ctx, [](double x) { return std::atan(x); });
    if (op == "Sinh") return mapFloat(ctx, [](double x) { return std::sinh(x); });
    if (op == "Cosh") return mapFloat(ctx, [](double x) { return std::cosh(x); });
    if (op == "Asinh") return mapFloat(ctx, [](double x) { return std::asinh(x); });
    if (op == "Acosh") return mapFloat(ctx, [](double x) { return std::acosh(x); });
    if (op == "Atanh") return mapFloat(ctx, [](double x) { return std::atanh(x); });
    if (op == "Tanh") return mapFloat(ctx, [](double x) { return std::tanh(x); });
    if (op == "Sigmoid") return mapFloat(ctx, sigmoid);
    if (op == "Erf") return mapFloat(ctx, [](double x) { return std::erf(x); });
    if (op == "Floor") return mapFloat(ctx, [](double x) { return std::floor(x); });
    if (op == "Ceil") return mapFloat(ctx, [](double x) { return std::ceil(x); });
    if (op == "Round") return mapFloat(ctx, [](double x) { return std::nearbyint(x); }); // half to even
    if (op == "Sign") return mapFloat(ctx, [](double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); });
    if (op == "Relu") return mapFloat(ctx, [](double x) { return x > 0 || std::isnan(x) ? x : 0.0; }); // max(0, NaN) is NaN
    if (op == "Softplus") return mapFloat(ctx, [](double x) { return x > 30 ? x : std::log1p(std::exp(x)); });
    if (op == "Softsign") return mapFloat(ctx, [](double x) { return x / (1.0 + std::fabs(x)); });
    if (op == "Mish") return mapFloat(ctx, [](double x) { return x * std::tanh(x > 30 ? x : std::log1p(std::exp(x))); });
    if (op == "Swish") return mapFloat(ctx, [alpha](double x) { return x * sigmoid(alpha * x); });
    if (op == "LeakyRelu") return mapFloat(ctx, [alpha](double x) { return x >= 0 ? x : alpha * x; });
    if (op == "Elu") return mapFloat(ctx, [alpha](double x) { return x >= 0 ? x : alpha * (std::exp(x) - 1.0); });
    if (op == "Selu") {
        const double gamma = ctx.attrFloat("gamma", 1.05070102214813232421875f);
        return mapFloat(ctx, [alpha, gamma](double x) { return gamma * (x > 0 ? x : alpha * (std::exp(x) - 1.0)); });
    }
    if (op == "Celu") return mapFloat(ctx, [alpha](double x) { return std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1.0)); });
    if (op == "ThresholdedRelu") return mapFloat(ctx, [alpha](double x) { return x > alpha ? x : 0.0; });
    if (op == "HardSigmoid") {
        const double beta = ctx.attrFloat("beta", 0.5f);
        return mapFloat(ctx, [alpha, beta](double x) { return std::clamp(alpha * x + beta, 0.0, 1.0); });
    }
    if (op == "HardSwish") return mapFloat(ctx, [](double x) { return x * std::clamp(x / 6.0 + 0.5, 0.0, 1.0); });
    if (op == "Shrink") {
        const double bias = ctx.attrFloat("bias", 0.0f);
        const double lambd = ctx.attrFloat("lambd", 0.5f);
        return mapFloat(ctx, [bias, lambd](double x) { return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0; });
    }
    return ctx.error("unaryMath has no rule for " + std::string(op));
}

support::Status logicalNot(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &in = ctx.input(0);
    auto out = ctx.allocate(TensorProto::BOOL, in.shape());
    if (!out)
        return out.takeError();
    for (std::int64_t i = 0; i < in.size(); ++i)
        out->mutableData<std::uint8_t>()[i] = in.data<std::uint8_t>()[i] ? 0 : 1;
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

// IsNaN / IsInf: bool outputs from a float test per element.
template <typename Test>
static support::Status floatPredicate(KernelContext &ctx, Test &&test)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor in = toComputeType(ctx.input(0));
    auto out = ctx.allocate(TensorProto::BOOL, in.shape());
    if (!out)
        return out.takeError();
    const bool known = visitFloat(in.dataType(), [&]<typename T>() {
        for (std::int64_t i = 0; i < in.size(); ++i)
            out->mutableData<std::uint8_t>()[i] = test(static_cast<double>(in.data<T>()[i])) ? 1 : 0;
    });
    if (!known)
        return ctx.error("needs a floating-point input");
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status isNaN(KernelContext &ctx)
{
    return floatPredicate(ctx, [](double x) { return std::isnan(x); });
}

support::Status isInf(KernelContext &ctx)
{
    const bool positive = ctx.attrInt("detect_positive", 1) != 0;
    const bool negative = ctx.attrInt("detect_negative", 1) != 0;
    return floatPredicate(ctx, [=](double x) { return std::isinf(x) && ((x > 0 && positive) || (x < 0 && negative)); });
}

} // namespace portolan::runtime::kernels
