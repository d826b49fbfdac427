// GraphCanvas: the view transform is scale + offset (no QGraphicsScene: the scene is a flat array,
// culled against the viewport on each paint, which keeps 100k boxes cheap). This file holds its
// state, layout jobs, selection, heat and input handling; GraphCanvasPaint.cpp draws it.
#include "views/graph/GraphCanvas.h"

#include "views/graph/CanvasGeometry.h"

#include "compare/HeatScale.h"

#include "layout/OpCategory.h"
#ifdef PORTOLAN_HAVE_GRAPHVIZ
#include "layout/GraphvizLayout.h"
#endif

#include <QElapsedTimer>
#include <QKeyEvent>
#include <QResizeEvent>
#include <QPainter>
#include <QPainterPath>
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
    if (m_scene && !m_heat.empty())
        m_boxHeat = compare::boxHeat(*m_scene, *m_model, m_heat);
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
    const compare::HeatColour c = compare::heatColour(value, m_heatRange, m_palette.dark ? 0.7 : 0.95);
    return QColor(c.red, c.green, c.blue);
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

} // namespace portolan::views
