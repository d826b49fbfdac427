// The pipeline dock: the registered passes, a pipeline editor (the text form `portolan optimize
// --pipeline` takes, round-tripped), Run / Step / Step back / Reset, each pass's timing, statistics
// and changed marker, and for the shown step its rewrites and near-misses ("why wasn't this fused?").
// The pipeline runs once off the GUI thread with a snapshot after every pass; stepping moves
// through the snapshots, so step back and reset are exact and instant.
#pragma once

#include "passes/PassManager.h"
#include "session/Workbench.h"

#include <QWidget>

class QUndoStack;

#include <memory>

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace portolan::views {

class PipelinePanel : public QWidget {
    Q_OBJECT
public:
    explicit PipelinePanel(QWidget *parent = nullptr);
    ~PipelinePanel() override;

    /// The workbench whose model the pipeline compiles (must outlive the panel or the next call).
    void setWorkbench(std::shared_ptr<const session::Workbench> workbench);

    void setPipelineText(const QString &text);
    QString pipelineText() const;
    bool isRunning() const { return m_running; }

    /// Runs the pipeline (if not run yet for this text) and shows step `step`: -1 is the input model.
    void run();
    void step();
    void stepBack();
    void reset();
    void showStep(int step);

    int currentStep() const { return m_step; }
    /// The steps shown, as an undo history: undo shows the step shown before, redo the one after.
    /// A new compile starts a new history.
    QUndoStack *history() const { return m_history; }
    int stepCount() const;
    const passes::CompileResult *result() const { return m_result.get(); }
    /// The model before and after step `step` (step -1: the input for both).
    std::shared_ptr<const ir::Model> modelBefore(int step) const;
    std::shared_ptr<const ir::Model> modelAfter(int step) const;

signals:
    /// The compile result is about to be replaced: views showing its snapshots must let go.
    void resultAboutToChange();
    /// A pipeline run ended; `error` is empty on success.
    void finished(const QString &error);
    void stepShown(int step);
    /// A near-miss or rewrite was clicked: show `node` of the model before the step.
    void nodeActivated(ir::NodeId node);

private:
    struct RunOutcome;
    void startRun(int stepAfter);
    void fillSteps();
    void fillDetails();
    void updateButtons();

    std::shared_ptr<const session::Workbench> m_workbench; ///< jobs hold it too: a model switch mid-run is safe
    std::shared_ptr<passes::CompileResult> m_result;
    QString m_resultText; ///< the pipeline text m_result was compiled from
    int m_step = -1;
    bool m_running = false;
    QUndoStack *m_history = nullptr;
    bool m_replaying = false; ///< an undo or redo is showing a step: it is not a new one to record

    QListWidget *m_passList = nullptr;
    QLineEdit *m_editor = nullptr;
    QLabel *m_message = nullptr;
    QPushButton *m_runButton = nullptr, *m_stepButton = nullptr, *m_backButton = nullptr, *m_resetButton = nullptr;
    QTreeWidget *m_steps = nullptr;
    QTreeWidget *m_details = nullptr;
};

} // namespace portolan::views
