// Order statistics of a comparison (see RankStatistics.h).
#include "compare/RankStatistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace portolan::compare {

// A count per 1/8-octave bin (a float's top 12 bits, monotone in its value) finds the bin each rank falls in,
// and a selection among that bin's elements alone the value. Two passes and two small selections,
// where two selections over all of them cost four times as much.
std::pair<double, double> medianAndP99(const std::vector<float> &values)
{
    if (values.empty())
        return {0, 0};
    const auto binOfValue = [](float v) { return std::bit_cast<std::uint32_t>(v) >> 20; };
    std::vector<std::uint32_t> counts(std::size_t(1) << 12, 0);
    for (const float v : values)
        ++counts[binOfValue(v)];
    const auto at = [&](double q) {
        const std::size_t n = values.size();
        const auto rank = static_cast<std::size_t>(std::min<double>(static_cast<double>(n - 1), std::ceil(q * static_cast<double>(n)) - 1));
        std::size_t before = 0, bin = 0;
        while (before + counts[bin] <= rank)
            before += counts[bin++];
        std::vector<std::uint32_t> inBin; // as bits: NaNs order after infinity, as their bins do
        inBin.reserve(counts[bin]);
        for (const float v : values)
            if (binOfValue(v) == bin)
                inBin.push_back(std::bit_cast<std::uint32_t>(v));
        std::nth_element(inBin.begin(), inBin.begin() + static_cast<std::ptrdiff_t>(rank - before), inBin.end());
        return static_cast<double>(std::bit_cast<float>(inBin[rank - before]));
    };
    return {at(0.5), at(0.99)};
}

void topAgreement(const double *ref, const double *act, std::int64_t rows, std::int64_t width, TensorMetrics &m)
{
    std::int64_t top1 = 0, top5 = 0;
    std::vector<std::int64_t> order(static_cast<std::size_t>(width));
    for (std::int64_t r = 0; r < rows; ++r) {
        const double *a = ref + r * width, *b = act + r * width;
        const auto refArgmax = std::max_element(a, a + width) - a;
        for (std::int64_t i = 0; i < width; ++i)
            order[static_cast<std::size_t>(i)] = i;
        const std::size_t k = std::min<std::size_t>(5, order.size());
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                          [&](std::int64_t x, std::int64_t y) { return b[x] > b[y] || (b[x] == b[y] && x < y); });
        top1 += order[0] == refArgmax;
        top5 += std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), refArgmax) !=
                order.begin() + static_cast<std::ptrdiff_t>(k);
    }
    m.top1 = rows ? static_cast<double>(top1) / static_cast<double>(rows) : 0;
    m.top5 = rows ? static_cast<double>(top5) / static_cast<double>(rows) : 0;
}

} // namespace portolan::compare
