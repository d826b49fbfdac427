// MainWindow: menus, toolbar search, the canvas and its docks, and error dialogs for models that fail to load.
#include "gui/MainWindow.h"

#include "analysis/SummaryFormat.h"
#include "views/report/ReportPdf.h"
#include "session/PortReportBuilder.h"
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

namespace portolan::gui {

/// What a background load hands back to the GUI thread.
struct MainWindow::LoadResult {
    std::unique_ptr<session::Workbench> workbench;
    analysis::ModelSummary summary;
    QString error;
    QString title;
    QString path; ///< empty for the bundled sample
};

// The workbench goes before the child widgets do, and closing the window still paints them.
MainWindow::~MainWindow() { detachViews(); }

void MainWindow::detachViews()
{
    closeSubgraphTabs();
    m_pipeline->setWorkbench(nullptr);
    m_compare->setWorkbench(nullptr);
    m_findings->setWorkbench(nullptr, {});
    m_canvas->setGraph(nullptr, {});
    m_inspector->setModel(nullptr);
    m_scopeModel->setGraph(nullptr, {});
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::startLoad(std::function<std::shared_ptr<LoadResult>()> job, const QString &title)
{
    if (!m_loading)
        m_statusBeforeLoad = m_statusLabel->text();
    m_loading = true;
    m_statusLabel->setText(tr("Loading %1…").arg(title));
    views::runInBackground(this, std::move(job), [this](const std::shared_ptr<LoadResult> &result) { finishLoad(result); });
}

// Runs on a worker thread: loading, checking and summarizing touch no widget.
static std::shared_ptr<MainWindow::LoadResult> loadInBackground(const std::function<support::Status(session::Workbench &)> &open,
                                                               const QString &title)
{
    auto result = std::make_shared<MainWindow::LoadResult>();
    result->title = title;
    result->workbench = std::make_unique<session::Workbench>();
    if (auto status = open(*result->workbench); !status) {
        result->error = QString::fromStdString(status.error().format());
        return result;
    }
    result->summary = result->workbench->inspect();
    return result;
}

void MainWindow::openFile(const QString &path)
{
    if (path.endsWith(QLatin1String(".portolan"), Qt::CaseInsensitive)) {
        openSession(path);
        return;
    }
    const std::string file = path.toStdString();
    startLoad([file, path] {
        auto result = loadInBackground([&file](session::Workbench &w) { return w.open(file); }, QFileInfo(path).fileName());
        result->path = QFileInfo(path).absoluteFilePath();
        return result;
    }, QFileInfo(path).fileName());
}

void MainWindow::openSample()
{
    QFile resource(":/samples/mini_encoder/model.onnx");
    if (!resource.open(QIODevice::ReadOnly)) {
        QMessageBox::critical(this, tr("Sample model"), tr("The bundled sample model is missing from this build."));
        return;
    }
    auto bytes = std::make_shared<QByteArray>(resource.readAll());
    startLoad([bytes] {
        return loadInBackground([&bytes](session::Workbench &w) {
            return w.openBytes(std::as_bytes(std::span(bytes->constData(), static_cast<std::size_t>(bytes->size()))),
                               "mini_encoder (bundled sample)");
        }, "mini_encoder");
    }, "mini_encoder");
}

void MainWindow::openSession(const QString &path)
{
    auto session = session::readSession(path.toStdString());
    if (!session) {
        QMessageBox::critical(this, tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                              QString::fromStdString(session.error().format()));
        emit modelLoaded(false);
        return;
    }
    const QString model = QString::fromStdString(session->model);
    m_pendingSession = std::move(*session);
    openFile(model);
}

QString MainWindow::saveSession(const QString &path)
{
    if (!m_workbench)
        return tr("Open a model first: a session is a model and how it is looked at.");
    if (m_modelPath.isEmpty())
        return tr("The bundled sample has no file of its own to point to; open a model file to save a session.");
    session::SessionFile s;
    s.model = m_modelPath.toStdString();
    s.pipeline = m_pipeline->pipelineText().toStdString();
    s.compare = m_compare->form();
    s.target = m_findings->targetId().toStdString();
    // The file dialog asked before replacing the file.
    if (auto status = session::writeSession(s, path.toStdString(), true); !status)
        return QString::fromStdString(status.error().format());
    rememberRecent(QFileInfo(path).absoluteFilePath());
    return {};
}

void MainWindow::chooseSessionFile()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Save Session"), {}, tr("Portolan sessions (*.portolan)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".portolan")))
        path += QLatin1String(".portolan");
    if (const QString error = saveSession(path); !error.isEmpty())
        QMessageBox::critical(this, tr("Save Session"), error);
    else
        m_statusLabel->setText(tr("Session saved to %1").arg(path));
}

