// GraphCanvas: the view transform is scale + offset (no QGraphicsScene: the scene is a flat array,
// culled against the viewport on each paint, which keeps 100k boxes cheap).
#include "graph/GraphCanvas.h"

#include "layout/OpCategory.h"
#ifdef PORTOLAN_HAVE_GRAPHVIZ
#include "layout/GraphvizLayout.h"
#endif

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QResizeEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSvgGenerator>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <limits>

namespace portolan::views {

namespace {

constexpr double kMinScale = 0.005;
constexpr double kMaxScale = 4.0;
constexpr double kTextScale = 0.45;   ///< below this zoom boxes carry no text
constexpr double kDetailScale = 0.6;  ///< below this only titles, no attribute lines or edge labels
constexpr double kTinyPixels = 3.0;   ///< boxes smaller than this on screen are batched plain rectangles

QRectF toQt(const layout::Rect &r) { return {r.x, r.y, r.width, r.height}; }

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

} // namespace

struct GraphCanvas::LayoutJob {
    std::unique_ptr<layout::GraphScene> scene;
    std::vector<BoxLabel> labels;
    std::vector<layout::OpCategory> categories;
    QString error;
};

GraphCanvas::GraphCanvas(QWidget *parent) : QWidget(parent), m_fonts(BoxFonts::standard())
{
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 150);
    m_palette = GraphPalette::from(palette());
}

GraphCanvas::~GraphCanvas()
{
    if (m_watcher)
        m_watcher->waitForFinished();
}

void GraphCanvas::setGraph(const ir::Model *model, ir::GraphId graph)
{
    if (m_watcher) {
        m_watcher->waitForFinished();
        delete m_watcher;
        m_watcher = nullptr;
    }
    m_model = model;
    m_graph = graph;
    m_scene.reset();
    m_labels.clear();
    m_categories.clear();
    m_selectedNode.reset();
    m_selectedGroup.reset();
    m_selectedValue.reset();
    m_highlightBoxes.clear();
    m_highlightEdges.clear();
    m_searchHits.clear();
    m_hitBoxes.clear();
    m_marks.clear();
    m_notes.clear();
    m_heat.clear();
    m_boxHeat.clear();
    m_unsupported.clear();
    m_boxUnsupported.clear();
    m_cache = std::make_shared<layout::SceneLayoutCache>();
    m_tree = model ? std::make_unique<ir::NameScopeTree>(ir::NameScopeTree::build(*model, graph)) : nullptr;
    m_expanded = m_tree ? layout::initialExpansion(*m_tree) : std::set<std::size_t>{};
    m_fitAfterLayout = true;
    m_minimap = {};
    if (m_model)
        requestLayout();
    update();
}

void GraphCanvas::requestLayout()
{
    if (m_watcher) { // one layout at a time: the newest request runs when this one ends
        m_layoutPending = true;
        return;
    }
    const ir::Model *model = m_model;
    const ir::GraphId graph = m_graph;
    const ir::NameScopeTree *tree = m_tree.get();
    auto cache = m_cache;
    const BoxFonts fonts = m_fonts;
    auto job = [model, graph, tree, cache, fonts, expanded = m_expanded] {
        auto result = std::make_shared<LayoutJob>();
        auto fast = layout::makeLayeredLayout();
        layout::SceneOptions options;
        options.fast = fast.get();
#ifdef PORTOLAN_HAVE_GRAPHVIZ
        auto precise = layout::makeGraphvizLayout();
        options.precise = precise.get();
#endif
        auto measure = [&](const layout::SceneBox &box) { return fonts.measure(boxLabel(*model, *tree, box)); };
        support::Expected<layout::GraphScene> scene = support::makeError("layout", "not run");
        try { // an exception must become a message, not end the program when the future is read
            scene = layout::GraphScene::build(*model, graph, *tree, expanded, measure, options, *cache);
        } catch (const std::exception &e) {
            cache->clear();
            result->error = QString::fromUtf8(e.what());
            return result;
        }
        if (!scene) {
            result->error = QString::fromStdString(scene.error().format());
            return result;
        }
        result->scene = std::make_unique<layout::GraphScene>(std::move(*scene));
        for (const auto &box : result->scene->boxes()) {
            result->labels.push_back(boxLabel(*model, *tree, box));
            result->categories.push_back(box.kind == layout::BoxKind::Node
                                             ? layout::opCategory(model->node(box.node).opType, model->node(box.node).domain)
                                             : layout::OpCategory::Elementwise);
        }
        return result;
    };
    m_watcher = new QFutureWatcher<std::shared_ptr<LayoutJob>>(this);
    connect(m_watcher, &QFutureWatcher<std::shared_ptr<LayoutJob>>::finished, this, &GraphCanvas::adoptLayout);
    m_watcher->setFuture(QtConcurrent::run(std::move(job)));
}

