// Ordering kernels: TopK, Unique, CumSum, CumProd, ArgMax and ArgMin (NaN sorts above every number, as in numpy).
#include "runtime/reference/kernels/DataMovement.h"
#include "runtime/reference/kernels/TensorOps.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace portolan::runtime::kernels {

namespace {

/// a > b with NaN above every number (where numpy's sorts put it).
template <typename T>
bool nanGreater(T a, T b)
{
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a))
            return !std::isnan(b);
        if (std::isnan(b))
            return false;
    }
    return a > b;
}

/// -1, 0 or 1 as a sorts before, with or after b; NaNs equal each other and sort last.
template <typename T>
int threeWay(const T &a, const T &b)
{
    if constexpr (std::is_same_v<T, std::string>)
        return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
    else
        return nanGreater(b, a) ? -1 : (nanGreater(a, b) ? 1 : 0);
}

/// outer, axis length and inner sizes of `shape` around `axis`.
struct AxisSplit {
    std::int64_t outer, n, inner;
};

AxisSplit splitAt(const Shape &shape, std::size_t axis)
{
    return {dimProduct(shape, 0, axis), shape[axis], dimProduct(shape, axis + 1, shape.size())};
}

} // namespace

support::Status topK(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(ctx.opset() < 10 ? 1 : 2); !st)
        return st;
    const Tensor x = toComputeType(ctx.input(0));
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", -1), x.rank());
    if (!axis)
        return axis.takeError();
    auto k = ctx.opset() < 10 ? support::Expected<std::int64_t>(ctx.attrInt("k", -1)) : scalarInteger(ctx, ctx.input(1), "K");
    if (!k)
        return k.takeError();
    const AxisSplit g = splitAt(x.shape(), *axis);
    if (*k < 0 || *k > g.n)
        return ctx.error("k = " + std::to_string(*k) + " is outside [0, " + std::to_string(g.n) + "]");
    const bool largest = ctx.opset() < 11 || ctx.attrInt("largest", 1) != 0;
    Shape shape = x.shape();
    shape[*axis] = *k;
    auto values = ctx.allocate(x.dataType(), shape);
    auto indices = ctx.allocate(TensorProto::INT64, shape);
    if (!values || !indices)
        return !values ? values.takeError() : indices.takeError();
    // Always sorted (allowed when sorted=0); equal values keep the lower index first.
    if (!visitNumeric(x.dataType(), [&]<typename T>() {
            std::vector<std::int64_t> order(static_cast<std::size_t>(g.n));
            T *v = values->mutableData<T>();
            std::int64_t *ix = indices->mutableData<std::int64_t>();
            for (std::int64_t b = 0; b < g.outer; ++b)
                for (std::int64_t i = 0; i < g.inner; ++i) {
                    const T *line = x.data<T>() + b * g.n * g.inner + i;
                    std::iota(order.begin(), order.end(), std::int64_t(0));
                    std::partial_sort(order.begin(), order.begin() + *k, order.end(), [&](std::int64_t p, std::int64_t q) {
                        const T a = line[p * g.inner], c = line[q * g.inner];
                        const bool before = largest ? nanGreater(a, c) : nanGreater(c, a);
                        const bool after = largest ? nanGreater(c, a) : nanGreater(a, c);
                        return before || (!after && p < q);
                    });
                    for (std::int64_t j = 0; j < *k; ++j) {
                        const std::int64_t at = (b * *k + j) * g.inner + i;
                        ix[at] = order[static_cast<std::size_t>(j)];
                        v[at] = line[ix[at] * g.inner];
                    }
                }
        }))
        return unsupportedType(ctx, x.dataType());
    ctx.setOutput(0, fromComputeType(*values, ctx.input(0).dataType()));
    ctx.setOutput(1, std::move(*indices));
    return support::Status::ok();
}

support::Status unique(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const bool hasAxis = ctx.hasAttribute("axis");
    const Tensor x = hasAxis ? ctx.input(0) : ctx.input(0).reshaped({ctx.input(0).size()});
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 0), x.rank());
    if (!axis)
        return axis.takeError();
    const Tensor key = toComputeType(x); // 16-bit floats compare as floats
    const AxisSplit g = splitAt(x.shape(), *axis);
    auto inverse = ctx.allocate(TensorProto::INT64, {g.n});
    if (!inverse)
        return inverse.takeError();
    std::vector<std::int64_t> order(static_cast<std::size_t>(g.n)), firsts, counts;
    std::iota(order.begin(), order.end(), std::int64_t(0));
    std::int64_t *inv = inverse->mutableData<std::int64_t>();
    // Slices compare lexicographically (outer-major, then inner), as numpy.unique orders them.
    if (!visitElements(key.dataType(), [&]<typename T>() {
            const T *p = elements<T>(key);
            auto compare = [&](std::int64_t a, std::int64_t b) {
                for (std::int64_t o = 0; o < g.outer; ++o)
                    for (std::int64_t i = 0; i < g.inner; ++i)
                        if (const int c = threeWay(p[(o * g.n + a) * g.inner + i], p[(o * g.n + b) * g.inner + i]))
                            return c;
                return 0;
            };
            std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return compare(a, b) < 0; });
            for (std::size_t j = 0; j < order.size(); ++j) {
                if (j == 0 || compare(order[j - 1], order[j]) != 0) {
                    firsts.push_back(order[j]); // the stable sort keeps the first occurrence first
                    counts.push_back(0);
                }
                ++counts.back();
                inv[order[j]] = static_cast<std::int64_t>(firsts.size()) - 1;
            }
        }))
        return unsupportedType(ctx, x.dataType());
    const auto u = static_cast<std::int64_t>(firsts.size());
    if (ctx.attrInt("sorted", 1) == 0) {
        // Renumber the groups by first occurrence.
        std::vector<std::int64_t> byFirst(firsts.size()), rank(firsts.size());
        std::iota(byFirst.begin(), byFirst.end(), std::int64_t(0));
        std::sort(byFirst.begin(), byFirst.end(), [&](std::int64_t a, std::int64_t b) { return firsts[a] < firsts[b]; });
        std::vector<std::int64_t> f(firsts.size()), c(firsts.size());
        for (std::size_t j = 0; j < byFirst.size(); ++j) {
            rank[byFirst[j]] = static_cast<std::int64_t>(j);
            f[j] = firsts[byFirst[j]];
            c[j] = counts[byFirst[j]];
        }
        firsts.swap(f);
        counts.swap(c);
        for (std::int64_t j = 0; j < g.n; ++j)
            inv[j] = rank[inv[j]];
    }
    auto y = take(ctx, x, *axis, firsts.data(), u);
    if (!y)
        return y.takeError();
    ctx.setOutput(0, std::move(*y));
    ctx.setOutput(1, Tensor::fromVector(TensorProto::INT64, {u}, firsts));
    ctx.setOutput(2, std::move(*inverse));
    ctx.setOutput(3, Tensor::fromVector(TensorProto::INT64, {u}, counts));
    return support::Status::ok();
}

