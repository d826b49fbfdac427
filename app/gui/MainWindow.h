// The main window: wiring only. Loads off the GUI thread; the graph canvas in the centre, the group
// tree, inspector and summary in docks that remember their layout; search, export, recent files.
#pragma once

#include "analysis/GraphSearch.h"
#include "analysis/ModelSummary.h"
#include "session/SessionFile.h"
#include "session/Workbench.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QTabWidget;
class QTreeView;

namespace portolan::views {
class GraphCanvas;
class InspectorPanel;
class PipelinePanel;
class ComparePanel;
class FindingsPanel;
class ScopeTreeModel;
class ScopeBreadcrumbs;
}

namespace portolan::gui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens a model file, or a `.portolan` session; bad input ends in an error dialog, never a crash.
    void openFile(const QString &path);
    /// Opens a session: its model, then its pipeline, compare form and target.
    void openSession(const QString &path);
    /// Saves the open model and the docks' settings as a session at `path`, replacing it; the error, or "".
    QString saveSession(const QString &path);
    /// Opens the sample model bundled as a Qt resource.
    void openSample();
    /// True while a model is loading (tests wait on this).
    bool isLoading() const { return m_loading; }
    /// The main graph's canvas, and the one on screen (a subgraph's tab, or the main one).
    views::GraphCanvas *canvas() const { return m_canvas; }
    views::GraphCanvas *currentCanvas() const;
    /// Opens each subgraph of `node` (If/Loop/Scan) in a tab of its own, or shows the open one.
    void openSubgraphs(ir::NodeId node);
    int tabCount() const;
    views::PipelinePanel *pipeline() const { return m_pipeline; }
    views::ComparePanel *comparePanel() const { return m_compare; }
    views::FindingsPanel *findingsPanel() const { return m_findings; }
    /// The pass diff's two canvases: the model before the shown step and after it.
    views::GraphCanvas *diffBefore() const { return m_diffBefore; }
    views::GraphCanvas *diffAfter() const { return m_diffAfter; }

    /// Writes the port report of the compare dock's last comparison (.pdf, .html, .json or .md by
    /// the extension), with the findings dock's target check, replacing `path`; the error, or "".
    QString writePortReport(const QString &path);
    /// The same on a worker thread (File → Export Port Report): the window stays usable while a big
    /// model's report is assembled; portReportFinished says how it went (an error also as a dialog).
    void startPortReport(const QString &path);
    bool isWritingReport() const { return m_writingReport; }
    /// The status bar's summary of the open model (or what is under way).
    QString statusText() const;

    /// Runs the search box's query and shows the first hit; returns the number of hits.
    int search(const QString &query);
    /// Moves to the next (or previous) search hit.
    void nextHit(bool backwards = false);

    /// What a background load hands back to the GUI thread (defined in the .cpp).
    struct LoadResult;

signals:
    /// Emitted once a load finished: `ok` false after an error dialog.
    void modelLoaded(bool ok);
    /// A tensor's values, computed by the reference for the inspector, are there.
    void valuesComputed(ir::ValueId value);
    /// A port report started by startPortReport is written (`error` empty) or failed.
    void portReportFinished(const QString &path, const QString &error);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    /// The docks buildDocks made, for the View menu.
    struct DockSet {
        QDockWidget *groups = nullptr, *inspector = nullptr, *summary = nullptr;
        QDockWidget *pipeline = nullptr, *compare = nullptr, *findings = nullptr;
    };
    void buildCentralArea();
    DockSet buildDocks();
    void buildMenus(const DockSet &docks);
    void buildSearchBar();
    void buildStatusBar();
    void startLoad(std::function<std::shared_ptr<LoadResult>()> job, const QString &title);
    void finishLoad(const std::shared_ptr<LoadResult> &result);
    void chooseFile();
    void exportView();
    void exportPortReport();
    void chooseSessionFile();
    QString needsComparison() const;
    void showAbout();
    void rememberRecent(const QString &path);
    void rebuildRecentMenu();
    void scopeActivated(const QModelIndex &index);
    void wireCanvas(views::GraphCanvas *canvas);
    /// The breadcrumbs of `node` (a group path and its name) on `canvas`'s scope tree.
    void showCrumbs(views::GraphCanvas *canvas, ir::NodeId node);
    /// Polled: what runs in the background (loading, compiling, comparing) in the status bar.
    void showBusy();
    /// Runs the reference on the compare dock's inputs for a tensor's values, off the GUI thread,
    /// and hands them to the inspector.
    void computeValues(ir::ValueId value);
    void closeSubgraphTabs();
    void detachViews();
    QString graphTitle(ir::GraphId graph) const;
    void showPassDiff(int step);
    /// Shows `node` on its graph's canvas (opening a subgraph's tab) and in the inspector.
    void revealNodeAnywhere(ir::NodeId node);
    /// The findings dock's unsupported nodes, framed on every open graph's canvas.
    void applyTargetOverlay();

    std::shared_ptr<session::Workbench> m_workbench; ///< shared with jobs still running on it
    QTabWidget *m_tabs = nullptr;
    views::ScopeBreadcrumbs *m_breadcrumbs = nullptr;
    views::GraphCanvas *m_canvas = nullptr;
    views::InspectorPanel *m_inspector = nullptr;
    views::PipelinePanel *m_pipeline = nullptr;
    views::ComparePanel *m_compare = nullptr;
    views::FindingsPanel *m_findings = nullptr;
    QWidget *m_diffTab = nullptr;
    views::GraphCanvas *m_diffBefore = nullptr;
    views::GraphCanvas *m_diffAfter = nullptr;
    QLabel *m_diffBeforeTitle = nullptr;
    QLabel *m_diffAfterTitle = nullptr;
    std::shared_ptr<const ir::Model> m_diffBeforeModel, m_diffAfterModel; ///< what the diff canvases show
    views::ScopeTreeModel *m_scopeModel = nullptr;
    QTreeView *m_scopeView = nullptr;
    QPlainTextEdit *m_summaryView = nullptr;
    QLineEdit *m_searchBox = nullptr;
    QLabel *m_searchStatus = nullptr;
    QLabel *m_statusLabel = nullptr;
    QProgressBar *m_busy = nullptr; ///< the status bar's background-task progress (see showBusy)
    QMenu *m_recentMenu = nullptr;
    std::vector<analysis::SearchHit> m_hits;
    std::size_t m_hitIndex = 0;
    bool m_loading = false;
    QString m_statusBeforeLoad; ///< what the status said before a load began: shown again when it fails
    bool m_writingReport = false; ///< a port report is being written on a worker thread
    QString m_modelPath;                              ///< the open model's file; empty for the bundled sample
    std::optional<session::SessionFile> m_pendingSession; ///< applied once its model has loaded
};

} // namespace portolan::gui