QString MainWindow::statusText() const
{
    return m_statusLabel->text();
}

void MainWindow::finishLoad(const std::shared_ptr<LoadResult> &result)
{
    m_loading = false;
    const std::optional<session::SessionFile> pending = std::exchange(m_pendingSession, std::nullopt);
    if (!result->error.isEmpty()) {
        m_statusLabel->setText(m_workbench ? m_statusBeforeLoad : tr("No model")); // not "Loading…" forever
        QMessageBox::critical(this, tr("Cannot open %1").arg(result->title), result->error);
        emit modelLoaded(false);
        return;
    }
    detachViews(); // views drop their pointers into the old model before it goes
    m_hits.clear();
    m_searchStatus->clear();
    m_workbench = std::move(result->workbench);
    runtime::releaseCachedBuffers(); // the last model's run buffers are of no use to this one
    const ir::Model &model = m_workbench->model();
    m_scopeModel->setGraph(&model, model.mainGraph());
    m_scopeView->expandToDepth(0);
    m_inspector->setModel(&model);
    m_canvas->setGraph(&model, model.mainGraph());
    m_breadcrumbs->clear();
    m_pipeline->setWorkbench(m_workbench);
    m_compare->setWorkbench(m_workbench);
    m_modelPath = result->path;
    if (pending) { // before the docks see the model: the target is checked once, on the session's choice
        m_pipeline->setPipelineText(QString::fromStdString(pending->pipeline));
        m_compare->setForm(pending->compare);
        m_findings->setTarget(QString::fromStdString(pending->target));
    }
    m_findings->setWorkbench(m_workbench, result->summary.findings);
    m_summaryView->setPlainText(QString::fromStdString(analysis::summaryText(result->summary)));
    const auto &s = result->summary;
    m_statusLabel->setText(tr("%1 — %2 nodes, %3 initializers (%4), %5 findings")
                               .arg(result->title)
                               .arg(s.nodesWithSubgraphs)
                               .arg(s.initializers)
                               .arg(QString::fromStdString(analysis::humanBytes(s.initializerBytes)))
                               .arg(s.findings.size()));
    setWindowTitle(tr("%1 — Portolan").arg(result->title));
    if (!result->path.isEmpty())
        rememberRecent(result->path);
    emit modelLoaded(true);
}

int MainWindow::search(const QString &query)
{
    m_hits.clear();
    m_hitIndex = 0;
    if (!m_workbench || query.trimmed().isEmpty()) {
        m_searchStatus->clear();
        currentCanvas()->setSearchHits({});
        return 0;
    }
    m_hits = analysis::searchGraph(m_workbench->model(), currentCanvas()->graph(), query.trimmed().toStdString());
    std::vector<ir::NodeId> nodes;
    for (const auto &hit : m_hits)
        nodes.push_back(hit.node);
    currentCanvas()->setSearchHits(nodes);
    if (m_hits.empty()) {
        m_searchStatus->setText(tr("no match"));
        return 0;
    }
    m_hitIndex = m_hits.size() - 1;
    nextHit(false);
    return static_cast<int>(m_hits.size());
}

void MainWindow::nextHit(bool backwards)
{
    if (m_hits.empty())
        return;
    m_hitIndex = backwards ? (m_hitIndex + m_hits.size() - 1) % m_hits.size() : (m_hitIndex + 1) % m_hits.size();
    const auto &hit = m_hits[m_hitIndex];
    m_searchStatus->setText(tr("%1 of %2").arg(m_hitIndex + 1).arg(m_hits.size()));
    currentCanvas()->revealNode(hit.node);
    showCrumbs(currentCanvas(), hit.node);
    if (hit.value.valid())
        m_inspector->showValue(hit.value);
    else
        m_inspector->showNode(hit.node);
}

