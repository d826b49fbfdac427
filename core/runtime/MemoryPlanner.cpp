// Greedy-by-size placement: O(n²) in the number of buffers, which is fine for graphs of thousands
// of tensors (planning happens once per compiled shape).
#include "runtime/MemoryPlanner.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace portolan::runtime {

static std::size_t alignUp(std::size_t n)
{
    return (n + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers)
{
    MemoryPlan plan;
    plan.offsets.assign(buffers.size(), 0);
    std::vector<std::size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return buffers[a].bytes > buffers[b].bytes; });

    std::vector<std::size_t> placed; // indices, kept sorted by offset
    for (const std::size_t i : order) {
        const BufferLifetime &b = buffers[i];
        plan.naiveBytes += alignUp(b.bytes);
        if (b.bytes == 0)
            continue;
        const std::size_t size = alignUp(b.bytes);
        std::size_t candidate = 0;
        std::size_t bestOffset = SIZE_MAX;
        std::size_t bestGap = SIZE_MAX;
        // Walk the placed buffers that overlap in time, by offset; take the smallest gap that fits.
        for (const std::size_t p : placed) {
            const BufferLifetime &other = buffers[p];
            if (other.lastStep < b.firstStep || b.lastStep < other.firstStep)
                continue;
            const std::size_t start = plan.offsets[p];
            if (start >= candidate && start - candidate >= size && start - candidate < bestGap) {
                bestGap = start - candidate;
                bestOffset = candidate;
            }
            candidate = std::max(candidate, start + alignUp(other.bytes));
        }
        if (bestOffset == SIZE_MAX)
            bestOffset = candidate;
        plan.offsets[i] = bestOffset;
        plan.arenaBytes = std::max(plan.arenaBytes, bestOffset + size);
        placed.insert(std::upper_bound(placed.begin(), placed.end(), i,
                                       [&](std::size_t a, std::size_t c) { return plan.offsets[a] < plan.offsets[c]; }),
                      i);
    }
    // The live peak: sweep the steps.
    std::map<std::uint32_t, std::int64_t> delta;
    for (const BufferLifetime &b : buffers) {
        delta[b.firstStep] += static_cast<std::int64_t>(alignUp(b.bytes));
        delta[b.lastStep + 1] -= static_cast<std::int64_t>(alignUp(b.bytes));
    }
    std::int64_t live = 0;
    for (const auto &[step, change] : delta) {
        live += change;
        plan.livePeakBytes = std::max(plan.livePeakBytes, static_cast<std::size_t>(std::max<std::int64_t>(live, 0)));
    }
    return plan;
}

} // namespace portolan::runtime
