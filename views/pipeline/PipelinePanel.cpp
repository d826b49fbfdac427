#include "views/pipeline/PipelinePanel.h"

#include "passes/CompileReport.h"

#include "passes/Pass.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace portolan::views {

namespace {
constexpr int kNodeRole = Qt::UserRole + 1;
}

struct PipelinePanel::RunOutcome {
    std::shared_ptr<passes::CompileResult> result;
    QString error;
};

PipelinePanel::PipelinePanel(QWidget *parent) : QWidget(parent)
{
    m_history = new QUndoStack(this);
    m_passList = new QListWidget(this);
    for (const auto &pass : passes::registeredPasses()) {
        auto *item = new QListWidgetItem(QString::fromStdString(pass.name), m_passList);
        item->setToolTip(QString::fromStdString(pass.summary));
    }
    m_passList->setToolTip(tr("Double-click a pass to append it to the pipeline."));
    connect(m_passList, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem *item) {
        const QString text = pipelineText().trimmed();
        setPipelineText(text.isEmpty() || text.startsWith(QLatin1String("-O")) ? item->text() : text + QLatin1Char(',') + item->text());
    });

    m_editor = new QLineEdit(QStringLiteral("-O2"), this);
    m_editor->setPlaceholderText(tr("-O2, or passes: infer-shapes,fuse-layer-norm{max-epsilon=1e-3},eliminate-dead"));
    connect(m_editor, &QLineEdit::textEdited, this, &PipelinePanel::updateButtons);
    connect(m_editor, &QLineEdit::returnPressed, this, &PipelinePanel::run);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_runButton = new QPushButton(tr("Run"), this);
    m_stepButton = new QPushButton(tr("Step"), this);
    m_backButton = new QPushButton(tr("Step back"), this);
    m_resetButton = new QPushButton(tr("Reset"), this);
    m_stepButton->setShortcut(QKeySequence(Qt::Key_F10));
    m_backButton->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F10));
    connect(m_runButton, &QPushButton::clicked, this, &PipelinePanel::run);
    connect(m_stepButton, &QPushButton::clicked, this, &PipelinePanel::step);
    connect(m_backButton, &QPushButton::clicked, this, &PipelinePanel::stepBack);
    connect(m_resetButton, &QPushButton::clicked, this, &PipelinePanel::reset);

    m_steps = new QTreeWidget(this);
    m_steps->setRootIsDecorated(false);
    m_steps->setHeaderLabels({tr("Pass"), tr("Changed"), tr("Nodes"), tr("Rewrites"), tr("ms"), tr("Statistics")});
    m_steps->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_steps, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem *item) { showStep(m_steps->indexOfTopLevelItem(item)); });
    m_details = new QTreeWidget(this);
    m_details->setObjectName(QStringLiteral("rewriteDetails"));
    m_details->setHeaderLabels({tr("Rewrite or near-miss"), tr("Detail")});
    m_details->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_details, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) {
        if (const QVariant node = item->data(0, kNodeRole); node.isValid())
            emit nodeActivated(ir::NodeId(node.toUInt()));
    });

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_editor, 1);
    for (QPushButton *b : {m_runButton, m_stepButton, m_backButton, m_resetButton})
        buttons->addWidget(b);
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addLayout(buttons);
    rightLayout->addWidget(m_message);
    auto *lists = new QSplitter(Qt::Horizontal, right);
    lists->addWidget(m_steps);
    lists->addWidget(m_details);
    lists->setStretchFactor(0, 3);
    lists->setStretchFactor(1, 2);
    rightLayout->addWidget(lists, 1);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_passList);
    split->addWidget(right);
    split->setStretchFactor(1, 4);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
    updateButtons();
}

namespace {

/// Showing step `to` after `from`: undone by showing `from` again.
class ShowStepCommand final : public QUndoCommand {
public:
    ShowStepCommand(PipelinePanel *panel, bool &replaying, int from, int to)
        : m_panel(panel), m_replaying(replaying), m_from(from), m_to(to)
    {
        setText(to < 0 ? PipelinePanel::tr("show the input model") : PipelinePanel::tr("show step %1").arg(to + 1));
    }
    void undo() override { replay(m_from); }
    void redo() override
    {
        if (m_first) { // pushed after the step was shown: nothing to do the first time
            m_first = false;
            return;
        }
        replay(m_to);
    }

private:
    void replay(int step)
    {
        m_replaying = true;
        m_panel->showStep(step);
        m_replaying = false;
    }

    PipelinePanel *m_panel;
    bool &m_replaying;
    int m_from, m_to;
    bool m_first = true;
};

} // namespace

PipelinePanel::~PipelinePanel() = default;

