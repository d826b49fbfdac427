// The port report's picture of where the error is: the model's main graph laid out small (its
// top-level blocks, opened while the boxes stay few), data flowing left to right, each box filled
// by its comparison heat on a log scale — green to red, as on the canvas — and grey where nothing
// was compared. Plain SVG from core's layout, so the headless CLI draws the same as the GUI.
#pragma once

#include "ir/Model.h"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace portolan::report {

inline constexpr double kThumbnailWidth = 720, kThumbnailMaxHeight = 150;

/// SVG `width` wide and at most `maxHeight` tall (plus a caption line); "" when the graph is empty
/// or cannot be laid out. `heat`: node id → error (compare::nodeHeat).
std::string heatThumbnailSvg(const ir::Model &model, const std::unordered_map<std::uint32_t, double> &heat,
                             double width = kThumbnailWidth, double maxHeight = kThumbnailMaxHeight);

} // namespace portolan::report
