// The heat map as drawn: each box's value on a laid-out scene and the colour scale, one definition
// for the canvas and the port report's thumbnail.
#pragma once

#include "compare/NodeHeat.h"
#include "ir/Model.h"
#include "layout/GraphScene.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace portolan::compare {

struct HeatColour {
    std::uint8_t red = 0, green = 0, blue = 0;
};

/// The colour of `value` on `range`'s log scale: hue from green (low) to red (high) at HSV saturation
/// 0.75 and value `brightness` (0.95 on light backgrounds, 0.7 on dark ones); a non-finite value
/// (tensors that could not be compared, NaN) is the plum beyond the scale.
HeatColour heatColour(double value, const HeatRange &range, double brightness = 0.95);

/// Each box of `scene`: its node's heat or, for a collapsed group, the worst of its nodes'; NaN for
/// a box with none (constants have none). `heat`: node id of `model` → value (nodeHeat).
std::vector<double> boxHeat(const layout::GraphScene &scene, const ir::Model &model,
                            const std::unordered_map<std::uint32_t, double> &heat);

} // namespace portolan::compare
