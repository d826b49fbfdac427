// Per-node heat from the compared tensors (see NodeHeat.h).
#include "compare/NodeHeat.h"

#include <algorithm>
#include <cmath>

namespace portolan::compare {

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