void GraphCanvas::adoptLayout()
{
    auto result = m_watcher->result();
    m_watcher->deleteLater();
    m_watcher = nullptr;
    if (m_layoutPending) {
        m_layoutPending = false;
        requestLayout();
        return;
    }
    if (!result->error.isEmpty()) {
        emit layoutFailed(result->error);
        return;
    }
    m_scene = std::move(result->scene);
    m_labels = std::move(result->labels);
    m_categories = std::move(result->categories);
    rebuildMinimap();
    spreadHeat();
    spreadUnsupported();
    if (m_selectedValue)
        selectValue(*m_selectedValue);
    setSearchHits(std::move(m_searchHits));
    if (m_fitAfterLayout) {
        m_fitAfterLayout = false;
        showTop();
    }
    if (m_centerAfterLayout) {
        if (auto box = m_scene->boxOf(*m_centerAfterLayout))
            centerOn(toQt(m_scene->boxes()[*box].rect).center());
        m_centerAfterLayout.reset();
    }
    if (m_centerGroupAfterLayout) {
        if (auto box = m_scene->boxOfGroup(*m_centerGroupAfterLayout))
            centerOn(toQt(m_scene->boxes()[*box].rect).center());
        m_centerGroupAfterLayout.reset();
    }
    update();
    emit sceneReady();
}

void GraphCanvas::toggleGroup(std::size_t group)
{
    if (group == 0 || !m_tree)
        return;
    if (!m_expanded.erase(group))
        m_expanded.insert(group);
    else // closing a group closes what was open inside it, so reopening starts tidy
        for (auto it = m_expanded.begin(); it != m_expanded.end();) {
            std::size_t g = *it;
            while (g != 0 && g != group)
                g = m_tree->group(g).parent;
            it = g == group ? m_expanded.erase(it) : std::next(it);
        }
    requestLayout();
}

void GraphCanvas::setExpanded(std::set<std::size_t> groups)
{
    m_expanded = std::move(groups);
    requestLayout();
}

void GraphCanvas::revealNode(ir::NodeId node)
{
    if (!m_tree)
        return;
    bool opened = false;
    for (auto g : layout::ancestorsOf(*m_tree, node))
        if (m_tree->group(g).totalNodes > 1 && m_expanded.insert(g).second)
            opened = true;
    selectNode(node);
    if (opened || !m_scene || m_watcher) { // centred once the layout in flight (or to come) is on screen
        m_centerAfterLayout = node;
        if (opened)
            requestLayout();
    } else {
        if (auto box = m_scene->boxOf(node))
            centerOn(toQt(m_scene->boxes()[*box].rect).center());
    }
}

void GraphCanvas::revealGroup(std::size_t group)
{
    if (!m_tree || group >= m_tree->groupCount())
        return;
    bool opened = false;
    for (std::size_t g = group; g != 0; g = m_tree->group(g).parent)
        if (m_tree->group(g).totalNodes > 1 && m_expanded.insert(g).second)
            opened = true;
    m_selectedNode.reset();
    m_selectedValue.reset();
    m_selectedGroup = group;
    m_highlightBoxes.clear();
    m_highlightEdges.clear();
    if (opened || !m_scene || m_watcher) { // centred once the layout in flight (or to come) is on screen
        m_centerGroupAfterLayout = group;
        if (opened)
            requestLayout();
    } else if (auto box = m_scene->boxOfGroup(group)) {
        centerOn(toQt(m_scene->boxes()[*box].rect).center());
    }
    update();
}

void GraphCanvas::selectNode(ir::NodeId node)
{
    m_selectedNode = node;
    m_selectedGroup.reset();
    m_selectedValue.reset();
    m_highlightBoxes.clear();
    m_highlightEdges.clear();
    update();
}

void GraphCanvas::selectValue(ir::ValueId value)
{
    m_selectedValue = value;
    m_highlightBoxes.clear();
    m_highlightEdges.clear();
    if (!m_scene || !m_model)
        return;
    const ir::Value &v = m_model->value(value);
    std::optional<std::size_t> from = v.producer.valid() ? m_scene->boxOf(v.producer) : m_scene->boxOfTerminal(value);
    std::set<std::size_t> to;
    for (const auto &use : v.uses)
        if (auto box = m_scene->boxOf(use.node))
            to.insert(*box);
    if (auto out = m_scene->boxOfTerminal(value); out && v.producer.valid())
        to.insert(*out);
    if (from)
        m_highlightBoxes.insert(*from);
    m_highlightBoxes.insert(to.begin(), to.end());
    for (std::size_t e = 0; e < m_scene->edges().size(); ++e) {
        const auto &edge = m_scene->edges()[e];
        if (from && edge.from == *from && to.count(edge.to))
            m_highlightEdges.insert(e);
    }
    update();
}

void GraphCanvas::setSearchHits(std::vector<ir::NodeId> hits)
{
    m_searchHits = std::move(hits);
    m_hitBoxes.clear();
    if (m_scene)
        for (auto n : m_searchHits)
            if (auto box = m_scene->boxOf(n))
                m_hitBoxes.insert(*box);
    update();
}