void MainWindow::scopeActivated(const QModelIndex &index)
{
    if (!index.isValid())
        return;
    if (index.data(views::ScopeTreeModel::IsGroupRole).toBool()) {
        const auto group = static_cast<std::size_t>(index.data(views::ScopeTreeModel::GroupIndexRole).toULongLong());
        if (m_canvas->scopes())
            m_inspector->showGroup(*m_canvas->scopes(), group);
        return;
    }
    const ir::NodeId node(index.data(views::ScopeTreeModel::NodeIdRole).toUInt());
    m_tabs->setCurrentIndex(0); // the group tree is the main graph's
    m_canvas->revealNode(node);
    m_inspector->showNode(node);
    showCrumbs(m_canvas, node);
}

views::GraphCanvas *MainWindow::currentCanvas() const
{
    auto *canvas = qobject_cast<views::GraphCanvas *>(m_tabs->currentWidget());
    return canvas ? canvas : m_canvas;
}

int MainWindow::tabCount() const { return m_tabs->count(); }

void MainWindow::wireCanvas(views::GraphCanvas *canvas)
{
    // the inspector may be showing a pass snapshot: point it back at the open model first
    connect(canvas, &views::GraphCanvas::nodeSelected, this, [this, canvas](ir::NodeId node) {
        m_inspector->setModel(&m_workbench->model());
        m_inspector->showNode(node);
        showCrumbs(canvas, node);
    });
    connect(canvas, &views::GraphCanvas::valueSelected, this, [this](ir::ValueId value) {
        m_inspector->setModel(&m_workbench->model());
        m_inspector->showValue(value);
    });
    connect(canvas, &views::GraphCanvas::groupSelected, this, [this, canvas](std::size_t group) {
        if (!canvas->scopes())
            return;
        m_inspector->showGroup(*canvas->scopes(), group);
        m_breadcrumbs->showPath(*canvas->scopes(), group);
    });
    connect(canvas, &views::GraphCanvas::subgraphRequested, this, &MainWindow::openSubgraphs);
    connect(canvas, &views::GraphCanvas::layoutFailed, this,
            [this](const QString &message) { QMessageBox::warning(this, tr("Layout failed"), message); });
}

void MainWindow::computeValues(ir::ValueId value)
{
    if (!m_workbench || !m_workbench->hasModel())
        return;
    auto inputs = m_compare->request(); // the compare dock's inputs, as its A would get them
    if (!inputs) {
        statusBar()->showMessage(QString::fromStdString(inputs.error().format()), 10000);
        return;
    }
    statusBar()->showMessage(tr("Running the reference for %1…").arg(QString::fromStdString(m_workbench->model().value(value).name)));
    struct Computed {
        std::optional<runtime::Tensor> tensor;
        QString error;
    };
    auto job = [workbench = m_workbench, request = std::move(*inputs), value] {
        auto tensor = workbench->referenceValue(request, value);
        return tensor ? Computed{std::move(*tensor), {}} : Computed{{}, QString::fromStdString(tensor.error().format())};
    };
    views::runInBackground(this, std::move(job), [this, workbench = m_workbench, value](const Computed &computed) {
        if (workbench != m_workbench) // another model was opened meanwhile
            return;
        if (!computed.tensor) {
            statusBar()->showMessage(computed.error, 10000);
            return;
        }
        statusBar()->clearMessage();
        m_inspector->showComputedValue(value, *computed.tensor);
        emit valuesComputed(value);
    });
}

