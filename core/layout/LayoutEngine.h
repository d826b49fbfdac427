// Graph layout behind one narrow interface: Graphviz dot where it is built, a layered layout always.
// Coordinates are in points, y growing downwards (Qt's convention); data flows top to bottom.
#pragma once

#include "support/Expected.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace portolan::layout {

struct Point {
    double x = 0;
    double y = 0;
};

struct LayoutInput {
    struct Node {
        double width = 0;
        double height = 0;
    };
    struct Edge {
        std::uint32_t from = 0; ///< index into nodes
        std::uint32_t to = 0;
    };
    std::vector<Node> nodes;
    std::vector<Edge> edges;
    double nodeSpacing = 24;  ///< horizontal gap between boxes of one rank
    double rankSpacing = 40;  ///< vertical gap between ranks
};

struct LayoutResult {
    std::vector<Point> centers;               ///< one per input node
    std::vector<std::vector<Point>> edgePaths; ///< one polyline (or Bézier control points) per input edge
    bool edgePathsAreBezier = false;          ///< Graphviz splines: cubic Bézier control points
    double width = 0;
    double height = 0;
    std::string engine;
};

class LayoutEngine {
public:
    virtual ~LayoutEngine() = default;
    virtual std::string name() const = 0;
    /// Lays out a directed acyclic graph (edges closing a cycle are tolerated, not honoured).
    virtual support::Expected<LayoutResult> layout(const LayoutInput &input) = 0;
};

/// Longest-path ranks, barycentric ordering: linear-ish time, for any size.
std::unique_ptr<LayoutEngine> makeLayeredLayout();

} // namespace portolan::layout