void GraphCanvas::setHeat(std::unordered_map<std::uint32_t, double> heat, const QString &label)
{
    m_heat = std::move(heat);
    m_heatLabel = label;
    m_heatRange = compare::heatRange(m_heat);
    spreadHeat();
    update();
}

// Each box's heat: its node's, or for a collapsed group the worst of the nodes inside.
void GraphCanvas::spreadHeat()
{
    m_boxHeat.clear();
    if (!m_scene || m_heat.empty())
        return;
    m_boxHeat.assign(m_scene->boxes().size(), std::numeric_limits<double>::quiet_NaN());
    for (const auto &[node, v] : m_heat)
        if (node < m_model->nodeCapacity())
            if (auto box = m_scene->boxOf(ir::NodeId(node)); box && !m_model->node(ir::NodeId(node)).isConstant()) {
                double &slot = m_boxHeat[*box];
                slot = std::isnan(slot) ? v : std::max(slot, v);
            }
}

void GraphCanvas::setTargetOverlay(std::unordered_map<std::uint32_t, QString> unsupported, const QString &label)
{
    m_unsupported = std::move(unsupported);
    m_targetLabel = label;
    spreadUnsupported();
    update();
}

// A box is framed when its node, or for a collapsed group any node inside, is unsupported.
void GraphCanvas::spreadUnsupported()
{
    m_boxUnsupported.clear();
    if (!m_scene || m_unsupported.empty())
        return;
    m_boxUnsupported.assign(m_scene->boxes().size(), false);
    for (const auto &[node, why] : m_unsupported)
        if (node < m_model->nodeCapacity() && m_model->node(ir::NodeId(node)).graph == m_graph)
            if (auto box = m_scene->boxOf(ir::NodeId(node)))
                m_boxUnsupported[*box] = true;
}

QColor GraphCanvas::heatColor(double value) const
{
    if (!std::isfinite(value))
        return QColor(0x7a, 0x10, 0x50); // could not compare, or NaN: beyond the scale
    const double t = m_heatRange.position(value);
    return QColor::fromHsvF(static_cast<float>((1 - t) * 0.33), 0.75f, m_palette.dark ? 0.7f : 0.95f);
}

QColor GraphCanvas::heatColorOfBox(std::size_t box) const
{
    if (box >= m_boxHeat.size() || std::isnan(m_boxHeat[box]))
        return {};
    return heatColor(m_boxHeat[box]);
}

void GraphCanvas::setMarks(std::unordered_map<std::uint32_t, NodeMark> marks, std::unordered_map<std::uint32_t, QString> notes)
{
    m_marks = std::move(marks);
    m_notes = std::move(notes);
    update();
}