void PipelinePanel::setWorkbench(std::shared_ptr<const session::Workbench> workbench)
{
    emit resultAboutToChange();
    m_history->clear();
    m_workbench = std::move(workbench);
    m_result.reset();
    m_resultText.clear();
    m_step = -1;
    m_steps->clear();
    m_details->clear();
    m_message->clear();
    updateButtons();
}

void PipelinePanel::setPipelineText(const QString &text)
{
    m_editor->setText(text);
    updateButtons();
}

QString PipelinePanel::pipelineText() const { return m_editor->text(); }

int PipelinePanel::stepCount() const { return m_result ? static_cast<int>(m_result->passes.size()) : 0; }

std::shared_ptr<const ir::Model> PipelinePanel::modelBefore(int step) const
{
    if (!m_result || step <= 0)
        return m_result ? m_result->input : nullptr;
    return m_result->passes[static_cast<std::size_t>(step - 1)].snapshot;
}

std::shared_ptr<const ir::Model> PipelinePanel::modelAfter(int step) const
{
    if (!m_result || step < 0)
        return m_result ? m_result->input : nullptr;
    return m_result->passes[static_cast<std::size_t>(step)].snapshot;
}

void PipelinePanel::run()
{
    if (m_result && m_resultText == pipelineText())
        showStep(stepCount() - 1);
    else
        startRun(std::numeric_limits<int>::max());
}

void PipelinePanel::step()
{
    if (!m_result || m_resultText != pipelineText())
        startRun(0);
    else if (m_step + 1 < stepCount())
        showStep(m_step + 1);
}

void PipelinePanel::stepBack()
{
    if (m_result && m_step >= 0)
        showStep(m_step - 1);
}

void PipelinePanel::reset()
{
    if (m_result)
        showStep(-1);
}

void PipelinePanel::startRun(int stepAfter)
{
    if (!m_workbench || !m_workbench->hasModel() || m_running)
        return;
    auto pipeline = session::Workbench::pipelineFromText(pipelineText().trimmed().toStdString());
    if (!pipeline) {
        m_message->setText(QString::fromStdString(pipeline.error().format()));
        emit finished(m_message->text());
        return;
    }
    m_running = true;
    m_message->setText(tr("Running %n pass(es)…", nullptr, static_cast<int>(pipeline->passes.size())));
    updateButtons();
    std::shared_ptr<const session::Workbench> workbench = m_workbench;
    auto *watcher = new QFutureWatcher<std::shared_ptr<RunOutcome>>(this);
    connect(watcher, &QFutureWatcher<std::shared_ptr<RunOutcome>>::finished, this, [this, watcher, stepAfter, workbench] {
        auto outcome = watcher->result();
        watcher->deleteLater();
        m_running = false;
        if (workbench != m_workbench) { // another model was opened meanwhile: this result is of the old one
            m_message->clear();
            updateButtons();
            return;
        }
        if (!outcome->error.isEmpty()) {
            m_message->setText(outcome->error);
            updateButtons();
            emit finished(outcome->error);
            return;
        }
        emit resultAboutToChange();
        m_history->clear(); // its steps were of the last compile
        m_step = -1;        // undoing the run's first step shows the input model
        m_result = std::move(outcome->result);
        m_resultText = pipelineText();
        double total = 0;
        for (const auto &p : m_result->passes)
            total += p.milliseconds;
        m_message->setText(tr("%1 passes in %2 ms; %3 → %4 nodes")
                               .arg(m_result->passes.size())
                               .arg(total, 0, 'f', 1)
                               .arg(m_result->input->liveNodeCount())
                               .arg(m_result->model->liveNodeCount()));
        fillSteps();
        showStep(std::min(stepAfter, stepCount() - 1));
        emit finished({});
    });
    watcher->setFuture(QtConcurrent::run([workbench, pipeline = std::move(*pipeline)] {
        auto outcome = std::make_shared<RunOutcome>();
        try {
            passes::PassManagerOptions options;
            options.snapshots = true; // stepping, undo and the before/after diff
            auto result = workbench->optimize(pipeline, options);
            if (result)
                outcome->result = std::make_shared<passes::CompileResult>(std::move(*result));
            else
                outcome->error = QString::fromStdString(result.error().format());
        } catch (const std::exception &e) { // a message, not a crash, when the future is read
            outcome->error = QString::fromUtf8(e.what());
        }
        return outcome;
    }));
}

