// Shared by the reduction, linear-algebra and normalization kernels: the accumulator type of each
// element type, the cast back from double, and walking a tensor for a reduction over some axes.
#pragma once

#include "runtime/Tensor.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace portolan::runtime::kernels {

/// Floats accumulate in double; integers in (u)int64, where sums and products stay exact (or wrap).
template <typename T>
using Accumulator = std::conditional_t<std::is_floating_point_v<T>, double,
                                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

/// A double result as T; for integers NaN gives 0 and out-of-range values saturate (no UB).
template <typename T>
T fromDouble(double v)
{
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(v);
    } else {
        if (std::isnan(v))
            return T(0);
        if (v <= static_cast<double>(std::numeric_limits<T>::lowest()))
            return std::numeric_limits<T>::lowest();
        if (v >= static_cast<double>(std::numeric_limits<T>::max()))
            return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    }
}

/// A tensor's dims coalesced into runs that are all reduced or all kept.

struct ReducePlan {
    Shape dims;                           // coalesced runs
    std::vector<std::int64_t> outStrides; // per run, 0 when reduced
    std::int64_t outCount = 1;
    std::int64_t groupSize = 1; // input elements per output element
};

inline ReducePlan makePlan(const Shape &shape, const std::vector<bool> &reduced)
{
    ReducePlan plan;
    std::vector<bool> kinds;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 1)
            continue; // size-1 dims change nothing but would split runs
        if (!plan.dims.empty() && kinds.back() == reduced[i]) {
            plan.dims.back() *= shape[i];
        } else {
            plan.dims.push_back(shape[i]);
            kinds.push_back(reduced[i]);
        }
    }
    if (plan.dims.empty()) {
        plan.dims.push_back(1);
        kinds.push_back(false);
    }
    plan.outStrides.assign(plan.dims.size(), 0);
    for (std::size_t i = plan.dims.size(); i-- > 0;) {
        if (kinds[i]) {
            plan.groupSize *= plan.dims[i];
        } else {
            plan.outStrides[i] = plan.outCount;
            plan.outCount *= plan.dims[i];
        }
    }
    return plan;
}

/// f(inOffset, outOffset, length, outStep) for each run of the innermost dim, in input order.
template <typename F>
void walkPlan(const ReducePlan &plan, F &&f)
{
    const std::size_t rank = plan.dims.size();
    const std::int64_t length = plan.dims.back();
    const std::int64_t step = plan.outStrides.back();
    std::int64_t total = 1;
    for (const auto d : plan.dims)
        total *= d;
    std::vector<std::int64_t> counter(rank, 0);
    std::int64_t out = 0;
    for (std::int64_t in = 0; in < total; in += length) {
        f(in, out, length, step);
        for (std::size_t axis = rank - 1; axis-- > 0;) {
            if (++counter[axis] < plan.dims[axis]) {
                out += plan.outStrides[axis];
                break;
            }
            counter[axis] = 0;
            out -= plan.outStrides[axis] * (plan.dims[axis] - 1);
        }
    }
}

} // namespace portolan::runtime::kernels
