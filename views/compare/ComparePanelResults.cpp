// The compare dock's results: the outcome's table, suspects and error chart, the heat it hands the
// canvas, and the follow-ups on a comparison (a repro folder, a precision bisection) as background jobs.
#include "views/compare/ComparePanel.h"

#include "views/common/Background.h"
#include "views/compare/ComparisonTableModel.h"
#include "views/compare/GpuProfileView.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace portolan::views {

namespace {

constexpr double kHeatFloor = 1e-12; ///< errors below this read as this (a log scale has no zero)

/// What a background job hands back: a line for the user, or why it failed.
struct JobOutcome {
    QString summary, error;
};

} // namespace

QString ComparePanel::reproNode() const
{
    if (!m_outcome)
        return {};
    if (const QTreeWidgetItem *item = m_suspects->currentItem()) {
        const int row = item->data(0, ComparisonTableModel::kRowRole).toInt();
        if (row >= 0 && static_cast<std::size_t>(row) < m_outcome->result.tensors.size())
            return QString::fromStdString(m_outcome->result.tensors[static_cast<std::size_t>(row)].node);
    }
    return m_outcome->firstDivergence ? QString::fromStdString(m_outcome->firstDivergence->node) : QString();
}

void ComparePanel::chooseReproFolder()
{
    const QString node = reproNode();
    if (node.isEmpty()) {
        QMessageBox::information(this, tr("Extract Repro"), tr("No tensor goes out of tolerance on its own: pick a suspect first."));
        return;
    }
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the repro around %1").arg(node));
    if (dir.isEmpty())
        return;
    const bool holdsFiles = !QDir(dir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot);
    if (holdsFiles && QMessageBox::question(this, tr("Extract Repro"), tr("%1 holds files. Write the repro into it anyway?").arg(dir)) !=
                          QMessageBox::Yes)
        return;
    extractRepro(dir, holdsFiles);
}

void ComparePanel::extractRepro(const QString &dir, bool replace)
{
    const QString nodeName = reproNode();
    if (!m_workbench || !m_outcome || nodeName.isEmpty() || m_extracting) {
        emit reproFinished({}, tr("No tensor goes out of tolerance on its own: pick a suspect first."));
        return;
    }
    m_extracting = true;
    updateActions();
    m_summary->setText(tr("Cutting a repro around %1…").arg(nodeName));
    session::ReproRequest request;
    request.node = nodeName.toStdString();
    request.outputDir = dir.toStdString();
    request.overwrite = replace;
    request.tool = "the Portolan workbench's compare dock";
    auto job = [workbench = m_workbench, outcome = m_outcome, request, nodeName, dir] {
        auto written = workbench->writeRepro(*outcome, request);
        if (!written)
            return JobOutcome{{}, QString::fromStdString(written.error().format())};
        const compare::Repro &repro = written->repro;
        return JobOutcome{tr("Wrote a repro around %1 (%n node(s)) to %2: B is %3 the reference there.", nullptr,
                          static_cast<int>(repro.nodes.size()))
                           .arg(nodeName, dir, repro.reproduces() ? tr("OUT OF TOLERANCE against") : tr("within tolerance of")),
                       {}};
    };
    runInBackground(this, std::move(job), [this](const JobOutcome &written) {
        m_extracting = false;
        updateActions();
        m_summary->setText(written.error.isEmpty() ? written.summary : written.error);
        emit reproFinished(written.summary, written.error);
    });
}

void ComparePanel::bisectPrecision()
{
    if (!m_workbench || !m_outcome || m_bisecting)
        return;
    m_bisecting = true;
    updateActions();
    m_summary->setText(tr("Bisecting: which nodes must stay at fp32…"));
    auto job = [workbench = m_workbench, outcome = m_outcome] {
        auto result = workbench->bisectPrecision(outcome->request);
        if (!result)
            return JobOutcome{{}, QString::fromStdString(result.error().format())};
        if (result->neededNothing)
            return JobOutcome{tr("B already meets the tolerance at %1: nothing to keep at fp32.")
                                  .arg(QString::fromStdString(outcome->request.b.precision)),
                              {}};
        QString rules;
        for (const std::string &name : result->keepFp32)
            rules += QStringLiteral(" --keep-fp32 'node:%1'").arg(QString::fromStdString(name));
        return JobOutcome{tr("Keep %1 of the %2 nodes %3 lowers at fp32 (worst output error %4 of its scale, %5 runs):%6")
                              .arg(result->keepFp32.size())
                              .arg(result->candidates)
                              .arg(QString::fromStdString(outcome->request.b.precision))
                              .arg(result->worstError, 0, 'g', 3)
                              .arg(result->runs)
                              .arg(rules),
                          {}};
    };
    runInBackground(this, std::move(job), [this](const JobOutcome &found) {
        m_bisecting = false;
        updateActions();
        m_summary->setText(found.error.isEmpty() ? found.summary : found.error);
        emit bisectionFinished(found.summary, found.error);
    });
}