bool GraphCanvas::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_scene && m_model) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QPointF p = toScene(help->pos());
        if (auto hit = m_scene->hit({p.x(), p.y()}); hit && m_scene->boxes()[*hit].kind == layout::BoxKind::Node) {
            const ir::Node &node = m_model->node(m_scene->boxes()[*hit].node);
            QString tip = QString::fromStdString(node.opType + (node.name.empty() ? "" : "  " + node.name)).toHtmlEscaped();
            if (auto note = m_notes.find(node.id.index); note != m_notes.end())
                tip += QStringLiteral("<br>") + note->second;
            if (auto why = m_unsupported.find(node.id.index); why != m_unsupported.end())
                tip += QStringLiteral("<br><b>") + tr("Not on %1:").arg(m_targetLabel.toHtmlEscaped()) + QStringLiteral("</b> ") +
                       why->second.toHtmlEscaped();
            QToolTip::showText(help->globalPos(), tip, this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

QPointF GraphCanvas::toScene(QPointF p) const { return (p - m_offset) / m_scale; }
QPointF GraphCanvas::toWidget(QPointF p) const { return p * m_scale + m_offset; }

void GraphCanvas::fitToView()
{
    if (!m_scene)
        return;
    const QRectF bounds = toQt(m_scene->bounds()).adjusted(-20, -20, 20, 20);
    const double sx = width() / std::max(1.0, bounds.width());
    const double sy = height() / std::max(1.0, bounds.height());
    m_scale = std::clamp(std::min({sx, sy, 1.0}), kMinScale, kMaxScale);
    m_offset = QPointF(width() / 2.0, height() / 2.0) - bounds.center() * m_scale;
    update();
}

void GraphCanvas::showTop()
{
    if (!m_scene)
        return;
    const QRectF bounds = toQt(m_scene->bounds()).adjusted(-20, -20, 20, 20);
    const double fit = std::min({width() / std::max(1.0, bounds.width()), height() / std::max(1.0, bounds.height()), 1.0});
    if (fit >= kDetailScale) {
        fitToView();
        return;
    }
    // too big to read whole: open readable at the graph's entry (as Netron does); the minimap shows the rest
    m_scale = 0.9;
    double entryX = bounds.center().x();
    for (const auto &box : m_scene->boxes())
        if (box.kind == layout::BoxKind::GraphInput) {
            entryX = box.rect.center().x;
            break;
        }
    m_offset = QPointF(width() / 2.0 - entryX * m_scale, -bounds.top() * m_scale);
    update();
}

void GraphCanvas::zoomBy(double factor, QPointF anchor)
{
    const QPointF sceneAnchor = toScene(anchor);
    m_scale = std::clamp(m_scale * factor, kMinScale, kMaxScale);
    m_offset = anchor - sceneAnchor * m_scale;
    update();
}

void GraphCanvas::centerOn(QPointF scenePoint)
{
    m_scale = std::max(m_scale, kDetailScale);
    m_offset = QPointF(width() / 2.0, height() / 2.0) - scenePoint * m_scale;
    update();
}

bool GraphCanvas::boxHighlighted(std::size_t box) const { return m_highlightBoxes.count(box) != 0; }

void GraphCanvas::paintScene(QPainter &painter, const QRectF &sceneRect, double scale) const
{
    const auto &boxes = m_scene->boxes();
    const auto &edges = m_scene->edges();
    const bool text = scale >= kTextScale;
    const bool detail = scale >= kDetailScale;

    // frames first (outer before inner: boxes are stored parent before children)
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const auto &box = boxes[i];
        if (box.kind != layout::BoxKind::ExpandedGroup)
            continue;
        const QRectF r = toQt(box.rect);
        if (!r.intersects(sceneRect))
            continue;
        painter.setPen(QPen(m_selectedGroup == box.group ? m_palette.selection : m_palette.frame, 1.0 / scale));
        painter.setBrush(box.depth % 2 ? m_palette.background : m_palette.frameHeader.lighter(104));
        painter.drawRoundedRect(r, 6, 6);
        if (text) {
            painter.setFont(m_fonts.title);
            painter.setPen(m_palette.mutedText);
            const QRectF header(r.x() + 8, r.y() + 3, r.width() - 16, 18);
            const QString title = m_labels[i].title + QStringLiteral("  ·  ") + m_labels[i].subtitle;
            painter.drawText(header, Qt::AlignLeft | Qt::AlignVCenter,
                             QFontMetricsF(m_fonts.title).elidedText(title, Qt::ElideRight, header.width()));
        }
    }

    // edges: skipped when boxes are specks (an unreadable hairball costs more than it shows)
    const bool tiny = 40 * scale < kTinyPixels;
    if (!tiny) {
        QPen pen(m_palette.edge, 1.2);
        pen.setCosmetic(true); // widths in pixels at any zoom
        painter.setBrush(Qt::NoBrush);
        std::vector<QLineF> plain, hot;
        QPainterPath plainHeads, hotHeads;
        const QRectF clip = sceneRect.adjusted(-8 / scale, -8 / scale, 8 / scale, 8 / scale);
        for (std::size_t e = 0; e < edges.size(); ++e) {
            const auto &edge = edges[e];
            if (edge.path.size() < 2 || !edgeBounds(edge).intersects(sceneRect))
                continue;
            const bool highlighted = m_highlightEdges.count(e) != 0;
            visibleSegments(edge, clip, scale, highlighted ? hot : plain);
            if (scale >= kTextScale) { // arrow head at the consumer
                const QPointF tip(edge.path.back().x, edge.path.back().y);
                (highlighted ? hotHeads : plainHeads).addPolygon(QPolygonF{tip, tip + QPointF(-4, -7), tip + QPointF(4, -7), tip});
            }
            if (detail && m_model) {
                const ir::Value &v = m_model->value(edge.value);
                const QString shape = v.isInitializer() || !v.shape().rankKnown() ? QString() : shapeText(v.shape());
                if (!shape.isEmpty()) {
                    const QPointF mid = edgePath(edge).pointAtPercent(0.5);
                    painter.setFont(m_fonts.body);
                    painter.setPen(m_palette.mutedText);
                    painter.drawText(mid + QPointF(4, 3), edge.valueCount > 1 ? shape + QStringLiteral(" +%1").arg(edge.valueCount - 1) : shape);
                }
            }
        }
        for (const auto &[lines, heads, colour, width] : {std::tuple{&plain, &plainHeads, m_palette.edge, 1.2},
                                                          std::tuple{&hot, &hotHeads, m_palette.edgeHighlight, 2.5}}) {
            pen.setColor(colour);
            pen.setWidthF(width);
            painter.setPen(pen);
            if (!lines->empty())
                painter.drawLines(lines->data(), static_cast<int>(lines->size()));
            painter.setBrush(colour);
            painter.drawPath(*heads);
        }
        painter.setBrush(Qt::NoBrush);
    }

    // boxes
    std::vector<std::vector<QRectF>> batches(static_cast<std::size_t>(layout::OpCategory::Custom) + 2);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const auto &box = boxes[i];
        if (box.kind == layout::BoxKind::ExpandedGroup)
            continue;
        const QRectF r = toQt(box.rect);
        if (!r.intersects(sceneRect))
            continue;
        const bool selected = (box.kind == layout::BoxKind::Node && m_selectedNode == box.node) ||
                              (box.kind == layout::BoxKind::CollapsedGroup && m_selectedGroup == box.group);
        const bool marked = selected || boxHighlighted(i) || m_hitBoxes.count(i) || boxUnsupported(i) ||
                            (box.kind == layout::BoxKind::Node && m_marks.count(box.node.index));
        if (r.height() * scale < kTinyPixels && !marked) {
            batches[box.kind == layout::BoxKind::Node ? static_cast<std::size_t>(m_categories[i]) : batches.size() - 1]
                .push_back(r);
            continue;
        }
        QColor fill = box.kind == layout::BoxKind::Node             ? m_palette.fill(m_categories[i])
                      : box.kind == layout::BoxKind::CollapsedGroup ? m_palette.groupFill()
                                                                    : m_palette.terminalFill();
        if (!m_boxHeat.empty() && box.kind != layout::BoxKind::GraphInput && box.kind != layout::BoxKind::GraphOutput) {
            const QColor heat = heatColorOfBox(i); // not compared: neutral, so the compared ones stand out
            fill = heat.isValid() ? heat : m_palette.groupFill();
        }
        QPen pen(selected ? m_palette.selection : boxHighlighted(i) ? m_palette.edgeHighlight : fill.darker(150),
                 (selected || boxHighlighted(i) ? 2.5 : 1.0) / scale);
        if (m_hitBoxes.count(i) && !selected)
            pen = QPen(m_palette.searchHit.darker(120), 3.0 / scale);
        const auto mark = box.kind == layout::BoxKind::Node ? m_marks.find(box.node.index) : m_marks.end();
        if (mark != m_marks.end() && !selected)
            pen = QPen(mark->second == NodeMark::Created ? m_palette.created : m_palette.removed, 3.0 / scale);
        else if (boxUnsupported(i) && !selected)
            pen = QPen(m_palette.unsupported, 3.0 / scale, Qt::DashLine);
        painter.setPen(pen);
        painter.setBrush(fill);
        if (box.kind == layout::BoxKind::CollapsedGroup) { // a stacked look says "there is more inside"
            painter.drawRoundedRect(r.translated(3, 3), 5, 5);
        }
        painter.drawRoundedRect(r, 5, 5);
        if (mark != m_marks.end() && mark->second == NodeMark::Removed) // struck through: gone after the pass
            painter.drawLine(r.bottomLeft() + QPointF(4, -4), r.topRight() + QPointF(-4, 4));
        if (!text)
            continue;
        const BoxLabel &label = m_labels[i];
        const QFontMetricsF tm(m_fonts.title), bm(m_fonts.body);
        const double pad = BoxFonts::kPadding;
        QRectF line(r.x() + pad, r.y() + pad, r.width() - 2 * pad, tm.height());
        painter.setFont(m_fonts.title);
        painter.setPen(m_palette.text);
        painter.drawText(line, Qt::AlignHCenter | Qt::AlignVCenter, tm.elidedText(label.title, Qt::ElideRight, line.width()));
        if (!detail)
            continue;
        painter.setFont(m_fonts.body);
        line.translate(0, tm.height());
        line.setHeight(bm.height());
        if (!label.subtitle.isEmpty()) {
            painter.setPen(m_palette.mutedText);
            painter.drawText(line, Qt::AlignHCenter | Qt::AlignVCenter,
                             bm.elidedText(label.subtitle, Qt::ElideMiddle, line.width()));
            line.translate(0, bm.height());
        }
        painter.setPen(m_palette.text);
        for (const auto &l : label.lines) {
            painter.drawText(line, Qt::AlignHCenter | Qt::AlignVCenter, bm.elidedText(l, Qt::ElideRight, line.width()));
            line.translate(0, bm.height());
        }
    }
    painter.setPen(Qt::NoPen);
    for (std::size_t c = 0; c < batches.size(); ++c) {
        if (batches[c].empty())
            continue;
        painter.setBrush(c + 1 == batches.size() ? m_palette.groupFill().darker(130)
                                                 : m_palette.fill(static_cast<layout::OpCategory>(c)).darker(115));
        painter.drawRects(batches[c].data(), static_cast<int>(batches[c].size()));
    }
}

