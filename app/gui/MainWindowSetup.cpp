// MainWindow's construction: the central tabs and breadcrumbs, the docks and their wiring, menus
// (with the recent files and About), the search toolbar and the status bar.
#include "gui/MainWindow.h"

#include "analysis/SummaryFormat.h"
#include "views/common/Background.h"
#include "views/common/ScopeTreeModel.h"
#include "views/graph/ScopeBreadcrumbs.h"
#include "runtime/Tensor.h"
#include "views/graph/GraphCanvas.h"
#include "views/inspector/InspectorPanel.h"
#include "views/pipeline/PipelinePanel.h"
#include "views/compare/ComparePanel.h"
#include "views/diagnose/FindingsPanel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QTimer>
#include <QProgressBar>
#include <QSettings>
#include <QSplitter>
#include <QVBoxLayout>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <QTreeView>
#include <QUndoStack>

#include <utility>

// The resources live in a static library: name them so the linker keeps them.
static void initResources() { Q_INIT_RESOURCE(samples); }

namespace portolan::gui {

namespace {
constexpr int kMaxRecent = 8;
}

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    initResources();
    setWindowTitle(tr("Portolan"));
    setWindowIcon(QIcon(":/icons/portolan.svg"));
    setAcceptDrops(true);
    resize(1400, 900);

    buildCentralArea();
    const DockSet docks = buildDocks();
    buildMenus(docks);
    buildSearchBar();
    buildStatusBar();

    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    rebuildRecentMenu();
}

/// The tabs of graphs (the main graph first, for good), the scope breadcrumbs above them, and the
/// pass diff's tab (before | after), shown once a step is.
void MainWindow::buildCentralArea()
{
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_canvas = new views::GraphCanvas(m_tabs);
    m_tabs->addTab(m_canvas, tr("Main graph"));
    m_tabs->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr); // the main graph stays
    m_tabs->tabBar()->setTabButton(0, QTabBar::LeftSide, nullptr);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
        if (m_tabs->widget(index) == m_diffTab) {
            m_tabs->removeTab(index); // kept for the next step
            m_diffTab->hide();
        }
        else if (index > 0)
            delete m_tabs->widget(index);
    });
    // breadcrumbs of the selection's name scope above the tabs; a crumb opens and frames its group
    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    m_breadcrumbs = new views::ScopeBreadcrumbs(central);
    centralLayout->addWidget(m_breadcrumbs);
    centralLayout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    connect(m_breadcrumbs, &views::ScopeBreadcrumbs::groupActivated, this, [this](std::size_t group) {
        views::GraphCanvas *canvas = currentCanvas();
        if (!canvas->scopes())
            return;
        canvas->revealGroup(group);
        m_inspector->showGroup(*canvas->scopes(), group);
        m_breadcrumbs->showPath(*canvas->scopes(), group);
    });
    connect(m_tabs, &QTabWidget::currentChanged, m_breadcrumbs, &views::ScopeBreadcrumbs::clear);

    // the pass diff: before | after, side by side
    m_diffTab = new QWidget(m_tabs);
    auto *diffSplit = new QSplitter(Qt::Horizontal, m_diffTab);
    auto column = [diffSplit](QLabel *&title, views::GraphCanvas *&canvas) {
        auto *box = new QWidget(diffSplit);
        auto *layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        title = new QLabel(box);
        title->setMargin(4);
        canvas = new views::GraphCanvas(box);
        layout->addWidget(title);
        layout->addWidget(canvas, 1);
        diffSplit->addWidget(box);
    };
    column(m_diffBeforeTitle, m_diffBefore);
    column(m_diffAfterTitle, m_diffAfter);
    auto *diffLayout = new QVBoxLayout(m_diffTab);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    diffLayout->addWidget(diffSplit);
    m_diffTab->hide(); // a tab only once a step is shown
}