namespace {

/// The first `shown` names, comma-separated, with an ellipsis when there are more.
QString listedNames(const std::vector<std::string> &names, std::size_t shown)
{
    QStringList listed;
    for (std::size_t i = 0; i < names.size() && i < shown; ++i)
        listed.append(QString::fromStdString(names[i]));
    if (names.size() > shown)
        listed.append(QStringLiteral("…"));
    return listed.join(QStringLiteral(", "));
}

/// B on the GPU: where its time went (the kernels, the CPU fallbacks), and its slowest node against
/// the device's measured peaks.
QString acceleratorLine(const runtime::AcceleratorProfile &p)
{
    double device = 0, host = 0;
    for (const runtime::AcceleratorNode &n : p.nodes)
        (n.onHost() ? host : device) += n.milliseconds;
    QString line = ComparePanel::tr("\nOn %1: kernels %2 ms; %n node(s) on the CPU, %3 ms.", nullptr, static_cast<int>(p.fallbackCount()))
                       .arg(QString::fromStdString(p.device))
                       .arg(device, 0, 'f', 3)
                       .arg(host, 0, 'f', 3);
    const auto byTime = p.byTime();
    const auto slowest = std::find_if(byTime.begin(), byTime.end(), [](const auto &n) { return !n.onHost(); });
    if (slowest == byTime.end() || slowest->milliseconds <= 0)
        return line;
    line += ComparePanel::tr(" Slowest kernel: %1 (%2, %3) %4 ms")
                .arg(QString::fromStdString(slowest->name), QString::fromStdString(slowest->opType),
                     QString::fromStdString(slowest->implementation))
                .arg(slowest->milliseconds, 0, 'f', 3);
    if (!p.whyNoPeaks.empty() || p.copyBytesPerSecond <= 0)
        return line + ComparePanel::tr(" (the device's peaks were not measured).");
    const auto rates = p.ratesOf(*slowest);
    return line + ComparePanel::tr(", %1% of the copy bandwidth, %2% of the MatMul rate.")
                      .arg(100 * rates.bandwidthShare, 0, 'f', 0)
                      .arg(100 * rates.flopsShare, 0, 'f', 0);
}

} // namespace

void ComparePanel::adopt(std::shared_ptr<const session::ComparisonOutcome> outcome)
{
    emit resultAboutToChange();
    m_outcome = std::move(outcome);
    m_table->setOutcome(m_outcome);
    updateActions();
    const auto &r = m_outcome->result;
    std::size_t drifting = 0, bugs = 0;
    for (const auto &t : r.tensors) {
        drifting += t.verdict == compare::Verdict::Drift;
        bugs += t.verdict == compare::Verdict::Bug;
    }
    const QString outputs = r.outputsPassed()                                 ? tr("within tolerance")
                            : r.outputsVerdict() == compare::Verdict::Drift ? tr("out of tolerance, as drift")
                                                                             : tr("OUT OF TOLERANCE: a bug");
    QString text = tr("%1 against %2: %3 tensors compared: %4 equivalent, %5 drift, %6 bug; outputs %7. A %8 s, B %9 s.")
                       .arg(QString::fromStdString(r.labelB), QString::fromStdString(r.labelA))
                       .arg(r.tensors.size())
                       .arg(r.tensors.size() - drifting - bugs)
                       .arg(drifting)
                       .arg(bugs)
                       .arg(outputs)
                       .arg(r.secondsA, 0, 'f', 2)
                       .arg(r.secondsB, 0, 'f', 2);
    if (const auto *first = m_outcome->firstDivergence)
        text += tr("\nFirst divergence: %1, output %2.")
                    .arg(QString::fromStdString(compare::producerWithOp(first->node, first->opType)), QString::fromStdString(first->name));
    if (m_outcome->accelerator)
        text += acceleratorLine(*m_outcome->accelerator);
    const std::vector<std::string> &unknown = m_outcome->unknownImported;
    if (!unknown.empty())
        text += tr("\n%n imported tensor(s) named as no value of the model: %1", nullptr, static_cast<int>(unknown.size()))
                    .arg(listedNames(unknown, 5));
    m_summary->setText(text);
    fillSuspects();
    fillChart();
    m_gpuProfile->setProfile(m_outcome->accelerator ? &*m_outcome->accelerator : nullptr);
    m_results->setTabVisible(m_results->indexOf(m_gpuProfile), m_outcome->accelerator.has_value());
    emit heatChanged();
}

