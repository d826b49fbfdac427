// MainWindow: menus, the scope tree, the summary, and error dialogs for models that fail to load.
#include "gui/MainWindow.h"

#include "analysis/SummaryFormat.h"
#include "common/ScopeTreeModel.h"

#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStatusBar>
#include <QTreeView>
#include <QtConcurrent/QtConcurrentRun>

// The resources live in a static library: name them so the linker keeps them.
static void initResources() { Q_INIT_RESOURCE(samples); }

namespace portolan::gui {

/// What a background load hands back to the GUI thread.
struct MainWindow::LoadResult {
    std::unique_ptr<session::Workbench> workbench;
    analysis::ModelSummary summary;
    QString error;
    QString title;
};

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    initResources();
    setWindowTitle(tr("Portolan"));
    setWindowIcon(QIcon(":/icons/portolan.svg"));
    resize(1200, 800);

    auto *splitter = new QSplitter(this);
    m_scopeModel = new views::ScopeTreeModel(this);
    m_scopeView = new QTreeView(splitter);
    m_scopeView->setModel(m_scopeModel);
    m_scopeView->setUniformRowHeights(true);
    m_scopeView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_summaryView = new QPlainTextEdit(splitter);
    m_summaryView->setReadOnly(true);
    m_summaryView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_summaryView->setPlaceholderText(tr("Open an ONNX model (File → Open…) to see its summary."));
    splitter->addWidget(m_scopeView);
    splitter->addWidget(m_summaryView);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    setCentralWidget(splitter);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::chooseFile);
    file->addAction(tr("Open &Sample Model"), this, &MainWindow::openSample);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Portolan"), this, &MainWindow::showAbout);

    m_statusLabel = new QLabel(tr("No model"), this);
    statusBar()->addWidget(m_statusLabel, 1);
}

MainWindow::~MainWindow() = default;

void MainWindow::startLoad(std::function<std::shared_ptr<LoadResult>()> job, const QString &title)
{
    m_loading = true;
    m_statusLabel->setText(tr("Loading %1…").arg(title));
    auto *watcher = new QFutureWatcher<std::shared_ptr<LoadResult>>(this);
    connect(watcher, &QFutureWatcher<std::shared_ptr<LoadResult>>::finished, this, [this, watcher] {
        finishLoad(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(std::move(job)));
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
    const std::string file = path.toStdString();
    startLoad([file, path] {
        return loadInBackground([&file](session::Workbench &w) { return w.open(file); }, QFileInfo(path).fileName());
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

void MainWindow::finishLoad(const std::shared_ptr<LoadResult> &result)
{
    m_loading = false;
    if (!result->error.isEmpty()) {
        m_statusLabel->setText(m_workbench ? m_statusLabel->text() : tr("No model"));
        QMessageBox::critical(this, tr("Cannot open %1").arg(result->title), result->error);
        emit modelLoaded(false);
        return;
    }
    m_scopeModel->setGraph(nullptr, {});
    m_workbench = std::move(result->workbench);
    m_scopeModel->setGraph(&m_workbench->model(), m_workbench->model().mainGraph());
    m_scopeView->expandToDepth(0);
    m_summaryView->setPlainText(QString::fromStdString(analysis::summaryText(result->summary)));
    const auto &s = result->summary;
    m_statusLabel->setText(tr("%1 — %2 nodes, %3 initializers (%4), %5 findings")
                               .arg(result->title)
                               .arg(s.nodesWithSubgraphs)
                               .arg(s.initializers)
                               .arg(QString::fromStdString(analysis::humanBytes(s.initializerBytes)))
                               .arg(s.findings.size()));
    setWindowTitle(tr("%1 — Portolan").arg(result->title));
    emit modelLoaded(true);
}

void MainWindow::chooseFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open ONNX Model"), {}, tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Portolan"),
                       tr("<h3>Portolan %1</h3><p>A workbench for porting ONNX models to accelerators.</p>"
                          "<p>Qt %2, ONNX 1.12.</p>")
                           .arg(PORTOLAN_VERSION, qVersion()));
}

} // namespace portolan::gui