/// The docks (groups, inspector, summary, pipeline, compare, findings) and how they talk to the
/// canvas and to each other.
MainWindow::DockSet MainWindow::buildDocks()
{
    m_scopeModel = new views::ScopeTreeModel(this);
    m_scopeView = new QTreeView(this);
    m_scopeView->setModel(m_scopeModel);
    m_scopeView->setUniformRowHeights(true);
    m_scopeView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_scopeView, &QTreeView::activated, this, &MainWindow::scopeActivated);
    connect(m_scopeView, &QTreeView::clicked, this, &MainWindow::scopeActivated);

    m_inspector = new views::InspectorPanel(this);
    m_summaryView = new QPlainTextEdit(this);
    m_summaryView->setReadOnly(true);
    m_summaryView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_summaryView->setPlaceholderText(tr("Open an ONNX model (File → Open…) to see its summary."));

    auto dock = [this](QWidget *widget, const QString &title, const QString &name, Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name); // saveState needs names
        d->setWidget(widget);
        addDockWidget(area, d);
        return d;
    };
    DockSet d;
    d.groups = dock(m_scopeView, tr("Groups"), "groupsDock", Qt::LeftDockWidgetArea);
    d.inspector = dock(m_inspector, tr("Inspector"), "inspectorDock", Qt::RightDockWidgetArea);
    d.summary = dock(m_summaryView, tr("Summary"), "summaryDock", Qt::RightDockWidgetArea);
    m_pipeline = new views::PipelinePanel(this);
    d.pipeline = dock(m_pipeline, tr("Pipeline"), "pipelineDock", Qt::BottomDockWidgetArea);
    connect(m_pipeline, &views::PipelinePanel::resultAboutToChange, this, [this] {
        m_diffBefore->setGraph(nullptr, {});
        m_diffAfter->setGraph(nullptr, {});
        m_diffBeforeModel.reset();
        m_diffAfterModel.reset();
    });
    connect(m_pipeline, &views::PipelinePanel::stepShown, this, &MainWindow::showPassDiff);
    // a refused model or a failed pass is said in a dialog as well as in the panel, which may be folded away
    connect(m_pipeline, &views::PipelinePanel::finished, this, [this](const QString &error) {
        if (!error.isEmpty())
            QMessageBox::warning(this, tr("Pipeline"), error);
    });
    connect(m_pipeline, &views::PipelinePanel::nodeActivated, this, [this](ir::NodeId node) {
        if (m_diffBeforeModel && node.index < m_diffBeforeModel->nodeCapacity() && m_diffBeforeModel->node(node).graph == m_diffBeforeModel->mainGraph()) {
            m_diffBefore->revealNode(node);
            m_tabs->setCurrentWidget(m_diffTab);
        }
    });
    m_compare = new views::ComparePanel(this);
    d.compare = dock(m_compare, tr("Compare"), "compareDock", Qt::BottomDockWidgetArea);
    tabifyDockWidget(d.pipeline, d.compare);
    m_findings = new views::FindingsPanel(this);
    d.findings = dock(m_findings, tr("Findings"), "findingsDock", Qt::BottomDockWidgetArea);
    tabifyDockWidget(d.compare, d.findings);
    connect(m_findings, &views::FindingsPanel::checked, this, &MainWindow::applyTargetOverlay);
    connect(m_findings, &views::FindingsPanel::nodeActivated, this, &MainWindow::revealNodeAnywhere);
    d.pipeline->raise();
    connect(m_compare, &views::ComparePanel::heatChanged, this, [this] {
        m_canvas->setHeat(m_compare->heat(), m_compare->heatLabel());
        if (m_canvas->hasHeat())
            m_tabs->setCurrentIndex(0);
    });
    connect(m_compare, &views::ComparePanel::tensorActivated, this, [this](ir::ValueId value) {
        if (!m_workbench || !value.valid())
            return;
        m_tabs->setCurrentIndex(0);
        const ir::Value &v = m_workbench->model().value(value);
        if (v.producer.valid())
            m_canvas->revealNode(v.producer);
        m_canvas->selectValue(value);
        m_inspector->setModel(&m_workbench->model());
        m_inspector->showValue(value);
    });
    connect(m_compare, &views::ComparePanel::finished, this, [this](const QString &error) {
        if (!error.isEmpty())
            QMessageBox::warning(this, tr("Compare"), error);
    });
    for (views::GraphCanvas *c : {m_diffBefore, m_diffAfter})
        connect(c, &views::GraphCanvas::nodeSelected, this, [this, c](ir::NodeId node) {
            m_inspector->setModel(c == m_diffBefore ? m_diffBeforeModel.get() : m_diffAfterModel.get());
            m_inspector->showNode(node);
        });
    tabifyDockWidget(d.inspector, d.summary);
    d.inspector->raise();
    resizeDocks({d.groups, d.inspector}, {280, 380}, Qt::Horizontal);

    wireCanvas(m_canvas);
    connect(m_inspector, &views::InspectorPanel::nodeActivated, this, &MainWindow::revealNodeAnywhere);
    connect(m_inspector, &views::InspectorPanel::valuesRequested, this, &MainWindow::computeValues);
    connect(m_inspector, &views::InspectorPanel::valueActivated, this,
            [this](ir::ValueId value) { currentCanvas()->selectValue(value); });
    return d;
}

