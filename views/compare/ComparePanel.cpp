// The compare dock's form and its run: the pairing, pipeline, precision, inputs and tolerances become
// a session::ComparisonRequest for Workbench::compare on a worker thread. ComparePanelResults.cpp
// shows what came back and runs the follow-ups (repro, bisection).
#include "views/compare/ComparePanel.h"

#include "views/common/Background.h"
#include "views/compare/ComparisonTableModel.h"
#include "views/compare/GpuProfileView.h"
#include "runtime/NumpyFiles.h"
#include "compare/ReproReadme.h"
#include "runtime/ExecutorRegistry.h"
#include "runtime/Feeds.h"
#include "session/RequestText.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QTableView>
#include <QTreeWidget>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace portolan::views {

namespace {
constexpr int kCudaSide = 3; ///< B's choice "CUDA executor", offered in builds that have it
}


struct ComparePanel::RunOutcome {
    std::shared_ptr<const session::ComparisonOutcome> outcome;
    QString error;
    bool cancelled = false;
};

ComparePanel::ComparePanel(QWidget *parent) : QWidget(parent)
{
    m_sideA = new QComboBox(this);
    m_sideA->addItem(tr("Reference interpreter"), QStringLiteral("reference"));
    for (const char *p : {"fp32", "fp16", "bf16"})
        m_sideA->addItem(tr("Compiled CPU executor at %1").arg(QLatin1String(p)), QStringLiteral("cpu:%1").arg(QLatin1String(p)));
    m_sideA->setToolTip(tr("Compiled at fp32 against B at fp16 tells precision apart from kernels; A compiled goes with B compiled"));
    m_sideB = new QComboBox(this);
    m_sideB->addItems({tr("Compiled CPU executor"), tr("Imported run"), tr("External command")});
    if (runtime::findExecutor("cuda")) // built with the CUDA executor: whether there is a GPU, the run says
        m_sideB->addItem(tr("CUDA executor (local GPU)"));
    m_ortSide = m_sideB->count();
    m_sideB->addItem(tr("ONNX Runtime"));
    m_ortLevel = new QComboBox(this);
    for (const char *level : {"all", "extended", "basic", "disabled"})
        m_ortLevel->addItem(tr("optimizations: %1").arg(QLatin1String(level)), QLatin1String(level));
    m_ortLevel->setToolTip(tr("ONNX Runtime's graph optimization level (installed on first use with npm into the cache); "
                              "every tensor its optimized graph keeps is compared"));
    m_pipeline = new QLineEdit(QStringLiteral("-O2"), this);
    m_precision = new QComboBox(this);
    m_precision->addItems({QStringLiteral("fp32"), QStringLiteral("fp16"), QStringLiteral("bf16"), QStringLiteral("int8")});
    m_calibration = new QLineEdit(QStringLiteral("random:8"), this);
    m_calibration->setToolTip(tr("int8's calibration batches: random:N[:SEED], or a folder of test_data_set_N folders"));
    m_importFrom = new QLineEdit(this);
    m_importFrom->setPlaceholderText(tr("another runtime's tensors: a folder of .pb/.npy, an .npz, or Polygraphy's .json[#RUNNER]"));
    auto *browseImport = new QPushButton(tr("…"), this);
    connect(browseImport, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Imported run"), m_importFrom->text(),
                                                          tr("Runs (*.npz *.json);;All files (*)"));
        if (!file.isEmpty())
            m_importFrom->setText(file);
    });
    m_external = new QLineEdit(this);
    m_external->setPlaceholderText(tr("another runtime as a command: CMD {model} {inputs} {outputs}"));
    m_external->setToolTip(tr("Run through /bin/sh on the model file as loaded. {inputs} holds input_K.pb and NAME.npy; the "
                              "command writes outputs (and any intermediates) into {outputs} as .pb or .npy."));
    const auto showSide = [this, browseImport] {
        const int side = m_sideB->currentIndex(); // 0 compiled, 1 imported, 2 external, 3 CUDA
        m_pipeline->setEnabled(side == 0 || side == kCudaSide);
        m_precision->setEnabled(side == 0 || side == kCudaSide);
        m_calibration->setEnabled((side == 0 || side == kCudaSide) && m_precision->currentText() == QLatin1String("int8"));
        m_importFrom->setVisible(side != 2 && side != m_ortSide);
        browseImport->setVisible(side != 2 && side != m_ortSide);
        m_importFrom->setEnabled(side == 1);
        browseImport->setEnabled(side == 1);
        m_external->setVisible(side == 2);
        m_ortLevel->setVisible(side == m_ortSide);
    };
    connect(m_sideB, &QComboBox::currentIndexChanged, this, showSide);
    connect(m_precision, &QComboBox::currentIndexChanged, this, showSide);
    m_inputs = new QLineEdit(this);
    m_inputs->setPlaceholderText(tr("seeded random inputs; or a test_data_set folder"));
    auto *browse = new QPushButton(tr("…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Inputs (input_K.pb)"), m_inputs->text());
        if (!dir.isEmpty())
            m_inputs->setText(dir);
    });
    m_inputFiles = new QLineEdit(this);
    m_inputFiles->setPlaceholderText(tr("single inputs: name=FILE.npy; other=FILE.pb; third=random:SEED (over the test set's, or random)"));
    auto *browseFiles = new QPushButton(tr("…"), this);
    browseFiles->setToolTip(tr("Add .pb or .npy files, each for the input it names (a .pb's stored name, a .npy's file name)"));
    connect(browseFiles, &QPushButton::clicked, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Input files"), {}, tr("Tensors (*.pb *.npy)"));
        QStringList entries;
        if (!m_inputFiles->text().trimmed().isEmpty())
            entries << m_inputFiles->text().trimmed();
        for (const QString &file : files) {
            const std::string name = runtime::feedFileName(file.toStdString());
            entries << QStringLiteral("%1=%2").arg(name.empty() ? QFileInfo(file).completeBaseName() : QString::fromStdString(name), file);
        }
        m_inputFiles->setText(entries.join(QStringLiteral("; ")));
    });
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, 1'000'000);
    m_seed->setValue(static_cast<int>(runtime::kDefaultSeed));
    m_seed->setToolTip(tr("Random inputs: the K-th graph input gets seed N+K, as with portolan compare --seed N"));
    m_shapes = new QLineEdit(this);
    m_shapes->setPlaceholderText(tr("symbolic inputs: name=1,3,224,224; other=1,128"));
    m_atol = new QLineEdit(this);
    m_rtol = new QLineEdit(this);
    m_atol->setPlaceholderText(tr("1e-5 × scale × √depth"));
    m_rtol->setPlaceholderText(tr("1e-5 × √depth"));
    m_noDrift = new QCheckBox(tr("no drift"), this);
    m_noDrift->setToolTip(tr("Judge every tensor out of tolerance a bug, however little past it (portolan compare --no-drift). "
                             "By default, error up to what the precision's rounding explains is drift."));
    m_metric = new QComboBox(this);
    m_metric->addItems({tr("max error / reference scale"), tr("max abs error"), tr("1 − cosine")});
    connect(m_metric, &QComboBox::currentIndexChanged, this, &ComparePanel::heatChanged);
    m_runButton = new QPushButton(tr("Compare"), this);
    connect(m_runButton, &QPushButton::clicked, this, &ComparePanel::run);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setVisible(false);
    connect(m_cancelButton, &QPushButton::clicked, this, &ComparePanel::cancel);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000); // permille of both runs' nodes; the kernel checks come after
    m_progress->setFormat(tr("running A and B: %p%"));
    m_progress->setVisible(false);
    m_poll = new QTimer(this);
    m_poll->setInterval(100);
    connect(m_poll, &QTimer::timeout, this, [this] {
        if (!m_done)
            return;
        const int done = m_done->load(std::memory_order_relaxed);
        m_progress->setValue(done);
        if (done >= 1000)
            m_progress->setFormat(tr("checking the failing kernels…"));
    });
    m_summary = new QLabel(tr("Reference interpreter (A) against the compiled CPU executor (B)."), this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *form = new QFormLayout;
    auto *inputsRow = new QHBoxLayout;
    inputsRow->addWidget(m_inputs, 1);
    inputsRow->addWidget(browse);
    inputsRow->addWidget(new QLabel(tr("seed"), this));
    inputsRow->addWidget(m_seed);
    auto *bRow = new QHBoxLayout;
    bRow->addWidget(m_pipeline, 1);
    bRow->addWidget(m_precision);
    bRow->addWidget(m_calibration);
    auto *importRow = new QHBoxLayout;
    importRow->addWidget(m_importFrom, 1);
    importRow->addWidget(browseImport);
    importRow->addWidget(m_external, 1);
    importRow->addWidget(m_ortLevel, 1);
    auto *tolRow = new QHBoxLayout;
    tolRow->addWidget(new QLabel(tr("atol"), this));
    tolRow->addWidget(m_atol);
    tolRow->addWidget(new QLabel(tr("rtol"), this));
    tolRow->addWidget(m_rtol);
    tolRow->addWidget(m_noDrift);
    form->addRow(tr("A"), m_sideA);
    form->addRow(tr("B"), m_sideB);
    form->addRow(tr("Pipeline, precision"), bRow);
    form->addRow(tr("Other runtime"), importRow);
    form->addRow(tr("Inputs"), inputsRow);
    auto *filesRow = new QHBoxLayout;
    filesRow->addWidget(m_inputFiles, 1);
    filesRow->addWidget(browseFiles);
    form->addRow(tr("Input files"), filesRow);
    form->addRow(tr("Shapes"), m_shapes);
    form->addRow(tr("Tolerance"), tolRow);
    form->addRow(tr("Heat on graph"), m_metric);
    m_reproButton = new QPushButton(tr("Extract Repro…"), this);
    m_reproButton->setToolTip(tr("Cut the selected suspect (or the first divergence) out as a standalone model with the "
                                 "inputs B gave it and the reference's outputs, shrunk while it still fails"));
    connect(m_reproButton, &QPushButton::clicked, this, &ComparePanel::chooseReproFolder);
    m_bisectButton = new QPushButton(tr("Bisect Precision"), this);
    m_bisectButton->setToolTip(tr("Find the nodes to keep at fp32 for B's outputs to meet the tolerance"));
    connect(m_bisectButton, &QPushButton::clicked, this, &ComparePanel::bisectPrecision);
    auto *runRow = new QHBoxLayout; // buttons at their size; the progress bar, when shown, between them
    runRow->addWidget(m_runButton);
    runRow->addWidget(m_progress, 1);
    runRow->addWidget(m_cancelButton);
    runRow->addStretch();
    runRow->addWidget(m_reproButton);
    runRow->addWidget(m_bisectButton);

    m_table = new ComparisonTableModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_table);
    m_sorted->setSortRole(ComparisonTableModel::kSortRole);
    m_tableView = new QTableView(this);
    m_tableView->setModel(m_sorted);
    m_tableView->setSortingEnabled(true);
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tableView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tableView->verticalHeader()->setVisible(false);
    connect(m_tableView, &QTableView::clicked, this, [this](const QModelIndex &index) {
        activateRow(m_sorted->data(index, ComparisonTableModel::kRowRole).toInt());
    });
    m_chart = new QChartView(this);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_suspects = new QTreeWidget(this);
    m_suspects->setHeaderLabels({tr("Suspect"), tr("Error"), tr("Why")});
    m_suspects->setRootIsDecorated(false);
    connect(m_suspects, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem *item) { activateRow(item->data(0, ComparisonTableModel::kRowRole).toInt()); });
    m_gpuProfile = new GpuProfileView(this);
    auto *results = m_results = new QTabWidget(this);
    results->addTab(m_suspects, tr("Suspects"));
    results->addTab(m_tableView, tr("Tensors"));
    results->addTab(m_chart, tr("Error by depth"));
    results->addTab(m_gpuProfile, tr("GPU profile"));
    results->setTabVisible(results->indexOf(m_gpuProfile), false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(form);
    layout->addLayout(runRow);
    layout->addWidget(m_summary);
    layout->addWidget(results, 1);
    showSide();
    setWorkbench(nullptr);
}

