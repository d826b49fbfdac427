// Reductions (ReduceSum … ReduceLogSumExp) and the axis-wise normalizers Softmax, LogSoftmax, Hardmax.
#include "runtime/KernelContext.h"
#include "runtime/reference/kernels/Accumulation.h"
#include "runtime/Dispatch.h"

#include "ir/Type.h"
#include "support/IntegerArithmetic.h"
#include "support/ParallelFor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

namespace portolan::runtime::kernels {

namespace {

enum class Reduce { Sum, Mean, Prod, Max, Min, L1, L2, SumSquare, LogSum, LogSumExp };

std::optional<Reduce> reduceKind(std::string_view op)
{
    if (op == "ReduceSum") return Reduce::Sum;
    if (op == "ReduceMean") return Reduce::Mean;
    if (op == "ReduceProd") return Reduce::Prod;
    if (op == "ReduceMax") return Reduce::Max;
    if (op == "ReduceMin") return Reduce::Min;
    if (op == "ReduceL1") return Reduce::L1;
    if (op == "ReduceL2") return Reduce::L2;
    if (op == "ReduceSumSquare") return Reduce::SumSquare;
    if (op == "ReduceLogSum") return Reduce::LogSum;
    if (op == "ReduceLogSumExp") return Reduce::LogSumExp;
    return std::nullopt;
}

/// acc[o] = combine(acc[o], transform(x)) over every input element of each output's group.
template <typename T, typename A, typename Transform, typename Combine>
void accumulate(const ReducePlan &plan, const T *x, A *acc, Transform transform, Combine combine)
{
    walkPlan(plan, [&](std::int64_t in, std::int64_t out, std::int64_t length, std::int64_t step) {
        if (step == 0) { // a run into one output: summed in a register, in the same order
            A sum = acc[out];
            for (std::int64_t i = 0; i < length; ++i)
                sum = combine(sum, transform(x[in + i], out));
            acc[out] = sum;
            return;
        }
        for (std::int64_t i = 0; i < length; ++i)
            acc[out + i * step] = combine(acc[out + i * step], transform(x[in + i], out + i * step));
    });
}

template <typename T>
void reduceTyped(Reduce kind, const ReducePlan &plan, const Tensor &in, Tensor &out)
{
    using A = Accumulator<T>;
    const T *x = in.data<T>();
    T *y = out.mutableData<T>();
    const std::int64_t n = plan.outCount;
    // Integer sums and products wrap (docs/integer-semantics.md): overflow is never undefined.
    const auto plus = [](auto a, auto b) {
        if constexpr (std::is_integral_v<decltype(a)>)
            return support::wrappingAdd(a, b);
        else
            return a + b;
    };
    const auto times = [](A a, A b) {
        if constexpr (std::is_integral_v<A>)
            return support::wrappingMul(a, b);
        else
            return static_cast<A>(a * b);
    };
    const auto asAcc = [](T v, std::int64_t) { return static_cast<A>(v); };

    if (kind == Reduce::Max || kind == Reduce::Min) {
        const bool isMax = kind == Reduce::Max;
        const T init = std::is_floating_point_v<T>
                           ? (isMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity())
                           : (isMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
        std::fill(y, y + n, init);
        // NaN wins, as numpy's max/min propagate it.
        accumulate(plan, x, y, [](T v, std::int64_t) { return v; }, [isMax](T a, T b) {
            if constexpr (std::is_floating_point_v<T>)
                if (std::isnan(a) || std::isnan(b))
                    return std::numeric_limits<T>::quiet_NaN();
            return isMax ? std::max(a, b) : std::min(a, b);
        });
        return;
    }

    std::vector<A> acc(static_cast<std::size_t>(n), kind == Reduce::Prod ? A(1) : A(0));
    std::vector<double> shift;
    switch (kind) {
    case Reduce::Prod: accumulate(plan, x, acc.data(), asAcc, times); break;
    case Reduce::L1:
        accumulate(plan, x, acc.data(), [&](T v, std::int64_t) { return v < T(0) ? times(A(-1), A(v)) : A(v); }, plus);
        break;
    case Reduce::L2:
    case Reduce::SumSquare:
        accumulate(plan, x, acc.data(), [&](T v, std::int64_t) { return times(A(v), A(v)); }, plus);
        break;
    case Reduce::LogSumExp: {
        // exp(x - max) keeps large inputs finite; the max is added back after the log.
        shift.assign(static_cast<std::size_t>(n), -std::numeric_limits<double>::infinity());
        accumulate(plan, x, shift.data(), [](T v, std::int64_t) { return static_cast<double>(v); },
                   [](double a, double b) { return std::max(a, b); });
        for (double &s : shift)
            s = std::isfinite(s) ? s : 0.0;
        std::vector<double> sums(static_cast<std::size_t>(n), 0.0);
        accumulate(plan, x, sums.data(), [&](T v, std::int64_t o) { return std::exp(static_cast<double>(v) - shift[o]); }, plus);
        for (std::int64_t o = 0; o < n; ++o)
            y[o] = fromDouble<T>(std::log(sums[o]) + shift[o]);
        return;
    }
    default: accumulate(plan, x, acc.data(), asAcc, plus); break;
    }

    for (std::int64_t o = 0; o < n; ++o) {
        const A a = acc[o];
        switch (kind) {
        case Reduce::Mean: y[o] = fromDouble<T>(static_cast<double>(a) / static_cast<double>(plan.groupSize)); break;
        case Reduce::L2: y[o] = fromDouble<T>(std::sqrt(static_cast<double>(a))); break;
        case Reduce::LogSum: y[o] = fromDouble<T>(std::log(static_cast<double>(a))); break;
        default: y[o] = static_cast<T>(a); break;
        }
    }
}

// Axes from the `axes` input (ReduceSum from opset 13, every reduction from 18) or attribute.
support::Expected<std::vector<std::int64_t>> reductionAxes(KernelContext &ctx)
{
    const bool fromInput = ctx.opset() >= 18 || (ctx.opset() >= 13 && ctx.node().opType == "ReduceSum");
    if (!fromInput)
        return ctx.attrInts("axes");
    if (!ctx.hasInput(1))
        return std::vector<std::int64_t>{};
    const Tensor &t = ctx.input(1);
    if (t.dataType() != TensorProto::INT64 || t.rank() > 1)
        return ctx.error("the axes input must be a 1-D int64 tensor");
    return std::vector<std::int64_t>(t.data<std::int64_t>(), t.data<std::int64_t>() + t.size());
}

/// Normalizes `axis` into [0, rank); false when it is outside [-rank, rank).
bool normalizeAxis(std::int64_t &axis, std::int64_t rank)
{
    if (axis < -rank || axis >= rank)
        return false;
    if (axis < 0)
        axis += rank;
    return true;
}

} // namespace

support::Status reduce(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const auto kind = reduceKind(ctx.node().opType);
    if (!kind)
        return ctx.error("is not a reduction");
    const Tensor in = toComputeType(ctx.input(0));
    const auto rank = static_cast<std::int64_t>(in.rank());
    auto axes = reductionAxes(ctx);
    if (!axes)
        return axes.takeError();
    // With noop_with_empty_axes, no axes reduce over the empty set of axes: each element is its own
    // group, so ReduceL1 still gives |x|, ReduceSumSquare x², ReduceLogSum log x (Reduce*-18).
    const bool overNoAxes = axes->empty() && ctx.attrInt("noop_with_empty_axes", 0) != 0;
    std::vector<bool> reduced(in.rank(), axes->empty() && !overNoAxes);
    for (std::int64_t axis : *axes) {
        if (!normalizeAxis(axis, rank))
            return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
        if (reduced[static_cast<std::size_t>(axis)])
            return ctx.error("axis " + std::to_string(axis) + " is listed twice");
        reduced[static_cast<std::size_t>(axis)] = true;
    }
    const bool keepDims = ctx.attrInt("keepdims", 1) != 0;
    Shape outShape;
    for (std::size_t i = 0; i < in.rank(); ++i)
        if (!reduced[i])
            outShape.push_back(in.dim(i));
        else if (keepDims)
            outShape.push_back(1);

    auto out = ctx.allocate(in.dataType(), outShape);
    if (!out)
        return out.takeError();
    // An empty group leaves the operation's identity (0, 1, ∓inf or the type's extreme for max/min).
    const ReducePlan plan = makePlan(in.shape(), reduced);
    if (in.dataType() == TensorProto::BOOL) { // ReduceMax/ReduceMin-20: OR and AND; an empty set gives false / true
        if (*kind != Reduce::Max && *kind != Reduce::Min)
            return ctx.error("does not take bool (only ReduceMax and ReduceMin do, from opset 20)");
        reduceTyped<std::uint8_t>(*kind, plan, in, *out);
        auto *y = out->mutableData<std::uint8_t>();
        for (std::int64_t o = 0; o < out->size(); ++o)
            y[o] = y[o] != 0 ? 1 : 0; // Min's empty-set 255 is true
        ctx.setOutput(0, std::move(*out));
        return support::Status::ok();
    }
    const bool known = visitNumeric(in.dataType(), [&]<typename T>() { reduceTyped<T>(*kind, plan, in, *out); });
    if (!known)
        return ctx.error("does not take " + ir::dataTypeName(in.dataType()));
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

support::Status softmax(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor in = toComputeType(ctx.input(0));
    const std::string_view op = ctx.node().opType;
    const auto rank = static_cast<std::int64_t>(std::max<std::size_t>(in.rank(), 1));
    const bool legacy = ctx.opset() < 13; // the input is coerced to 2-D at `axis`
    std::int64_t axis = ctx.attrInt("axis", legacy ? 1 : -1);
    if (!normalizeAxis(axis, rank) && !(legacy && axis == rank))
        return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(in.rank()));

    // The op runs along `length` elements `inner` apart, for each of `outer` × `inner` lines.
    std::int64_t outer = 1, length = 1, inner = 1;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(in.rank()); ++i) {
        const std::int64_t d = in.dim(static_cast<std::size_t>(i));
        if (i < axis)
            outer *= d;
        else if (i == axis || legacy)
            length *= d;
        else
            inner *= d;
    }
    auto out = ctx.allocateUninitialized(in.dataType(), in.shape()); // every line is written whole
    if (!out)
        return out.takeError();
    const bool hardmax = op == "Hardmax", logSoftmax = op == "LogSoftmax";
    const bool known = visitFloat(in.dataType(), [&]<typename T>() {
        const T *x = in.data<T>();
        T *y = out->mutableData<T>();
        // lines are independent: a large tensor's are shared among the cores
        support::parallelFor(outer * inner, in.size() >= (std::int64_t(1) << 15), [&](std::int64_t first, std::int64_t last) {
            std::vector<double> exps(static_cast<std::size_t>(length));
            for (std::int64_t line = first; line < last; ++line) {
                const std::int64_t o = line / inner, k = line % inner;
                const std::int64_t base = o * length * inner + k;
                const auto at = [&](std::int64_t i) { return base + i * inner; };
                std::int64_t best = 0;
                double maxValue = -std::numeric_limits<double>::infinity();
                for (std::int64_t i = 0; i < length; ++i) {
                    const double v = static_cast<double>(x[at(i)]);
                    if (v > maxValue || (std::isnan(v) && !std::isnan(maxValue))) { // the first max or NaN
                        maxValue = v;
                        best = i;
                    }
                }
                if (hardmax) {
                    for (std::int64_t i = 0; i < length; ++i)
                        y[at(i)] = static_cast<T>(i == best ? 1 : 0);
                    continue;
                }
                const double shift = std::isfinite(maxValue) ? maxValue : 0.0;
                double sum = 0;
                for (std::int64_t i = 0; i < length; ++i) {
                    exps[static_cast<std::size_t>(i)] = std::exp(static_cast<double>(x[at(i)]) - shift);
                    sum += exps[static_cast<std::size_t>(i)];
                }
                const double logSum = std::log(sum);
                for (std::int64_t i = 0; i < length; ++i)
                    y[at(i)] = static_cast<T>(logSoftmax ? (static_cast<double>(x[at(i)]) - shift) - logSum
                                                         : exps[static_cast<std::size_t>(i)] / sum);
            }
        });
    });
    if (!known)
        return ctx.error("needs a floating-point input, not " + ir::dataTypeName(in.dataType()));
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