void MainWindow::showBusy()
{
    // the longest-running kind first: a comparison has a fraction, the others are busy bars
    QString task;
    int permille = -1;
    if (m_compare->isRunning()) {
        task = tr("Comparing");
        permille = m_compare->progressPermille();
    } else if (m_pipeline->isRunning()) {
        task = tr("Compiling");
    } else if (m_loading) {
        task = tr("Loading");
    } else if (m_writingReport) {
        task = tr("Writing the report");
    }
    m_busy->setVisible(!task.isEmpty());
    if (task.isEmpty())
        return;
    if (permille >= 0) {
        m_busy->setRange(0, 1000);
        m_busy->setValue(permille);
        m_busy->setFormat(task + QStringLiteral(": %p%"));
    } else {
        m_busy->setRange(0, 0);
        m_busy->setFormat(task);
    }
    m_busy->setToolTip(task);
}

void MainWindow::showCrumbs(views::GraphCanvas *canvas, ir::NodeId node)
{
    const ir::NameScopeTree *tree = canvas->scopes();
    const auto group = tree ? tree->groupOf(node) : std::nullopt;
    if (!group || !m_workbench || !m_workbench->hasModel()) {
        m_breadcrumbs->clear();
        return;
    }
    const ir::Node &n = m_workbench->model().node(node);
    m_breadcrumbs->showPath(*tree, *group, QString::fromStdString(n.name.empty() ? n.opType : n.name));
}

QString MainWindow::graphTitle(ir::GraphId graph) const
{
    // breadcrumbs: main › Loop_3.body › If_1.then_branch
    const ir::Model &model = m_workbench->model();
    QStringList parts;
    for (ir::GraphId g = graph; g.valid() && !model.graph(g).isMain(); g = model.graph(g).parent) {
        const ir::Graph &sub = model.graph(g);
        const ir::Node &owner = model.node(sub.ownerNode);
        const QString name = owner.name.empty() ? QString::fromStdString(owner.opType) : QString::fromStdString(owner.name);
        parts.prepend(name + QLatin1Char('.') + QString::fromStdString(sub.ownerAttribute));
    }
    parts.prepend(tr("main"));
    return parts.join(QStringLiteral(" › "));
}

void MainWindow::openSubgraphs(ir::NodeId node)
{
    if (!m_workbench)
        return;
    const ir::Model &model = m_workbench->model();
    QWidget *first = nullptr;
    for (const auto &attribute : model.node(node).attributes)
        for (ir::GraphId graph : attribute.subgraphs) {
            views::GraphCanvas *tab = nullptr;
            for (int i = 1; i < m_tabs->count() && !tab; ++i)
                if (auto *c = qobject_cast<views::GraphCanvas *>(m_tabs->widget(i)); c && c->graph() == graph)
                    tab = c;
            if (!tab) {
                tab = new views::GraphCanvas(m_tabs);
                wireCanvas(tab);
                tab->setGraph(&model, graph);
                tab->setTargetOverlay(m_findings->unsupportedNodes(), m_findings->targetName());
                const QString title = graphTitle(graph);
                m_tabs->setTabToolTip(m_tabs->addTab(tab, title.section(QStringLiteral(" › "), -1)), title);
            }
            if (!first)
                first = tab;
        }
    if (first)
        m_tabs->setCurrentWidget(first);
}

void MainWindow::revealNodeAnywhere(ir::NodeId node)
{
    if (!m_workbench || node.index >= m_workbench->model().nodeCapacity())
        return;
    // a node may be in another graph: show it on that graph's canvas
    const ir::GraphId graph = m_workbench->model().node(node).graph;
    if (graph != currentCanvas()->graph()) {
        if (graph == m_workbench->model().mainGraph())
            m_tabs->setCurrentIndex(0);
        else
            openSubgraphs(m_workbench->model().graph(graph).ownerNode);
    }
    if (currentCanvas()->graph() == graph)
        currentCanvas()->revealNode(node);
    m_inspector->setModel(&m_workbench->model());
    m_inspector->showNode(node);
}

void MainWindow::applyTargetOverlay()
{
    const auto unsupported = m_findings->unsupportedNodes();
    m_canvas->setTargetOverlay(unsupported, m_findings->targetName());
    for (int i = 1; i < m_tabs->count(); ++i)
        if (auto *c = qobject_cast<views::GraphCanvas *>(m_tabs->widget(i)))
            c->setTargetOverlay(unsupported, m_findings->targetName());
}