void ComparePanel::setWorkbench(std::shared_ptr<const session::Workbench> workbench)
{
    emit resultAboutToChange();
    m_workbench = std::move(workbench);
    m_outcome.reset();
    m_table->setOutcome(nullptr);
    m_suspects->clear();
    m_gpuProfile->setProfile(nullptr);
    m_results->setTabVisible(m_results->indexOf(m_gpuProfile), false);
    QChart *old = m_chart->chart();
    m_chart->setChart(new QChart);
    delete old;
    m_runButton->setEnabled(m_workbench && m_workbench->hasModel() && !m_running);
    updateActions();
    emit heatChanged();
}

void ComparePanel::updateActions()
{
    // an imported B cannot run again, and only the compiled executor has a precision to bisect
    m_reproButton->setEnabled(m_outcome && m_outcome->request.b.kind != session::SideSpec::Kind::Imported && !m_extracting);
    m_bisectButton->setEnabled(m_outcome && m_outcome->request.b.isCompiled() && !m_bisecting &&
                               m_outcome->request.b.precision != "fp32" && !m_outcome->result.outputsPassed());
}

void ComparePanel::setPrecision(const QString &precision) { m_precision->setCurrentText(precision); }

QString ComparePanel::summary() const { return m_summary->text(); }
void ComparePanel::setInputsDir(const QString &dir) { m_inputs->setText(dir); }
void ComparePanel::setTolerance(double atol, double rtol)
{
    m_atol->setText(QString::number(atol));
    m_rtol->setText(QString::number(rtol));
}
void ComparePanel::setAllowDrift(bool allow) { m_noDrift->setChecked(!allow); }

