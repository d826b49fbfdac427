// Per-node heat from the compared tensors (see NodeHeat.h).
#include "compare/NodeHeat.h"

#include <algorithm>
#include <cmath>

namespace portolan::compare {

double HeatRange::position(double value) const
{
    const double from = std::log10(low), to = std::log10(high);
    return std::clamp((std::log10(std::max(value, low)) - from) / std::max(1e-9, to - from), 0.0, 1.0);
}

HeatRange heatRange(const std::unordered_map<std::uint32_t, double> &heat)
{
    double low = INFINITY, high = 0;
    for (const auto &[node, v] : heat)
        if (std::isfinite(v)) {
            if (v > 0)
                low = std::min(low, v);
            high = std::max(high, v);
        }
    HeatRange range;
    range.low = std::isfinite(low) ? std::max(low, 1e-12) : 1e-12;
    range.high = std::max(high, range.low * 10);
    return range;
}

std::unordered_map<std::uint32_t, double> nodeHeat(const ComparisonResult &result, const ir::Model &modelA, HeatMetric metric)
{
    std::unordered_map<std::uint32_t, double> heat;
    for (const ComparedTensor &t : result.tensors) {
        if (!t.inA.valid() || t.inA.index >= modelA.valueCapacity())
            continue;
        const ir::Value &value = modelA.value(t.inA);
        if (!value.producer.valid())
            continue;
        const bool comparable = t.metrics.mismatch.empty();
        double v = 0;
        switch (metric) {
        case HeatMetric::NormalizedError: v = normalizedError(t.metrics); break;
        case HeatMetric::MaxAbs: v = comparable ? t.metrics.maxAbs : INFINITY; break;
        case HeatMetric::CosineDistance: v = comparable ? 1 - t.metrics.cosine : INFINITY; break;
        }
        double &slot = heat[value.producer.index];
        slot = std::max(slot, std::isnan(v) ? INFINITY : v);
    }
    return heat;
}

} // namespace portolan::compare