void MainWindow::buildMenus(const DockSet &docks)
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::chooseFile);
    file->addAction(tr("&Save Session…"), QKeySequence::Save, this, &MainWindow::chooseSessionFile);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Sample Model"), this, &MainWindow::openSample);
    file->addSeparator();
    file->addAction(tr("&Export View…"), QKeySequence(tr("Ctrl+E")), this, &MainWindow::exportView);
    file->addAction(tr("Export Port &Report…"), QKeySequence(tr("Ctrl+Shift+E")), this, &MainWindow::exportPortReport);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    // Undo and redo walk back and forth through the pipeline steps shown (a line edit with the
    // focus keeps Ctrl+Z for its own text)
    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = m_pipeline->history()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_pipeline->history()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit to Window"), QKeySequence(tr("Ctrl+0")), this, [this] { currentCanvas()->fitToView(); });
    auto zoom = [this](double factor) {
        views::GraphCanvas *c = currentCanvas();
        c->zoomBy(factor, QPointF(c->width() / 2.0, c->height() / 2.0));
    };
    view->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, this, [zoom] { zoom(1.25); });
    view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, this, [zoom] { zoom(0.8); });
    view->addSeparator();
    resizeDocks({docks.pipeline}, {220}, Qt::Vertical);
    for (QDockWidget *d : {docks.groups, docks.inspector, docks.summary, docks.pipeline, docks.compare, docks.findings})
        view->addAction(d->toggleViewAction());
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Portolan"), this, &MainWindow::showAbout);
}

/// The search toolbar: a query box, hit count, previous/next, and the Find shortcuts.
void MainWindow::buildSearchBar()
{
    QToolBar *bar = addToolBar(tr("Search"));
    bar->setObjectName("searchToolBar");
    bar->setMovable(false);
    m_searchBox = new QLineEdit(bar);
    m_searchBox->setPlaceholderText(tr("Search nodes, ops (op:Conv), tensors (tensor:x)…"));
    m_searchBox->setClearButtonEnabled(true);
    m_searchBox->setMaximumWidth(420);
    bar->addWidget(m_searchBox);
    m_searchStatus = new QLabel(bar);
    m_searchStatus->setMinimumWidth(90);
    bar->addWidget(m_searchStatus);
    bar->addAction(tr("Previous"), this, [this] { nextHit(true); });
    bar->addAction(tr("Next"), this, [this] { nextHit(false); });
    bar->addSeparator();
    bar->addAction(tr("Fit"), this, [this] { currentCanvas()->fitToView(); });
    connect(m_searchBox, &QLineEdit::returnPressed, this, [this] {
        const bool shift = QApplication::keyboardModifiers() & Qt::ShiftModifier;
        if (m_hits.empty() || m_searchBox->isModified()) {
            m_searchBox->setModified(false);
            search(m_searchBox->text());
        } else {
            nextHit(shift);
        }
    });
    auto *find = new QAction(this);
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, this, [this] { m_searchBox->setFocus(); m_searchBox->selectAll(); });
    addAction(find);
    auto *findNext = new QAction(this);
    findNext->setShortcut(QKeySequence::FindNext);
    connect(findNext, &QAction::triggered, this, [this] { nextHit(false); });
    addAction(findNext);
    auto *findPrevious = new QAction(this);
    findPrevious->setShortcut(QKeySequence::FindPrevious);
    connect(findPrevious, &QAction::triggered, this, [this] { nextHit(true); });
    addAction(findPrevious);
}

/// The status line, and the progress bar of what runs in the background (polled).
void MainWindow::buildStatusBar()
{
    m_statusLabel = new QLabel(tr("No model"), this);
    statusBar()->addWidget(m_statusLabel, 1);
    m_busy = new QProgressBar(this);
    m_busy->setMaximumWidth(260);
    m_busy->setVisible(false);
    statusBar()->addPermanentWidget(m_busy);
    auto *busyPoll = new QTimer(this);
    busyPoll->setInterval(200);
    connect(busyPoll, &QTimer::timeout, this, &MainWindow::showBusy);
    busyPoll->start();
}

void MainWindow::rememberRecent(const QString &path)
{
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    // exporters name every file model.onnx: the folder tells them apart (its home-relative path, elided in the middle)
    const QString home = QDir::homePath();
    for (const QString &path : recent) {
        const QFileInfo file(path);
        QString folder = QDir::toNativeSeparators(file.absolutePath());
        if (folder.startsWith(home + QDir::separator()))
            folder = QStringLiteral("~") + folder.mid(home.size());
        folder = m_recentMenu->fontMetrics().elidedText(folder, Qt::ElideMiddle, 48 * m_recentMenu->fontMetrics().averageCharWidth());
        const QString label = QStringLiteral("%1 — %2").arg(file.fileName(), folder).replace(QLatin1Char('&'), QStringLiteral("&&"));
        m_recentMenu->addAction(label, this, [this, path] { openFile(path); })->setToolTip(path);
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Portolan"),
                       tr("<h3>Portolan %1</h3><p>A workbench for porting ONNX models to accelerators.</p>"
                          "<p>Qt %2, ONNX 1.12.</p>")
                           .arg(PORTOLAN_VERSION, qVersion()));
}

} // namespace portolan::gui