namespace {

/// The heat metrics in the combo box's order, by their session names.
constexpr const char *kMetricKeys[] = {"normalized-error", "max-abs", "cosine-distance"};

} // namespace

session::CompareForm ComparePanel::form() const
{
    session::CompareForm f;
    f.sideA = m_sideA->currentData().toString().toStdString();
    f.pipeline = m_pipeline->text().toStdString();
    f.precision = m_precision->currentText().toStdString();
    f.calibration = m_calibration->text().trimmed().toStdString();
    f.importFrom = m_sideB->currentIndex() == 1 ? m_importFrom->text().trimmed().toStdString() : std::string();
    f.externalCommand = m_sideB->currentIndex() == 2 ? m_external->text().trimmed().toStdString() : std::string();
    f.executorB = m_sideB->currentIndex() == m_ortSide ? "ort:" + m_ortLevel->currentData().toString().toStdString()
                  : m_sideB->currentIndex() == kCudaSide ? "cuda"
                                                         : "cpu";
    f.inputsDir = m_inputs->text().trimmed().toStdString();
    f.inputFiles = m_inputFiles->text().trimmed().toStdString();
    f.seed = static_cast<std::uint64_t>(m_seed->value());
    f.shapes = m_shapes->text().toStdString();
    f.atol = m_atol->text().trimmed().toStdString();
    f.rtol = m_rtol->text().trimmed().toStdString();
    f.noDrift = m_noDrift->isChecked();
    f.heatMetric = kMetricKeys[std::clamp(m_metric->currentIndex(), 0, 2)];
    return f;
}

