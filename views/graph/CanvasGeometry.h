// Scene geometry shared by the canvas's painting and its hit tests: layout rectangles as Qt's, an
// edge's bounds and path, and the on-screen part of an edge as clipped line segments.
#pragma once

#include "layout/GraphScene.h"

#include <QLineF>
#include <QPainterPath>
#include <QRectF>

#include <vector>

namespace portolan::views {

/// Zoom levels the canvas's drawing changes at.
constexpr double kTextScale = 0.45;  ///< below this zoom boxes carry no text
constexpr double kDetailScale = 0.6; ///< below this only titles, no attribute lines or edge labels
constexpr double kTinyPixels = 3.0;  ///< boxes smaller than this on screen are batched plain rectangles

inline QRectF toQt(const layout::Rect &r) { return {r.x, r.y, r.width, r.height}; }

/// The edge's spline as a path (scene coordinates).
QPainterPath edgePath(const layout::SceneEdge &edge);
/// The on-screen part of an edge, flattened for `scale`, appended to `lines`.
void visibleSegments(const layout::SceneEdge &edge, const QRectF &view, double scale, std::vector<QLineF> &lines);
/// The edge's bounding box, one unit larger all round.
QRectF edgeBounds(const layout::SceneEdge &edge);

} // namespace portolan::views
