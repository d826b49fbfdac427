// Edge geometry for the canvas (see CanvasGeometry.h).
#include "views/graph/CanvasGeometry.h"

#include <algorithm>
#include <cmath>

namespace portolan::views {

namespace {

// Appends segment a→b clipped to `view` (Liang–Barsky): the raster engine strokes a line running
// far off screen in full (7 ms for one long vertical edge at 1:1).
void appendClipped(QPointF a, QPointF b, const QRectF &view, std::vector<QLineF> &lines)
{
    double t0 = 0, t1 = 1;
    const double dx = b.x() - a.x(), dy = b.y() - a.y();
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {a.x() - view.left(), view.right() - a.x(), a.y() - view.top(), view.bottom() - a.y()};
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return;
            continue;
        }
        const double t = q[k] / p[k];
        if (p[k] < 0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
    }
    if (t0 <= t1)
        lines.emplace_back(a + t0 * (b - a), a + t1 * (b - a));
}

// Flattens a cubic into line segments, dropping the parts outside `view`: a long edge seen close up
// costs only what is on screen.
void flattenVisible(const QPointF (&c)[4], const QRectF &view, double scale, std::vector<QLineF> &lines, int depth)
{
    const double x0 = std::min({c[0].x(), c[1].x(), c[2].x(), c[3].x()}), x1 = std::max({c[0].x(), c[1].x(), c[2].x(), c[3].x()});
    const double y0 = std::min({c[0].y(), c[1].y(), c[2].y(), c[3].y()}), y1 = std::max({c[0].y(), c[1].y(), c[2].y(), c[3].y()});
    if (!QRectF(x0, y0, x1 - x0, y1 - y0).adjusted(-2, -2, 2, 2).intersects(view))
        return;
    // flat enough when the control points sit within half a pixel of the chord
    const QPointF chord = c[3] - c[0];
    const double length = std::hypot(chord.x(), chord.y());
    auto offChord = [&](QPointF p) {
        const QPointF d = p - c[0];
        return length > 1e-9 ? std::abs(d.x() * chord.y() - d.y() * chord.x()) / length : std::hypot(d.x(), d.y());
    };
    if (depth >= 18 || std::max(offChord(c[1]), offChord(c[2])) * scale < 0.5) {
        appendClipped(c[0], c[3], view, lines);
        return;
    }
    const QPointF a = (c[0] + c[1]) / 2, b = (c[1] + c[2]) / 2, d = (c[2] + c[3]) / 2;
    const QPointF ab = (a + b) / 2, bd = (b + d) / 2, mid = (ab + bd) / 2;
    const QPointF left[4] = {c[0], a, ab, mid}, right[4] = {mid, bd, d, c[3]};
    flattenVisible(left, view, scale, lines, depth + 1);
    flattenVisible(right, view, scale, lines, depth + 1);
}

} // namespace

QPainterPath edgePath(const layout::SceneEdge &edge)
{
    QPainterPath path(QPointF(edge.path.front().x, edge.path.front().y));
    if (edge.bezier) {
        for (std::size_t i = 1; i + 2 < edge.path.size(); i += 3)
            path.cubicTo(QPointF(edge.path[i].x, edge.path[i].y), QPointF(edge.path[i + 1].x, edge.path[i + 1].y),
                         QPointF(edge.path[i + 2].x, edge.path[i + 2].y));
    } else {
        for (std::size_t i = 1; i < edge.path.size(); ++i)
            path.lineTo(edge.path[i].x, edge.path[i].y);
    }
    return path;
}

// The on-screen part of an edge as line segments. Segments of all edges go to the raster engine in
// one drawLines call per colour: a QPainterPath per edge costs ~0.1 ms each, one path of all edges
// far more (the stroker joins them).
void visibleSegments(const layout::SceneEdge &edge, const QRectF &view, double scale, std::vector<QLineF> &lines)
{
    if (!edge.bezier) {
        for (std::size_t i = 1; i < edge.path.size(); ++i)
            appendClipped({edge.path[i - 1].x, edge.path[i - 1].y}, {edge.path[i].x, edge.path[i].y}, view, lines);
        return;
    }
    for (std::size_t i = 0; i + 3 < edge.path.size(); i += 3) {
        const QPointF c[4] = {{edge.path[i].x, edge.path[i].y}, {edge.path[i + 1].x, edge.path[i + 1].y},
                              {edge.path[i + 2].x, edge.path[i + 2].y}, {edge.path[i + 3].x, edge.path[i + 3].y}};
        flattenVisible(c, view, scale, lines, 0);
    }
}

QRectF edgeBounds(const layout::SceneEdge &edge)
{
    double x0 = edge.path.front().x, x1 = x0, y0 = edge.path.front().y, y1 = y0;
    for (const auto &p : edge.path) {
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
    }
    return QRectF(x0, y0, x1 - x0, y1 - y0).adjusted(-1, -1, 1, 1);
}

} // namespace portolan::views