void MainWindow::closeSubgraphTabs()
{
    if (int diff = m_tabs->indexOf(m_diffTab); diff >= 0) {
        m_tabs->removeTab(diff); // the diff tab is kept, only hidden
        m_diffTab->hide();
    }
    while (m_tabs->count() > 1)
        delete m_tabs->widget(m_tabs->count() - 1);
    m_tabs->setCurrentIndex(0);
}

void MainWindow::showPassDiff(int step)
{
    m_diffBeforeModel = m_pipeline->modelBefore(step);
    m_diffAfterModel = m_pipeline->modelAfter(step);
    if (!m_diffBeforeModel || !m_diffAfterModel)
        return;
    m_diffBefore->setGraph(m_diffBeforeModel.get(), m_diffBeforeModel->mainGraph());
    m_diffAfter->setGraph(m_diffAfterModel.get(), m_diffAfterModel->mainGraph());
    const auto *result = m_pipeline->result();
    if (step < 0) {
        m_diffBeforeTitle->setText(tr("Input model"));
        m_diffAfterTitle->setText(tr("Input model"));
    } else {
        const auto &pass = result->passes[static_cast<std::size_t>(step)];
        std::unordered_map<std::uint32_t, views::NodeMark> removed, created;
        std::unordered_map<std::uint32_t, QString> notes;
        for (const auto &r : pass.rewrites) {
            QStringList from;
            for (auto n : r.removedNodes) {
                removed[n.index] = views::NodeMark::Removed;
                const ir::Node &node = m_diffBeforeModel->node(n);
                from << QString::fromStdString(node.name.empty() ? node.opType : node.name).toHtmlEscaped();
            }
            for (auto n : r.createdNodes) {
                created[n.index] = views::NodeMark::Created;
                notes[n.index] = tr("made by %1 from: %2").arg(QString::fromStdString(r.pattern).toHtmlEscaped(),
                                                              from.isEmpty() ? tr("nothing") : from.join(QStringLiteral(", ")));
            }
        }
        // open both sides on the first rewrite
        for (const auto &r : pass.rewrites) {
            if (!r.removedNodes.empty() && m_diffBeforeModel->node(r.removedNodes.front()).graph == m_diffBeforeModel->mainGraph())
                m_diffBefore->revealNode(r.removedNodes.front());
            if (!r.createdNodes.empty() && m_diffAfterModel->node(r.createdNodes.front()).graph == m_diffAfterModel->mainGraph())
                m_diffAfter->revealNode(r.createdNodes.front());
            if (!r.removedNodes.empty() || !r.createdNodes.empty())
                break;
        }
        m_diffBefore->setMarks(std::move(removed));
        m_diffAfter->setMarks(std::move(created), std::move(notes));
        m_diffBeforeTitle->setText(tr("Before %1 — %2 nodes, struck through: removed").arg(QString::fromStdString(pass.invocation)).arg(pass.nodesBefore));
        m_diffAfterTitle->setText(tr("After %1 — %2 nodes, green: created").arg(QString::fromStdString(pass.invocation)).arg(pass.nodesAfter));
    }
    if (m_tabs->indexOf(m_diffTab) < 0)
        m_tabs->addTab(m_diffTab, tr("Pass diff"));
    m_tabs->setCurrentWidget(m_diffTab);
}

void MainWindow::chooseFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open ONNX Model"), {},
                                                      tr("ONNX models (*.onnx);;Portolan sessions (*.portolan);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::exportView()
{
    views::GraphCanvas *canvas = currentCanvas();
    if (!canvas->scene())
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export View"), {}, tr("SVG image (*.svg);;PNG image (*.png)"));
    if (path.isEmpty())
        return;
    const bool ok = path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) ? canvas->exportPng(path, 2.0)
                                                                               : canvas->exportSvg(path);
    if (!ok)
        QMessageBox::critical(this, tr("Export View"), tr("Cannot write %1.").arg(path));
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.front().isLocalFile())
        openFile(urls.front().toLocalFile());
}

} // namespace portolan::gui
