// The error histogram compareTensors keeps per thread: counts of |error| per 1/16-octave bin of a
// float, over the range of bins touched so far, merged across threads, read for the median and p99
// of large tensors. Internal to compare/TensorMetrics.cpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace portolan::compare::detail {

/// A float's bin: its exponent and top 4 mantissa bits, monotone in the value for x ≥ 0.
inline std::size_t binOf(float x)
{
    return std::bit_cast<std::uint32_t>(x) >> 19;
}
inline double binMiddle(std::size_t bin)
{
    const float low = std::bit_cast<float>(static_cast<std::uint32_t>(bin) << 19);
    const float high = std::bit_cast<float>(static_cast<std::uint32_t>(bin + 1) << 19);
    return (static_cast<double>(low) + static_cast<double>(high)) / 2;
}

constexpr std::size_t kHistogramBins = 1 << 12; // every bin of a non-negative float
constexpr std::size_t kPastFloats = 0x7f800000u >> 19; // the bin of a float infinity: past it, all infinite

/// Counts per bin over the range of non-zero bins touched so far: errors span a few octaves, so the
/// counts cover those, not all 4096 bins (zeroing and walking all of them was a fixed cost that
/// dwarfed the counting on tensors of a few thousand elements). Bin 0, the exact matches, is counted
/// apart, or the range would reach down from every error to it.
struct Histogram {
    std::vector<std::uint64_t> counts; // counts[i] is bin low + i
    std::size_t low = 0;
    std::uint64_t zeros = 0, infinite = 0;

    void touch(std::size_t lo, std::size_t hi)
    {
        if (counts.empty()) {
            low = lo;
            counts.assign(hi - lo + 1, 0);
            return;
        }
        if (lo < low) {
            counts.insert(counts.begin(), low - lo, 0);
            low = lo;
        }
        if (hi >= low + counts.size())
            counts.resize(hi - low + 1, 0);
    }
    void add(double e)
    {
        if (std::isinf(e) || e > std::numeric_limits<float>::max()) {
            ++infinite;
            return;
        }
        const std::size_t bin = binOf(static_cast<float>(e));
        if (bin == 0) {
            ++zeros;
            return;
        }
        touch(bin, bin);
        ++counts[bin - low];
    }
    /// Adds two partial count arrays: bin 0, and bins [lo, hi] (1 ≤ lo; bins from kPastFloats on
    /// count as infinite).
    void addCounts(const std::uint32_t *a, const std::uint32_t *b, std::size_t lo, std::size_t hi)
    {
        zeros += std::uint64_t(a[0]) + b[0];
        for (std::size_t bin = std::max(lo, kPastFloats); bin <= hi; ++bin)
            infinite += std::uint64_t(a[bin]) + b[bin];
        hi = std::min(hi, kPastFloats - 1);
        if (lo > hi)
            return;
        touch(lo, hi);
        for (std::size_t bin = lo; bin <= hi; ++bin)
            counts[bin - low] += std::uint64_t(a[bin]) + b[bin];
    }
    void merge(const Histogram &o)
    {
        zeros += o.zeros;
        infinite += o.infinite;
        if (o.counts.empty())
            return;
        touch(o.low, o.low + o.counts.size() - 1);
        for (std::size_t i = 0; i < o.counts.size(); ++i)
            counts[o.low - low + i] += o.counts[i];
    }
    double quantile(double q, std::uint64_t total, double max) const
    {
        const auto wanted = static_cast<std::uint64_t>(std::max(1.0, std::ceil(q * static_cast<double>(total))));
        std::uint64_t seen = zeros;
        if (seen >= wanted)
            return 0;
        for (std::size_t i = 0; i < counts.size(); ++i)
            if ((seen += counts[i]) >= wanted)
                return std::min(max, binMiddle(low + i));
        return std::numeric_limits<double>::infinity();
    }
};

/// What one chunk of the elements adds up to.

} // namespace portolan::compare::detail
