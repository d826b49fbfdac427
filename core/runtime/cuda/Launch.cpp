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

std::optional<BroadcastPlan> planBroadcast(const std::vector<std::int64_t> &out, const std::vector<std::int64_t> &a,
                                           const std::vector<std::int64_t> &b)
{
    if (a.size() > out.size() || b.size() > out.size())
        return std::nullopt;
    // per output dim (right-aligned): the operand's extent there, 1 where it has no such dim
    const std::size_t rank = out.size();
    auto extent = [rank](const std::vector<std::int64_t> &shape, std::size_t d) {
        const std::size_t missing = rank - shape.size();
        return d < missing ? std::int64_t(1) : shape[d - missing];
    };
    struct Dim {
        std::int64_t size;
        bool aBroadcast, bBroadcast;
    };
    std::vector<Dim> dims;
    std::int64_t count = 1;
    for (std::size_t d = 0; d < rank; ++d) {
        const std::int64_t ea = extent(a, d), eb = extent(b, d);
        if ((ea != out[d] && ea != 1) || (eb != out[d] && eb != 1))
            return std::nullopt;
        count *= out[d];
        if (out[d] == 1)
            continue; // walks nothing
        const Dim dim{out[d], ea == 1, eb == 1};
        // merge with the dim outside when both operands behave alike across the two
        if (!dims.empty() && dims.back().aBroadcast == dim.aBroadcast && dims.back().bBroadcast == dim.bBroadcast)
            dims.back().size *= dim.size;
        else
            dims.push_back(dim);
    }
    BroadcastPlan plan;
    plan.count = count;
    if (count == 0)
        return plan;
    if (dims.size() > static_cast<std::size_t>(kMaxRank))
        return std::nullopt;
    plan.rank = static_cast<int>(dims.size());
    std::int64_t sa = 1, sb = 1;
    for (int d = plan.rank - 1; d >= 0; --d) {
        const Dim &dim = dims[static_cast<std::size_t>(d)];
        plan.dims[d] = dim.size;
        plan.strideA[d] = dim.aBroadcast ? 0 : sa;
        plan.strideB[d] = dim.bBroadcast ? 0 : sb;
        if (!dim.aBroadcast)
            sa *= dim.size;
        if (!dim.bBroadcast)
            sb *= dim.size;
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