void GraphCanvas::paintEvent(QPaintEvent *)
{
    QElapsedTimer timer;
    timer.start();
    QPainter painter(this);
    painter.fillRect(rect(), m_palette.background);
    if (!m_scene) {
        painter.setPen(m_palette.mutedText);
        painter.drawText(rect(), Qt::AlignCenter,
                         m_model ? tr("Laying out the graph…") : tr("Open an ONNX model (File → Open…) to see its graph."));
        return;
    }
    painter.setRenderHint(QPainter::Antialiasing, m_scale > 0.2);
    painter.save();
    painter.translate(m_offset);
    painter.scale(m_scale, m_scale);
    paintScene(painter, QRectF(toScene(QPointF(0, 0)), toScene(QPointF(width(), height()))), m_scale);
    painter.restore();
    if (m_showMinimap)
        paintMinimap(painter);
    if (m_showLegend && !m_boxHeat.empty())
        paintHeatLegend(painter);
    else if (m_showLegend)
        paintLegend(painter);
    if (!m_unsupported.empty())
        paintTargetBanner(painter);
    m_lastPaintMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

QString GraphCanvas::categoryLabel(layout::OpCategory category)
{
    switch (category) {
    case layout::OpCategory::Layer: return tr("Conv / MatMul / attention");
    case layout::OpCategory::Activation: return tr("activation");
    case layout::OpCategory::Normalization: return tr("normalization");
    case layout::OpCategory::Pooling: return tr("pooling / resize");
    case layout::OpCategory::Elementwise: return tr("elementwise / reduction");
    case layout::OpCategory::Shape: return tr("shape / data movement");
    case layout::OpCategory::Quantization: return tr("quantization");
    case layout::OpCategory::ControlFlow: return tr("control flow");
    case layout::OpCategory::Constant: return tr("constant");
    case layout::OpCategory::Custom: return tr("custom domain");
    }
    return {};
}

// The colours in use, top left: what a fill means without opening the inspector.
void GraphCanvas::paintLegend(QPainter &painter)
{
    std::set<layout::OpCategory> used;
    for (std::size_t i = 0; i < m_scene->boxes().size(); ++i)
        if (m_scene->boxes()[i].kind == layout::BoxKind::Node)
            used.insert(m_categories[i]);
    if (used.empty())
        return;
    painter.setFont(m_fonts.body);
    const QFontMetricsF fm(m_fonts.body);
    double width = 0;
    for (auto c : used)
        width = std::max(width, fm.horizontalAdvance(categoryLabel(c)));
    const double line = fm.height() + 3;
    const QRectF frame(10, 10, width + 34, line * static_cast<double>(used.size()) + 10);
    QColor back = m_palette.background;
    back.setAlpha(230);
    painter.setPen(m_palette.frame);
    painter.setBrush(back);
    painter.drawRoundedRect(frame, 4, 4);
    double y = frame.top() + 5;
    for (auto c : used) {
        painter.setPen(m_palette.fill(c).darker(150));
        painter.setBrush(m_palette.fill(c));
        painter.drawRoundedRect(QRectF(frame.left() + 8, y + 2, 14, line - 6), 2, 2);
        painter.setPen(m_palette.text);
        painter.drawText(QRectF(frame.left() + 28, y, width + 4, line), Qt::AlignLeft | Qt::AlignVCenter, categoryLabel(c));
        y += line;
    }
}

// Bottom left, clear of the legend (top left) and the minimap (bottom right).
void GraphCanvas::paintTargetBanner(QPainter &painter)
{
    painter.setFont(m_fonts.body);
    const QFontMetricsF fm(m_fonts.body);
    const QString text = tr("%1: %n node(s) it cannot run, framed dashed", nullptr, static_cast<int>(m_unsupported.size()))
                             .arg(m_targetLabel);
    const QRectF frame(10, height() - fm.height() - 22, fm.horizontalAdvance(text) + 40, fm.height() + 12);
    QColor back = m_palette.background;
    back.setAlpha(235);
    painter.setPen(m_palette.frame);
    painter.setBrush(back);
    painter.drawRoundedRect(frame, 4, 4);
    painter.setPen(QPen(m_palette.unsupported, 2.0, Qt::DashLine));
    painter.setBrush(Qt::NoBrush);
    painter.drawRoundedRect(QRectF(frame.left() + 8, frame.top() + 5, 16, frame.height() - 10), 2, 2);
    painter.setPen(m_palette.text);
    painter.drawText(frame.adjusted(30, 0, -6, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
}

void GraphCanvas::paintHeatLegend(QPainter &painter)
{
    painter.setFont(m_fonts.body);
    const QFontMetricsF fm(m_fonts.body);
    const QRectF frame(10, 10, std::max(220.0, fm.horizontalAdvance(m_heatLabel) + 20), fm.height() * 3 + 28);
    QColor back = m_palette.background;
    back.setAlpha(235);
    painter.setPen(m_palette.frame);
    painter.setBrush(back);
    painter.drawRoundedRect(frame, 4, 4);
    painter.setPen(m_palette.text);
    painter.drawText(QRectF(frame.left() + 8, frame.top() + 4, frame.width() - 16, fm.height()), Qt::AlignLeft, m_heatLabel);
    const QRectF bar(frame.left() + 8, frame.top() + fm.height() + 8, frame.width() - 16, 12);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int k = 0; k <= 10; ++k)
        gradient.setColorAt(k / 10.0, heatColor(std::pow(10.0, std::log10(m_heatRange.low) + (std::log10(m_heatRange.high) - std::log10(m_heatRange.low)) * k / 10.0)));
    painter.fillRect(bar, gradient);
    const QRectF labels(bar.left(), bar.bottom() + 2, bar.width(), fm.height());
    painter.drawText(labels, Qt::AlignLeft, QString::number(m_heatRange.low, 'g', 2));
    painter.drawText(labels, Qt::AlignRight, QString::number(m_heatRange.high, 'g', 2));
    painter.drawText(labels, Qt::AlignHCenter, tr("log scale"));
    painter.setPen(m_palette.mutedText);
    painter.drawText(QRectF(bar.left(), labels.bottom() + 2, bar.width(), fm.height()), Qt::AlignLeft,
                     tr("grey: not compared"));
}

QRectF GraphCanvas::minimapRect() const
{
    if (!m_scene || m_minimap.isNull())
        return {};
    const QSizeF size = m_minimap.size();
    return QRectF(width() - size.width() - 12, height() - size.height() - 12, size.width(), size.height());
}

void GraphCanvas::rebuildMinimap()
{
    const QRectF bounds = toQt(m_scene->bounds());
    if (bounds.isEmpty()) {
        m_minimap = {};
        return;
    }
    const double s = std::min(180.0 / bounds.width(), 140.0 / bounds.height());
    m_minimap = QImage(std::max(20, int(bounds.width() * s)), std::max(20, int(bounds.height() * s)),
                       QImage::Format_ARGB32_Premultiplied);
    QColor back = m_palette.background;
    back.setAlpha(225);
    m_minimap.fill(back);
    QPainter p(&m_minimap);
    p.scale(s, s);
    p.translate(-bounds.topLeft());
    for (std::size_t i = 0; i < m_scene->boxes().size(); ++i) {
        const auto &box = m_scene->boxes()[i];
        if (box.kind == layout::BoxKind::ExpandedGroup)
            continue;
        p.fillRect(toQt(box.rect), box.kind == layout::BoxKind::Node ? m_palette.fill(m_categories[i]).darker(120)
                                                                     : m_palette.groupFill().darker(130));
    }
}

void GraphCanvas::paintMinimap(QPainter &painter)
{
    const QRectF area = minimapRect();
    const QRectF visible(toScene(QPointF(0, 0)), toScene(QPointF(width(), height())));
    if (area.isEmpty() || area.width() > width() / 3.0 || visible.contains(toQt(m_scene->bounds())))
        return; // nothing off screen to show the way to
    painter.drawImage(area.topLeft(), m_minimap);
    painter.setPen(m_palette.frame);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(area);
    const QRectF bounds = toQt(m_scene->bounds());
    const double s = area.width() / bounds.width();
    QRectF view(toScene(QPointF(0, 0)), toScene(QPointF(width(), height())));
    view = QRectF(area.topLeft() + (view.topLeft() - bounds.topLeft()) * s, view.size() * s).intersected(area);
    painter.setPen(QPen(m_palette.selection, 1.5));
    painter.drawRect(view);
}

void GraphCanvas::resizeEvent(QResizeEvent *event)
{
    // keep what was in the middle in the middle (a canvas in a hidden tab is laid out at another size)
    if (event->oldSize().isValid())
        m_offset += QPointF(event->size().width() - event->oldSize().width(), event->size().height() - event->oldSize().height()) / 2;
    update();
}

void GraphCanvas::wheelEvent(QWheelEvent *event)
{
    const double steps = event->angleDelta().y() / 120.0;
    zoomBy(std::pow(1.2, steps), event->position());
    event->accept();
}

void GraphCanvas::mousePressEvent(QMouseEvent *event)
{
    m_pressPos = m_lastDragPos = event->position();
    m_dragging = false;
    m_minimapDrag = minimapRect().contains(event->position());
}

void GraphCanvas::mouseMoveEvent(QMouseEvent *event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    if (m_minimapDrag && m_scene) {
        const QRectF area = minimapRect();
        const QRectF bounds = toQt(m_scene->bounds());
        const double s = area.width() / bounds.width();
        const QPointF scenePoint = bounds.topLeft() + (event->position() - area.topLeft()) / s;
        m_offset = QPointF(width() / 2.0, height() / 2.0) - scenePoint * m_scale;
        update();
        return;
    }
    if ((event->position() - m_pressPos).manhattanLength() > 3)
        m_dragging = true;
    if (m_dragging) {
        m_offset += event->position() - m_lastDragPos;
        m_lastDragPos = event->position();
        setCursor(Qt::ClosedHandCursor);
        update();
    }
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent *event)
{
    unsetCursor();
    if (!m_dragging && !m_minimapDrag && event->button() == Qt::LeftButton)
        clickAt(event->position());
    m_dragging = m_minimapDrag = false;
}

void GraphCanvas::clickAt(QPointF widgetPoint)
{
    if (!m_scene)
        return;
    const QPointF p = toScene(widgetPoint);
    auto hit = m_scene->hit({p.x(), p.y()});
    if (!hit || m_scene->boxes()[*hit].kind == layout::BoxKind::ExpandedGroup) {
        if (auto edge = edgeAt(p)) { // a click on an edge (in a frame or outside) selects its tensor
            const ir::ValueId value = m_scene->edges()[*edge].value;
            selectValue(value);
            emit valueSelected(value);
            return;
        }
        if (!hit)
            return;
    }
    const auto &box = m_scene->boxes()[*hit];
    switch (box.kind) {
    case layout::BoxKind::Node:
        selectNode(box.node);
        emit nodeSelected(box.node);
        break;
    case layout::BoxKind::CollapsedGroup:
    case layout::BoxKind::ExpandedGroup:
        m_selectedNode.reset();
        m_selectedGroup = box.group;
        update();
        emit groupSelected(box.group);
        break;
    case layout::BoxKind::GraphInput:
    case layout::BoxKind::GraphOutput:
        selectValue(box.value);
        emit valueSelected(box.value);
        break;
    }
}

std::optional<std::size_t> GraphCanvas::edgeAt(QPointF scenePoint) const
{
    const double reach = 5.0 / m_scale; // five pixels either side
    std::optional<std::size_t> best;
    double bestDistance = reach;
    for (std::size_t e = 0; e < m_scene->edges().size(); ++e) {
        const auto &edge = m_scene->edges()[e];
        if (edge.path.size() < 2 || !edgeBounds(edge).adjusted(-reach, -reach, reach, reach).contains(scenePoint))
            continue;
        for (const QPolygonF &polygon : edgePath(edge).toSubpathPolygons())
            for (qsizetype i = 1; i < polygon.size(); ++i) {
                const QPointF a = polygon[i - 1], d = polygon[i] - a;
                const double len2 = QPointF::dotProduct(d, d);
                const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(scenePoint - a, d) / len2, 0.0, 1.0) : 0.0;
                const QPointF off = scenePoint - (a + t * d);
                if (const double distance = std::hypot(off.x(), off.y()); distance < bestDistance) {
                    bestDistance = distance;
                    best = e;
                }
            }
    }
    return best;
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (!m_scene)
        return;
    const QPointF p = toScene(event->position());
    if (auto hit = m_scene->hit({p.x(), p.y()})) {
        const auto &box = m_scene->boxes()[*hit];
        if (box.kind == layout::BoxKind::CollapsedGroup || box.kind == layout::BoxKind::ExpandedGroup) {
            m_centerAfterLayout.reset();
            m_centerGroupAfterLayout.reset();
            toggleGroup(box.group);
        } else if (box.kind == layout::BoxKind::Node) {
            for (const auto &attribute : m_model->node(box.node).attributes)
                if (!attribute.subgraphs.empty()) { // If/Loop/Scan: their bodies open in tabs of their own
                    emit subgraphRequested(box.node);
                    break;
                }
        }
    }
}

void GraphCanvas::keyPressEvent(QKeyEvent *event)
{
    const QPointF middle(width() / 2.0, height() / 2.0);
    switch (event->key()) {
    case Qt::Key_F: fitToView(); break;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.25, middle); break;
    case Qt::Key_Minus: zoomBy(0.8, middle); break;
    case Qt::Key_Left: m_offset += QPointF(60, 0); update(); break;
    case Qt::Key_Right: m_offset -= QPointF(60, 0); update(); break;
    case Qt::Key_Up: m_offset += QPointF(0, 60); update(); break;
    case Qt::Key_Down: m_offset -= QPointF(0, 60); update(); break;
    case Qt::Key_M: m_showMinimap = !m_showMinimap; update(); break;
    case Qt::Key_L: m_showLegend = !m_showLegend; update(); break;
    default: QWidget::keyPressEvent(event);
    }
}