void ComparePanel::setForm(const session::CompareForm &f)
{
    if (const int a = m_sideA->findData(QString::fromStdString(f.sideA)); a >= 0)
        m_sideA->setCurrentIndex(a);
    m_pipeline->setText(QString::fromStdString(f.pipeline));
    if (const int precision = m_precision->findText(QString::fromStdString(f.precision)); precision >= 0)
        m_precision->setCurrentIndex(precision);
    m_calibration->setText(QString::fromStdString(f.calibration));
    m_importFrom->setText(QString::fromStdString(f.importFrom));
    m_external->setText(QString::fromStdString(f.externalCommand));
    const bool cuda = f.executorB == "cuda" && m_sideB->count() > kCudaSide;
    const bool ort = f.executorB.starts_with("ort");
    if (ort)
        if (const int level = m_ortLevel->findData(QString::fromStdString(f.executorB.substr(f.executorB.find(':') + 1))); level >= 0)
            m_ortLevel->setCurrentIndex(level);
    m_sideB->setCurrentIndex(!f.importFrom.empty() ? 1 : !f.externalCommand.empty() ? 2 : ort ? m_ortSide : cuda ? kCudaSide : 0);
    m_inputs->setText(QString::fromStdString(f.inputsDir));
    m_inputFiles->setText(QString::fromStdString(f.inputFiles));
    m_seed->setValue(static_cast<int>(std::min<std::uint64_t>(f.seed, static_cast<std::uint64_t>(m_seed->maximum()))));
    m_shapes->setText(QString::fromStdString(f.shapes));
    m_atol->setText(QString::fromStdString(f.atol));
    m_rtol->setText(QString::fromStdString(f.rtol));
    m_noDrift->setChecked(f.noDrift);
    for (int i = 0; i < 3; ++i)
        if (f.heatMetric == kMetricKeys[i])
            m_metric->setCurrentIndex(i);
}

