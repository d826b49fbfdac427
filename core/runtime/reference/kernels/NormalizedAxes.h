// The block a normalization kernel works on: the axes from its `axis` attribute to the last.
#pragma once

#include "runtime/KernelContext.h"

#include <string>

namespace portolan::runtime::kernels {

/// `axis` (negative counts from the end) as a non-negative axis of `x`, with the number of elements
/// from it to the last axis; an error naming the axis and the rank when it is out of range.
inline support::Expected<std::pair<std::int64_t, std::int64_t>> normalizedBlock(KernelContext &ctx, const Tensor &x,
                                                                               std::int64_t axis)
{
    const auto rank = static_cast<std::int64_t>(x.rank());
    if (axis < -rank || axis >= rank)
        return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    axis = axis < 0 ? axis + rank : axis;
    std::int64_t n = 1;
    for (std::int64_t i = axis; i < rank; ++i)
        n *= x.dim(static_cast<std::size_t>(i));
    return std::make_pair(axis, n);
}

} // namespace portolan::runtime::kernels