void GraphCanvas::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) { // the system switched between light and dark
        m_palette = GraphPalette::from(palette());
        if (m_scene)
            rebuildMinimap();
        update();
    }
    QWidget::changeEvent(event);
}

bool GraphCanvas::exportSvg(const QString &path) const
{
    if (!m_scene)
        return false;
    const QRectF bounds = toQt(m_scene->bounds()).adjusted(-10, -10, 10, 10);
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(bounds.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), bounds.size()));
    svg.setTitle(tr("Portolan graph"));
    QPainter painter;
    if (!painter.begin(&svg))
        return false;
    painter.fillRect(QRectF(QPointF(0, 0), bounds.size()), m_palette.background);
    painter.translate(-bounds.topLeft());
    paintScene(painter, bounds, 1.0);
    return painter.end();
}

bool GraphCanvas::exportPng(const QString &path, double scale) const
{
    if (!m_scene)
        return false;
    const QRectF bounds = toQt(m_scene->bounds()).adjusted(-10, -10, 10, 10);
    scale = std::min(scale, 16384.0 / std::max(bounds.width(), bounds.height()));
    QImage image((bounds.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    image.fill(m_palette.background);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.scale(scale, scale);
    painter.translate(-bounds.topLeft());
    paintScene(painter, bounds, scale);
    painter.end();
    return image.save(path, "PNG");
}

} // namespace portolan::views
