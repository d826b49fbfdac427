// Rates and orderings of an accelerator's profile (see AcceleratorProfile.h).
#include "runtime/AcceleratorProfile.h"

#include <algorithm>

namespace portolan::runtime {

AcceleratorProfile::Rates AcceleratorProfile::ratesOf(const AcceleratorNode &node) const
{
    Rates r;
    const double seconds = node.milliseconds * 1e-3;
    if (seconds <= 0)
        return r;
    r.bytesPerSecond = static_cast<double>(node.bytes) / seconds;
    r.flopsPerSecond = static_cast<double>(node.flops) / seconds;
    if (copyBytesPerSecond > 0)
        r.bandwidthShare = r.bytesPerSecond / copyBytesPerSecond;
    if (matmulFlopsPerSecond > 0)
        r.flopsShare = r.flopsPerSecond / matmulFlopsPerSecond;
    return r;
}

std::vector<AcceleratorNode> AcceleratorProfile::byTime() const
{
    std::vector<AcceleratorNode> sorted = nodes;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.milliseconds > b.milliseconds; });
    return sorted;
}

std::size_t AcceleratorProfile::fallbackCount() const
{
    return static_cast<std::size_t>(std::count_if(nodes.begin(), nodes.end(), [](const auto &n) { return n.onHost(); }));
}

} // namespace portolan::runtime
