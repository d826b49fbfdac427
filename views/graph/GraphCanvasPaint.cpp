// GraphCanvas's drawing: the scene culled to the viewport with level of detail, the legends, the
// target banner, the minimap, and SVG/PNG export of the whole scene.
#include "views/graph/CanvasGeometry.h"
#include "views/graph/GraphCanvas.h"

#include "layout/OpCategory.h"

#include <QElapsedTimer>
#include <QPainter>
#include <QPainterPath>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace portolan::views {

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