namespace {

enum class Cumulation { Sum, Product };

/// CumSum and CumProd: the axis comes from a one-element integer input, `exclusive` leaves each
/// element out of its own result and `reverse` runs from the end of the axis.
support::Status cumulate(KernelContext &ctx, Cumulation op)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor x = toComputeType(ctx.input(0));
    auto axisValue = scalarInteger(ctx, ctx.input(1), "axis");
    if (!axisValue)
        return axisValue.takeError();
    auto axis = normalizeAxis(ctx, *axisValue, x.rank());
    if (!axis)
        return axis.takeError();
    const bool exclusive = ctx.attrInt("exclusive", 0) != 0;
    const bool reverse = ctx.attrInt("reverse", 0) != 0;
    const AxisSplit g = splitAt(x.shape(), *axis);
    auto out = ctx.allocate(x.dataType(), x.shape());
    if (!out)
        return out.takeError();
    if (!visitNumeric(x.dataType(), [&]<typename T>() {
            // Floats accumulate in double, rounded once per output; integers in uint64, where sums and
            // products wrap exactly as the element type would (modulo 2^bits) without undefined behaviour.
            using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::uint64_t>;
            const Acc identity = op == Cumulation::Sum ? Acc(0) : Acc(1);
            std::vector<Acc> acc(static_cast<std::size_t>(g.inner));
            const T *in = x.data<T>();
            T *o = out->mutableData<T>();
            for (std::int64_t b = 0; b < g.outer; ++b) {
                std::fill(acc.begin(), acc.end(), identity);
                for (std::int64_t t = 0; t < g.n; ++t) {
                    const std::int64_t row = (b * g.n + (reverse ? g.n - 1 - t : t)) * g.inner;
                    for (std::int64_t i = 0; i < g.inner; ++i) {
                        Acc &a = acc[static_cast<std::size_t>(i)];
                        if (exclusive)
                            o[row + i] = static_cast<T>(a);
                        if (op == Cumulation::Sum)
                            a += static_cast<Acc>(in[row + i]);
                        else
                            a *= static_cast<Acc>(in[row + i]);
                        if (!exclusive)
                            o[row + i] = static_cast<T>(a);
                    }
                }
            }
        }))
        return unsupportedType(ctx, x.dataType());
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

} // namespace

support::Status cumSum(KernelContext &ctx) { return cumulate(ctx, Cumulation::Sum); }

support::Status cumProd(KernelContext &ctx) { return cumulate(ctx, Cumulation::Product); }

support::Status argExtreme(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor x = toComputeType(ctx.input(0));
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 0), x.rank());
    if (!axis)
        return axis.takeError();
    const AxisSplit g = splitAt(x.shape(), *axis);
    if (g.n == 0)
        return ctx.error("cannot take the extreme of an empty axis");
    const bool wantMax = ctx.node().opType == "ArgMax";
    const bool last = ctx.opset() >= 12 && ctx.attrInt("select_last_index", 0) != 0;
    Shape shape = x.shape();
    if (ctx.attrInt("keepdims", 1) != 0)
        shape[*axis] = 1;
    else
        shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(*axis));
    auto out = ctx.allocate(TensorProto::INT64, shape);
    if (!out)
        return out.takeError();
    if (!visitNumeric(x.dataType(), [&]<typename T>() {
            // numpy's rule: a NaN beats every number, as the max and as the min.
            auto better = [wantMax](T a, T b) {
                if constexpr (std::is_floating_point_v<T>)
                    if (std::isnan(a) || std::isnan(b))
                        return std::isnan(a) && !std::isnan(b);
                return wantMax ? a > b : a < b;
            };
            std::vector<T> best(static_cast<std::size_t>(g.inner));
            std::int64_t *o = out->mutableData<std::int64_t>();
            for (std::int64_t b = 0; b < g.outer; ++b) {
                const T *base = x.data<T>() + b * g.n * g.inner;
                std::copy_n(base, g.inner, best.begin());
                for (std::int64_t j = 1; j < g.n; ++j)
                    for (std::int64_t i = 0; i < g.inner; ++i) {
                        const T v = base[j * g.inner + i];
                        T &current = best[static_cast<std::size_t>(i)];
                        if (last ? !better(current, v) : better(v, current)) {
                            current = v;
                            o[b * g.inner + i] = j;
                        }
                    }
            }
        }))
        return unsupportedType(ctx, x.dataType());
    return emit(ctx, std::move(out));
}

} // namespace portolan::runtime::kernels
