// A comparison's error per node of run A's model: what the canvas paints as heat and the port
// report draws as its thumbnail. A node's heat is its worst compared output's.
#pragma once

#include "compare/RunComparison.h"
#include "ir/Model.h"

#include <cstdint>
#include <unordered_map>

namespace portolan::compare {

enum class HeatMetric {
    NormalizedError, ///< max |error| over the reference's scale
    MaxAbs,          ///< max |error|
    CosineDistance,  ///< 1 − cosine
};

/// The ends of a heat map's log colour scale: its smallest positive and its largest finite value,
/// at least a decade apart (the canvas and the report's thumbnail share it).
struct HeatRange {
    double low = 1e-12, high = 1e-11;
    /// Where `value` falls on the scale: 0 at `low` (or below), 1 at `high` (or above).
    double position(double value) const;
};

HeatRange heatRange(const std::unordered_map<std::uint32_t, double> &heat);

/// Node id of `modelA` → the metric of its worst compared output; infinite where the two runs'
/// tensors could not be compared (a shape or type mismatch) or the error is NaN.
std::unordered_map<std::uint32_t, double> nodeHeat(const ComparisonResult &result, const ir::Model &modelA,
                                                   HeatMetric metric = HeatMetric::NormalizedError);

} // namespace portolan::compare
