// Heat per box and the heat colour scale (see HeatScale.h).
#include "compare/HeatScale.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace portolan::compare {

HeatColour heatColour(double value, const HeatRange &range, double brightness)
{
    if (!std::isfinite(value))
        return {0x7a, 0x10, 0x50};
    const double t = range.position(value);
    const double hue = (1 - t) * 120, saturation = 0.75; // degrees: 0 red … 120 green
    const double chroma = brightness * saturation;
    const double x = chroma * (1 - std::fabs(std::fmod(hue / 60, 2) - 1)), m = brightness - chroma;
    const double r = hue < 60 ? chroma : x, g = hue < 60 ? x : chroma;
    auto byte = [](double v) { return static_cast<std::uint8_t>(std::clamp(std::lround(v * 255), 0L, 255L)); };
    return {byte(r + m), byte(g + m), byte(m)};
}

std::vector<double> boxHeat(const layout::GraphScene &scene, const ir::Model &model,
                            const std::unordered_map<std::uint32_t, double> &heat)
{
    std::vector<double> boxes(scene.boxes().size(), std::numeric_limits<double>::quiet_NaN());
    for (const auto &[node, v] : heat) {
        if (node >= model.nodeCapacity() || model.node(ir::NodeId(node)).isConstant())
            continue;
        if (const auto box = scene.boxOf(ir::NodeId(node))) {
            double &slot = boxes[*box];
            slot = std::isnan(slot) ? v : std::max(slot, v);
        }
    }
    return boxes;
}

} // namespace portolan::compare
