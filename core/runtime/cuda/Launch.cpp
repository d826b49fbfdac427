// Launch arithmetic (see Launch.h).
#include "runtime/cuda/Launch.h"

#include <algorithm>

namespace portolan::runtime::cuda {

GridShape gridFor(std::int64_t items, int multiprocessors)
{
    const std::int64_t needed = (items + kThreadsPerBlock - 1) / kThreadsPerBlock;
    const std::int64_t resident = std::int64_t(std::max(multiprocessors, 1)) * 8;
    return {static_cast<std::uint32_t>(std::clamp<std::int64_t>(needed, 1, resident)), kThreadsPerBlock};
}

int vectorWidth(std::int64_t count, std::initializer_list<const void *> pointers)
{
    if (count % 4 != 0)
        return 1;
    for (const void *p : pointers)
        if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
            return 1;
    return 4;
}

std::optional<MultiBroadcast> planMultiBroadcast(const std::vector<std::int64_t> &out,
                                                 const std::vector<std::vector<std::int64_t>> &operands)
{
    const std::size_t rank = out.size(), n = operands.size();
    if (n > static_cast<std::size_t>(MultiBroadcast::kMaxOperands))
        return std::nullopt;
    for (const auto &operand : operands)
        if (operand.size() > rank)
            return std::nullopt;
    // per output dim (right-aligned): the operand's extent there, 1 where it has no such dim
    auto extent = [rank](const std::vector<std::int64_t> &shape, std::size_t d) {
        const std::size_t missing = rank - shape.size();
        return d < missing ? std::int64_t(1) : shape[d - missing];
    };
    struct Dim {
        std::int64_t size;
        std::vector<bool> broadcast; // per operand
    };
    std::vector<Dim> dims;
    std::int64_t count = 1;
    for (std::size_t d = 0; d < rank; ++d) {
        count *= out[d];
        Dim dim{out[d], std::vector<bool>(n)};
        for (std::size_t k = 0; k < n; ++k) {
            const std::int64_t e = extent(operands[k], d);
            if (e != out[d] && e != 1)
                return std::nullopt;
            dim.broadcast[k] = e == 1;
        }
        if (out[d] == 1)
            continue; // walks nothing
        // merge with the dim outside when every operand behaves alike across the two (contiguous, or broadcast)
        if (!dims.empty() && dims.back().broadcast == dim.broadcast)
            dims.back().size *= dim.size;
        else
            dims.push_back(std::move(dim));
    }
    MultiBroadcast plan;
    plan.count = count;
    if (count == 0)
        return plan;
    if (dims.size() > static_cast<std::size_t>(kMaxRank))
        return std::nullopt;
    plan.rank = static_cast<int>(dims.size());
    std::vector<std::int64_t> stride(n, 1);
    for (int d = plan.rank - 1; d >= 0; --d) {
        const Dim &dim = dims[static_cast<std::size_t>(d)];
        plan.dims[d] = dim.size;
        for (std::size_t k = 0; k < n; ++k) {
            plan.strides[k][d] = dim.broadcast[k] ? 0 : stride[k];
            if (!dim.broadcast[k])
                stride[k] *= dim.size;
        }
    }
    return plan;
}

std::optional<BroadcastPlan> planBroadcast(const std::vector<std::int64_t> &out, const std::vector<std::int64_t> &a,
                                           const std::vector<std::int64_t> &b)
{
    const auto multi = planMultiBroadcast(out, {a, b});
    if (!multi)
        return std::nullopt;
    BroadcastPlan plan;
    plan.rank = multi->rank;
    plan.count = multi->count;
    for (int d = 0; d < multi->rank; ++d) {
        plan.dims[d] = multi->dims[d];
        plan.strideA[d] = multi->strides[0][d];
        plan.strideB[d] = multi->strides[1][d];
    }
    return plan;
}

std::optional<StridedCopy> planStridedCopy(const std::vector<std::int64_t> &dims, const std::vector<std::int64_t> &srcStrides,
                                           const std::vector<std::int64_t> &dstStrides, std::int64_t srcBase, std::int64_t dstBase)
{
    struct Dim {
        std::int64_t size, src, dst;
    };
    std::vector<Dim> merged;
    std::int64_t count = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        count *= dims[d];
        if (dims[d] == 1)
            continue;
        const Dim dim{dims[d], srcStrides[d], dstStrides[d]};
        // the outer dim steps over exactly one run of this one on both sides: one longer dim
        if (!merged.empty() && merged.back().src == dim.src * dim.size && merged.back().dst == dim.dst * dim.size) {
            merged.back().size *= dim.size;
            merged.back().src = dim.src;
            merged.back().dst = dim.dst;
        } else {
            merged.push_back(dim);
        }
    }
    StridedCopy copy;
    copy.srcBase = srcBase;
    copy.dstBase = dstBase;
    copy.plan.count = count;
    if (count == 0)
        return copy;
    if (merged.size() > static_cast<std::size_t>(kMaxRank))
        return std::nullopt;
    copy.plan.rank = static_cast<int>(merged.size());
    for (std::size_t d = 0; d < merged.size(); ++d) {
        copy.plan.dims[d] = merged[d].size;
        copy.plan.strideA[d] = merged[d].src;
        copy.plan.strideB[d] = merged[d].dst;
    }
    return copy;
}

RowLaunch rowLaunch(std::int64_t rows, std::int64_t width)
{
    RowLaunch launch;
    launch.warpPerRow = width <= 1024;
    if (launch.warpPerRow) {
        launch.rowsPerBlock = 8;
        launch.threads = launch.rowsPerBlock * kWarpSize;
    } else {
        launch.rowsPerBlock = 1;
        launch.threads = kThreadsPerBlock;
    }
    launch.blocks = static_cast<std::uint32_t>(std::max<std::int64_t>(1, (rows + launch.rowsPerBlock - 1) / launch.rowsPerBlock));
    return launch;
}

} // namespace portolan::runtime::cuda
