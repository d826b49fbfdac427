// Laying the graph out with the layered engine and writing it as SVG (see HeatThumbnail.h).
#include "report/HeatThumbnail.h"

#include "compare/HeatScale.h"

#include "compare/NodeHeat.h"
#include "ir/NameScopes.h"
#include "layout/GraphScene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace portolan::report {

namespace {

/// Boxes visible at most: past this the picture is a smear, not a map.
constexpr std::size_t kBoxBudget = 60;

std::string num(double x)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", x);
    return buffer;
}

std::string escaped(const std::string &text)
{
    std::string out;
    for (const char c : text)
        out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;" : std::string(1, c);
    return out;
}

/// The scale's colour of `value` as "#rrggbb".
std::string heatColourText(double value, const compare::HeatRange &range)
{
    const compare::HeatColour c = compare::heatColour(value, range);
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", c.red, c.green, c.blue);
    return buffer;
}

std::string exponent(double x)
{
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.0e", x);
    return buffer;
}

} // namespace

std::string heatThumbnailSvg(const ir::Model &model, const std::unordered_map<std::uint32_t, double> &heat, double width,
                             double maxHeight)
{
    const ir::NameScopeTree tree = ir::NameScopeTree::build(model, model.mainGraph());
    if (tree.root().totalNodes == 0)
        return {};
    const std::set<std::size_t> expanded = layout::initialExpansion(tree, kBoxBudget);
    auto measure = [](const layout::SceneBox &box) {
        switch (box.kind) {
        case layout::BoxKind::CollapsedGroup: return layout::Size{90, 34};
        case layout::BoxKind::GraphInput:
        case layout::BoxKind::GraphOutput: return layout::Size{40, 16};
        default: return layout::Size{60, 24};
        }
    };
    const auto fast = layout::makeLayeredLayout();
    layout::SceneOptions options;
    options.fast = fast.get();
    layout::SceneLayoutCache cache;
    const auto scene = layout::GraphScene::build(model, model.mainGraph(), tree, expanded, measure, options, cache);
    if (!scene || scene->bounds().width <= 0 || scene->bounds().height <= 0)
        return {};

    const std::vector<double> boxHeat = compare::boxHeat(*scene, model, heat);
    const compare::HeatRange range = compare::heatRange(heat);

    // Rotated a quarter turn: the scene's y (data flow) becomes x.
    const layout::Rect bounds = scene->bounds();
    const double scale = std::min(width / bounds.height, maxHeight / bounds.width);
    const double w = bounds.height * scale, h = bounds.width * scale;
    auto at = [&](layout::Point p) { return num((p.y - bounds.y) * scale) + "," + num((p.x - bounds.x) * scale); };
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(h + 18) +
                      "\" viewBox=\"0 0 " + num(width) + " " + num(h + 18) + "\" role=\"img\" aria-label=\"error on the graph\">";
    svg += "<rect width=\"" + num(w) + "\" height=\"" + num(h) + "\" fill=\"#fafaf8\"/>";
    for (const layout::SceneBox &box : scene->boxes())
        if (box.kind == layout::BoxKind::ExpandedGroup && box.depth > 0)
            svg += "<rect x=\"" + num((box.rect.y - bounds.y) * scale) + "\" y=\"" + num((box.rect.x - bounds.x) * scale) +
                   "\" width=\"" + num(box.rect.height * scale) + "\" height=\"" + num(box.rect.width * scale) +
                   "\" fill=\"none\" stroke=\"#c8ccd4\" stroke-width=\"0.6\"/>";
    for (const layout::SceneEdge &edge : scene->edges()) {
        if (edge.path.size() < 2)
            continue;
        std::string points;
        if (edge.bezier) // only the ends and the control points' course matter at this size
            points = at(edge.path.front()) + " " + at(edge.path.back());
        else
            for (const layout::Point &p : edge.path)
                points += at(p) + " ";
        svg += "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"#9aa0a8\" stroke-width=\"0.5\"/>";
    }
    for (std::size_t i = 0; i < scene->boxes().size(); ++i) {
        const layout::SceneBox &box = scene->boxes()[i];
        if (box.kind == layout::BoxKind::ExpandedGroup)
            continue;
        const bool terminal = box.kind == layout::BoxKind::GraphInput || box.kind == layout::BoxKind::GraphOutput;
        const std::string fill = terminal ? "#ffffff" : std::isnan(boxHeat[i]) ? "#dcdde0" : heatColourText(boxHeat[i], range);
        std::string label;
        if (box.kind == layout::BoxKind::Node) {
            const ir::Node &node = model.node(box.node);
            label = node.opType + (node.name.empty() ? "" : " " + node.name);
        } else if (box.kind == layout::BoxKind::CollapsedGroup) {
            label = tree.pathOf(box.group);
        } else {
            label = model.value(box.value).name;
        }
        if (!std::isnan(boxHeat[i]))
            label += ": " + exponent(boxHeat[i]);
        svg += "<rect x=\"" + num((box.rect.y - bounds.y) * scale) + "\" y=\"" + num((box.rect.x - bounds.x) * scale) +
               "\" width=\"" + num(box.rect.height * scale) + "\" height=\"" + num(box.rect.width * scale) + "\" rx=\"1.5\" fill=\"" +
               fill + "\" stroke=\"#6b7078\" stroke-width=\"0.4\"><title>" + escaped(label) + "</title></rect>";
    }
    svg += "<text x=\"0\" y=\"" + num(h + 13) + "\" font-size=\"10\" fill=\"#555\">the graph, data flowing left to right; fill: max "
           "|error| / scale of the node's worst output, log scale, green " + exponent(range.low) + " to red " + exponent(range.high) +
           "; grey: not compared</text></svg>";
    return svg;
}

} // namespace portolan::report
