// The compare dock: the reference interpreter against the compiled CPU executor (pipeline,
// precision, inputs from a test-data folder or seeded random, tolerances), run off the GUI thread;
// results as a sortable table of every compared tensor, an error-by-depth chart (click a point to
// go to its node), the ranked suspects with the first divergence pinned, and the heat each node
// gets on the canvas.
#pragma once

#include "compare/NodeHeat.h"
#include "session/SessionFile.h"
#include "session/Workbench.h"

#include <QWidget>

#include <atomic>
#include <memory>
#include <unordered_map>

class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTabWidget;
class QTableView;
class QTimer;
class QTreeWidget;

namespace portolan::views {

class ComparisonTableModel;
class GpuProfileView;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    /// What the canvas heat shows per node.
    using HeatMetric = compare::HeatMetric;

    explicit ComparePanel(QWidget *parent = nullptr);

    void setWorkbench(std::shared_ptr<const session::Workbench> workbench);
    /// The request the form describes; an error for a malformed field (the message names it).
    support::Expected<session::ComparisonRequest> request() const;
    void setPrecision(const QString &precision);
    void setInputsDir(const QString &dir);
    void setTolerance(double atol, double rtol);
    /// Unchecks (or checks) "no drift": whether error the precision explains is drift or a bug.
    void setAllowDrift(bool allow);
    /// What the panel says of the last comparison (or of the job running).
    QString summary() const;
    /// The form as typed (for a session file), and back.
    session::CompareForm form() const;
    void setForm(const session::CompareForm &form);
    void run();
    /// Stops a running comparison: it finishes with no result and no error ("Cancelled.").
    void cancel();
    bool isRunning() const { return m_running; }
    /// The running comparison's permille of both runs' nodes done; -1 when none runs.
    int progressPermille() const { return m_done ? m_done->load(std::memory_order_relaxed) : -1; }
    const session::ComparisonOutcome *outcome() const { return m_outcome.get(); }
    /// The same, shared: what a job writing from it off the GUI thread keeps alive.
    std::shared_ptr<const session::ComparisonOutcome> sharedOutcome() const { return m_outcome; }
    const ComparisonTableModel *table() const { return m_table; }
    /// The node a repro is cut around: the selected suspect's, else the first divergence's ("" for none).
    QString reproNode() const;
    /// `portolan repro` for the last comparison: cuts around reproNode() off the GUI thread and writes
    /// the folder (a folder holding files only with `replace`); reproFinished says how it went.
    void extractRepro(const QString &dir, bool replace);
    bool isExtracting() const { return m_extracting; }
    /// `portolan bisect-precision` for the last comparison, off the GUI thread: the nodes to keep at
    /// fp32 for B's outputs to meet the tolerance; bisectionFinished says which.
    void bisectPrecision();
    bool isBisecting() const { return m_bisecting; }

    /// Per node of the open model (by id), the chosen metric of its worst compared output.
    std::unordered_map<std::uint32_t, double> heat() const;
    HeatMetric heatMetric() const;
    QString heatLabel() const;

signals:
    void finished(const QString &error);
    /// The heat changed (new results or another metric).
    void heatChanged();
    /// A tensor was picked in the table, chart or suspects: show `value` of the open model.
    void tensorActivated(ir::ValueId value);
    /// The outcome is about to be replaced.
    void resultAboutToChange();
    /// A repro was written (`summary` says where and whether it fails) or could not be (`error`).
    void reproFinished(const QString &summary, const QString &error);
    /// A bisection ended: `summary` names the nodes to keep at fp32 (as --keep-fp32 rules), or `error` says why not.
    void bisectionFinished(const QString &summary, const QString &error);

private:
    struct RunOutcome;
    void adopt(std::shared_ptr<const session::ComparisonOutcome> outcome);
    void fillChart();
    void fillSuspects();
    void activateRow(int row);
    void chooseReproFolder();
    void updateActions();

    std::shared_ptr<const session::Workbench> m_workbench; ///< jobs hold it too: a model switch mid-run is safe
    std::shared_ptr<const session::ComparisonOutcome> m_outcome;
    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancel; ///< the running comparison's stop flag
    std::shared_ptr<std::atomic<int>> m_done;    ///< the running comparison's permille, polled by m_poll
    QTimer *m_poll = nullptr;
    bool m_extracting = false;
    bool m_bisecting = false;

    QComboBox *m_sideA = nullptr;       // the reference interpreter, or the compiled executor at a precision
    QComboBox *m_sideB = nullptr;       // the compiled executor, an imported run or an external command
    QLineEdit *m_pipeline = nullptr;
    QComboBox *m_precision = nullptr;
    QLineEdit *m_calibration = nullptr; // int8's calibration batches
    QLineEdit *m_importFrom = nullptr;  // the imported run's folder or file
    QLineEdit *m_external = nullptr;    // the external command
    QLineEdit *m_inputs = nullptr;
    QLineEdit *m_inputFiles = nullptr; // name=FILE.pb|.npy; … over the test set's
    QSpinBox *m_seed = nullptr;
    QLineEdit *m_shapes = nullptr;
    QLineEdit *m_atol = nullptr;
    QLineEdit *m_rtol = nullptr;
    QCheckBox *m_noDrift = nullptr;
    QComboBox *m_ortLevel = nullptr; ///< ONNX Runtime's optimization level, when B is it
    int m_ortSide = -1;              ///< B's choice "ONNX Runtime"
    QComboBox *m_metric = nullptr;
    QPushButton *m_runButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QPushButton *m_reproButton = nullptr;
    QPushButton *m_bisectButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_summary = nullptr;
    ComparisonTableModel *m_table = nullptr;
    QSortFilterProxyModel *m_sorted = nullptr;
    QTableView *m_tableView = nullptr;
    QChartView *m_chart = nullptr;
    QTreeWidget *m_suspects = nullptr;
    QTabWidget *m_results = nullptr;
    GpuProfileView *m_gpuProfile = nullptr; ///< a tab of m_results, shown when B ran on the GPU
};

} // namespace portolan::views