void ComparePanel::fillSuspects()
{
    m_suspects->clear();
    const auto &tensors = m_outcome->result.tensors;
    for (const auto &s : m_outcome->suspects) {
        QString why = QString::fromStdString(s.why);
        for (const auto &check : m_outcome->kernelChecks)
            if (check.tensor == s.tensor)
                why += QStringLiteral(" — ") + QString::fromStdString(check.explanation);
        auto *item = new QTreeWidgetItem(m_suspects, {QString::fromStdString(compare::producerWithOp(s.tensor->node, s.tensor->opType)),
                                                      QString::number(s.error, 'g', 3), why});
        item->setData(0, ComparisonTableModel::kRowRole, static_cast<int>(s.tensor - tensors.data()));
        item->setToolTip(2, why);
        if (s.tensor == m_outcome->firstDivergence) { // pinned: where the error starts
            QFont bold = item->font(0);
            bold.setBold(true);
            for (int c = 0; c < 3; ++c)
                item->setFont(c, bold);
            item->setText(0, tr("▶ first divergence: %1").arg(item->text(0)));
            m_suspects->takeTopLevelItem(m_suspects->indexOfTopLevelItem(item));
            m_suspects->insertTopLevelItem(0, item);
        }
    }
    for (int c = 0; c < 2; ++c)
        m_suspects->resizeColumnToContents(c);
}

void ComparePanel::fillChart()
{
    auto *chart = new QChart;
    chart->setTitle(tr("Error by depth (B's order); click a point to go to its node"));
    auto *passing = new QScatterSeries;
    auto *failing = new QScatterSeries;
    passing->setName(tr("within tolerance"));
    failing->setName(tr("out of tolerance"));
    passing->setColor(QColor(0x1e, 0x9e, 0x4a));
    failing->setColor(QColor(0xd0, 0x30, 0x30));
    passing->setMarkerSize(7);
    failing->setMarkerSize(8);
    const auto &tensors = m_outcome->result.tensors;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const double e = std::max(kHeatFloor, std::min(1e6, compare::normalizedError(tensors[i].metrics)));
        (tensors[i].metrics.passed ? passing : failing)->append(static_cast<double>(i), e);
    }
    chart->addSeries(passing);
    chart->addSeries(failing);
    auto *x = new QValueAxis;
    x->setRange(0, std::max<double>(1, static_cast<double>(tensors.size())));
    x->setLabelFormat("%d");
    x->setTitleText(tr("tensor"));
    auto *y = new QLogValueAxis;
    y->setBase(10);
    y->setRange(kHeatFloor, 1e1);
    y->setLabelFormat("%.0e");
    y->setTitleText(tr("max error / scale"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (auto *series : {passing, failing}) {
        series->attachAxis(x);
        series->attachAxis(y);
        connect(series, &QScatterSeries::clicked, this,
                [this](const QPointF &p) { activateRow(static_cast<int>(std::lround(p.x()))); });
    }
    QChart *old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
}

void ComparePanel::activateRow(int row)
{
    if (!m_outcome || row < 0 || row >= static_cast<int>(m_outcome->result.tensors.size()))
        return;
    emit tensorActivated(m_outcome->result.tensors[static_cast<std::size_t>(row)].inA);
}

ComparePanel::HeatMetric ComparePanel::heatMetric() const { return static_cast<HeatMetric>(m_metric->currentIndex()); }

QString ComparePanel::heatLabel() const { return m_metric->currentText(); }

std::unordered_map<std::uint32_t, double> ComparePanel::heat() const
{
    if (!m_outcome || !m_workbench || !m_workbench->hasModel())
        return {};
    return compare::nodeHeat(m_outcome->result, m_workbench->model(), heatMetric());
}

} // namespace portolan::views
