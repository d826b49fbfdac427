// The graph canvas: paints a GraphScene with pan, zoom to the cursor, fit, a minimap, level of
// detail (text only where it is readable, plain batched rectangles when boxes are a few pixels),
// selection, search hits, a tensor's producer/consumer highlight, a comparison's heat and a
// target's unsupported nodes. Layouts run on a worker thread.
#pragma once

#include "views/graph/BoxLabel.h"
#include "compare/NodeHeat.h"
#include "views/graph/GraphPalette.h"
#include "layout/GraphScene.h"

#include <QFutureWatcher>
#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace portolan::views {

/// How a pass's diff marks a node: gone after the pass, or made by it.
enum class NodeMark { Removed, Created };

class GraphCanvas : public QWidget {
    Q_OBJECT
public:
    explicit GraphCanvas(QWidget *parent = nullptr);
    ~GraphCanvas() override;

    /// Shows `graph` of `model` (which must outlive the canvas or the next call); nullptr clears.
    void setGraph(const ir::Model *model, ir::GraphId graph);
    const ir::Model *model() const { return m_model; }
    const ir::NameScopeTree *scopes() const { return m_tree.get(); }
    ir::GraphId graph() const { return m_graph; }
    const layout::GraphScene *scene() const { return m_scene.get(); }
    bool isLayingOut() const { return m_watcher != nullptr; }

    void toggleGroup(std::size_t group);
    void setExpanded(std::set<std::size_t> groups);
    const std::set<std::size_t> &expandedGroups() const { return m_expanded; }

    /// Opens the groups around `node`, selects it and centres the view on it.
    void revealNode(ir::NodeId node);
    /// Opens `group` and the groups around it, selects it and centres the view on its frame.
    void revealGroup(std::size_t group);
    std::optional<std::size_t> selectedGroup() const { return m_selectedGroup; }
    void selectNode(ir::NodeId node);
    std::optional<ir::NodeId> selectedNode() const { return m_selectedNode; }
    /// Highlights a tensor's producer and consumers (and the edges between them).
    void selectValue(ir::ValueId value);
    void setSearchHits(std::vector<ir::NodeId> hits);
    /// Diff marks by node id, and tooltips ("fused from …") shown on hover.
    void setMarks(std::unordered_map<std::uint32_t, NodeMark> marks, std::unordered_map<std::uint32_t, QString> notes = {});
    std::size_t markCount() const { return m_marks.size(); }
    /// A comparison's error per node (by id), painted as fills on a log colour scale with a legend;
    /// collapsed groups show their worst node. Empty clears it.
    void setHeat(std::unordered_map<std::uint32_t, double> heat, const QString &label);
    bool hasHeat() const { return !m_heat.empty(); }
    /// The fill a box gets from the heat (invalid when it has none); tests read it.
    QColor heatColorOfBox(std::size_t box) const;

    /// A target overlay: the nodes (by id) a target cannot run, each with why, framed dashed; a
    /// collapsed group holding one is framed too, and a banner names `label`. Empty clears it.
    void setTargetOverlay(std::unordered_map<std::uint32_t, QString> unsupported, const QString &label);
    bool hasTargetOverlay() const { return !m_unsupported.empty(); }
    /// Whether a box is framed as unsupported (tests read it).
    bool boxUnsupported(std::size_t box) const { return box < m_boxUnsupported.size() && m_boxUnsupported[box]; }

    /// The whole graph in the window.
    void fitToView();
    /// Fits a graph that is readable whole; otherwise opens at a readable zoom on the graph's inputs.
    void showTop();
    void zoomBy(double factor, QPointF anchor);
    double zoom() const { return m_scale; }
    /// Scene point under a widget point, and back.
    QPointF toScene(QPointF widgetPoint) const;
    QPointF toWidget(QPointF scenePoint) const;

    /// The whole scene as SVG or PNG (PNG at `scale`, capped at 16k pixels a side).
    bool exportSvg(const QString &path) const;
    bool exportPng(const QString &path, double scale = 1.0) const;
    /// Milliseconds the last paint took (the benchmark reads it).
    double lastPaintMs() const { return m_lastPaintMs; }

signals:
    void nodeSelected(ir::NodeId node);
    void groupSelected(std::size_t group);
    void valueSelected(ir::ValueId value);
    /// A node holding subgraphs (If/Loop/Scan) was double-clicked.
    void subgraphRequested(ir::NodeId node);
    /// A new layout is on screen (after setGraph, expand or collapse).
    void sceneReady();
    void layoutFailed(const QString &message);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct LayoutJob;
    void requestLayout();
    void adoptLayout();
    void paintScene(QPainter &painter, const QRectF &sceneRect, double scale) const;
    void paintMinimap(QPainter &painter);
    void paintLegend(QPainter &painter);
    void paintHeatLegend(QPainter &painter);
    void spreadHeat();
    void spreadUnsupported();
    void paintTargetBanner(QPainter &painter);
    QColor heatColor(double value) const;
    static QString categoryLabel(layout::OpCategory category);
    void rebuildMinimap();
    QRectF minimapRect() const;
    void centerOn(QPointF scenePoint);
    void clickAt(QPointF widgetPoint);
    std::optional<std::size_t> edgeAt(QPointF scenePoint) const;
    bool boxHighlighted(std::size_t box) const;

    const ir::Model *m_model = nullptr;
    ir::GraphId m_graph;
    std::unique_ptr<ir::NameScopeTree> m_tree;
    std::shared_ptr<layout::SceneLayoutCache> m_cache;
    std::unique_ptr<layout::GraphScene> m_scene;
    std::vector<BoxLabel> m_labels;
    std::vector<layout::OpCategory> m_categories;
    std::set<std::size_t> m_expanded;
    QFutureWatcher<std::shared_ptr<LayoutJob>> *m_watcher = nullptr;
    bool m_layoutPending = false;
    bool m_fitAfterLayout = true;
    std::optional<ir::NodeId> m_centerAfterLayout;
    std::optional<std::size_t> m_centerGroupAfterLayout;
    BoxFonts m_fonts;
    GraphPalette m_palette;

    double m_scale = 1;
    QPointF m_offset; ///< widget position of scene (0,0)
    QImage m_minimap;
    bool m_showMinimap = true;
    bool m_showLegend = true;

    std::optional<ir::NodeId> m_selectedNode;
    std::optional<std::size_t> m_selectedGroup;
    std::optional<ir::ValueId> m_selectedValue;
    std::set<std::size_t> m_highlightBoxes;
    std::set<std::size_t> m_highlightEdges;
    std::vector<ir::NodeId> m_searchHits;
    std::set<std::size_t> m_hitBoxes;
    std::unordered_map<std::uint32_t, NodeMark> m_marks;
    std::unordered_map<std::uint32_t, QString> m_notes;
    std::unordered_map<std::uint32_t, double> m_heat;
    std::vector<double> m_boxHeat; ///< per box, NaN where there is none
    compare::HeatRange m_heatRange;
    QString m_heatLabel;
    std::unordered_map<std::uint32_t, QString> m_unsupported; ///< node id → why the target cannot run it
    std::vector<bool> m_boxUnsupported;
    QString m_targetLabel;

    QPointF m_pressPos;
    QPointF m_lastDragPos;
    bool m_dragging = false;
    bool m_minimapDrag = false;
    double m_lastPaintMs = 0;
};

} // namespace portolan::views