support::Expected<session::ComparisonRequest> ComparePanel::request() const
{
    session::ComparisonRequest r;
    auto a = session::SideSpec::parse(m_sideA->currentData().toString().toStdString());
    if (!a)
        return a.takeError();
    r.a = std::move(*a);
    r.pipeline = m_pipeline->text().trimmed().toStdString();
    const std::string precision = m_precision->currentText().toStdString();
    r.b = session::SideSpec::compiled(m_sideB->currentIndex() == kCudaSide ? "cuda" : "cpu", precision);
    if (!m_calibration->text().trimmed().isEmpty())
        r.lowering.calibration = m_calibration->text().trimmed().toStdString();
    if (m_sideB->currentIndex() == 1) {
        r.b = session::SideSpec::imported(m_importFrom->text().trimmed().toStdString());
        if (r.b.importFrom.empty())
            return support::makeError("bad-usage", "name the imported run: a folder of .pb or .npy files, an .npz, or a Polygraphy .json");
    }
    if (m_sideB->currentIndex() == 2)
        r.b = session::SideSpec::external(m_external->text().trimmed().toStdString()); // checked by the workbench
    if (m_sideB->currentIndex() == m_ortSide)
        r.b = session::SideSpec::onnxRuntime(m_ortLevel->currentData().toString().toStdString());
    r.feeds.testDataDir = m_inputs->text().trimmed().toStdString();
    for (const QString &entry : m_inputFiles->text().split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        auto source = session::parseFeedSource(entry.trimmed().toStdString());
        if (!source)
            return source.takeError();
        r.feeds.sources.push_back(std::move(*source));
    }
    r.feeds.seed = static_cast<std::uint64_t>(m_seed->value());
    std::vector<std::string> specs;
    for (const QString &spec : m_shapes->text().split(QLatin1Char(';'), Qt::SkipEmptyParts))
        specs.push_back(spec.trimmed().toStdString());
    auto shapes = session::parseShapes(specs);
    if (!shapes)
        return shapes.takeError();
    r.feeds.shapes = std::move(*shapes);
    if (!m_atol->text().trimmed().isEmpty() || !m_rtol->text().trimmed().isEmpty()) {
        compare::Tolerance t = compare::kEquivalentPerStep; // for the half not typed in, as the CLI's
        t.atolPerScale = false;
        bool okA = true, okR = true;
        if (!m_atol->text().trimmed().isEmpty())
            t.atol = m_atol->text().toDouble(&okA);
        if (!m_rtol->text().trimmed().isEmpty())
            t.rtol = m_rtol->text().toDouble(&okR);
        if (!okA || !okR || t.atol < 0 || t.rtol < 0)
            return support::makeError("bad-usage", "atol and rtol take non-negative numbers");
        r.tolerance = t;
    }
    r.allowDrift = !m_noDrift->isChecked();
    return r;
}

void ComparePanel::run()
{
    if (!m_workbench || !m_workbench->hasModel() || m_running)
        return;
    auto r = request();
    if (!r) {
        m_summary->setText(QString::fromStdString(r.error().format()));
        emit finished(m_summary->text());
        return;
    }
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    r->cancel = m_cancel;
    m_done = std::make_shared<std::atomic<int>>(0);
    r->progress = m_done;
    m_progress->setValue(0);
    m_progress->setFormat(tr("running A and B: %p%"));
    m_poll->start();
    m_running = true;
    m_runButton->setEnabled(false);
    m_cancelButton->setVisible(true);
    m_progress->setVisible(true);
    m_summary->setText(tr("Running A and B…"));
    std::shared_ptr<const session::Workbench> workbench = m_workbench;
    auto job = [workbench, request = std::move(*r)] {
        auto outcome = std::make_shared<RunOutcome>();
        try {
            auto result = workbench->compare(request);
            if (result)
                outcome->outcome = std::move(*result);
            else if (result.error().primary.code == "cancelled")
                outcome->cancelled = true;
            else
                outcome->error = QString::fromStdString(result.error().format());
        } catch (const std::exception &e) {
            outcome->error = QString::fromUtf8(e.what());
        }
        return outcome;
    };
    runInBackground(this, std::move(job), [this, workbench](const std::shared_ptr<RunOutcome> &outcome) {
        m_running = false;
        m_cancel.reset();
        m_poll->stop();
        m_done.reset();
        m_runButton->setEnabled(m_workbench && m_workbench->hasModel());
        m_cancelButton->setVisible(false);
        m_progress->setVisible(false);
        if (workbench != m_workbench) { // another model was opened meanwhile: this result is of the old one
            m_summary->clear();
            return;
        }
        if (outcome->cancelled) { // asked for: no dialog
            m_summary->setText(tr("Cancelled."));
            emit finished({});
            return;
        }
        if (!outcome->error.isEmpty()) {
            m_summary->setText(outcome->error);
            emit finished(outcome->error);
            return;
        }
        adopt(std::move(outcome->outcome));
        emit finished({});
    });
}

void ComparePanel::cancel()
{
    if (!m_cancel)
        return;
    m_cancel->store(true);
    m_summary->setText(tr("Cancelling…"));
}

} // namespace portolan::views