void PipelinePanel::fillSteps()
{
    m_steps->clear();
    for (const auto &p : m_result->passes) {
        QStringList stats;
        for (const auto &[key, value] : p.statistics)
            stats << QStringLiteral("%1=%2").arg(QString::fromStdString(key)).arg(value);
        auto *item = new QTreeWidgetItem(m_steps, {QString::fromStdString(p.invocation), p.changed ? QStringLiteral("●") : QString(),
                                                   QStringLiteral("%1 → %2").arg(p.nodesBefore).arg(p.nodesAfter),
                                                   QString::number(p.rewrites.size()), QString::number(p.milliseconds, 'f', 2),
                                                   stats.join(QStringLiteral(", "))});
        item->setToolTip(1, p.changed ? tr("this pass changed the graph") : tr("no change"));
        if (!p.changed)
            for (int c = 0; c < item->columnCount(); ++c)
                item->setForeground(c, palette().color(QPalette::Disabled, QPalette::Text));
    }
}

void PipelinePanel::showStep(int step)
{
    if (!m_result)
        return;
    const int previous = m_step;
    m_step = std::clamp(step, -1, stepCount() - 1);
    if (!m_replaying && m_step != previous)
        m_history->push(new ShowStepCommand(this, m_replaying, previous, m_step));
    for (int i = 0; i < m_steps->topLevelItemCount(); ++i) {
        QFont font = m_steps->topLevelItem(i)->font(0);
        font.setBold(i == m_step);
        for (int c = 0; c < m_steps->columnCount(); ++c)
            m_steps->topLevelItem(i)->setFont(c, font);
    }
    if (m_step >= 0)
        m_steps->setCurrentItem(m_steps->topLevelItem(m_step));
    else
        m_steps->clearSelection();
    fillDetails();
    updateButtons();
    emit stepShown(m_step);
}

void PipelinePanel::fillDetails()
{
    m_details->clear();
    if (m_step < 0)
        return;
    const auto &pass = m_result->passes[static_cast<std::size_t>(m_step)];
    const auto before = modelBefore(m_step);
    const auto after = modelAfter(m_step);
    auto nodeName = [](const ir::Model &model, ir::NodeId id) {
        const ir::Node &n = model.node(id);
        return QString::fromStdString(n.name.empty() ? n.opType : n.name);
    };
    if (!pass.rewrites.empty()) {
        auto *rewrites = new QTreeWidgetItem(m_details, {tr("Rewrites (%1)").arg(pass.rewrites.size())});
        for (const auto &r : pass.rewrites) {
            QStringList created;
            for (auto n : r.createdNodes)
                created << QString::fromStdString(after->node(n).opType);
            // named by the layer it touched: twelve "8 nodes → Attention" rows say nothing of which is which
            const std::string scope = passes::rewriteScope(*before, r);
            auto *item = new QTreeWidgetItem(rewrites, {QString::fromStdString(scope.empty() ? r.pattern : r.pattern + "  " + scope),
                                                        tr("%n node(s) → %1", nullptr, static_cast<int>(r.removedNodes.size()))
                                                                .arg(created.isEmpty() ? tr("nothing") : created.join(QStringLiteral(", "))) +
                                                            (r.detail.empty() ? QString() : QStringLiteral("  (%1)").arg(QString::fromStdString(r.detail)))});
            item->setToolTip(0, QString::fromStdString(scope.empty() ? r.pattern : r.pattern + " in " + scope));
            for (auto n : r.removedNodes) {
                auto *removed = new QTreeWidgetItem(item, {nodeName(*before, n), QString::fromStdString(before->node(n).opType)});
                removed->setData(0, kNodeRole, n.index);
            }
            if (!r.removedNodes.empty())
                item->setData(0, kNodeRole, r.removedNodes.front().index);
        }
        rewrites->setExpanded(pass.rewrites.size() <= 20);
    }
    if (!pass.matchFailures.empty()) {
        auto *misses = new QTreeWidgetItem(m_details, {tr("Near-misses (%1)").arg(pass.matchFailures.size())});
        for (const auto &f : pass.matchFailures) {
            auto *item = new QTreeWidgetItem(misses, {nodeName(*before, f.node), QString::fromStdString(f.pattern + ": " + f.reason)});
            item->setData(0, kNodeRole, f.node.index);
            item->setToolTip(1, QString::fromStdString(f.reason));
        }
        misses->setExpanded(true);
    }
    if (pass.rewrites.empty() && pass.matchFailures.empty())
        new QTreeWidgetItem(m_details, {pass.changed ? tr("changed without recorded rewrites") : tr("nothing to do")});
}

void PipelinePanel::updateButtons()
{
    const bool model = m_workbench && m_workbench->hasModel() && !m_running;
    const bool current = m_result && m_resultText == pipelineText();
    m_runButton->setEnabled(model);
    m_stepButton->setEnabled(model && (!current || m_step + 1 < stepCount()));
    m_backButton->setEnabled(current && m_step >= 0);
    m_resetButton->setEnabled(current && m_step >= 0);
}

} // namespace portolan::views
