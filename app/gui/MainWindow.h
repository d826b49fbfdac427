// The main window: wiring only. Loads off the GUI thread and shows the model's groups and summary.
#pragma once

#include "analysis/ModelSummary.h"
#include "session/Workbench.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QPlainTextEdit;
class QTreeView;

namespace portolan::views {
class ScopeTreeModel;
}

namespace portolan::gui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens a model file; bad input ends in an error dialog, never a crash.
    void openFile(const QString &path);
    /// Opens the sample model bundled as a Qt resource.
    void openSample();
    /// True while a model is loading (tests wait on this).
    bool isLoading() const { return m_loading; }

    /// What a background load hands back to the GUI thread (defined in the .cpp).
    struct LoadResult;

signals:
    /// Emitted once a load finished: `ok` false after an error dialog.
    void modelLoaded(bool ok);

private:
    void startLoad(std::function<std::shared_ptr<LoadResult>()> job, const QString &title);
    void finishLoad(const std::shared_ptr<LoadResult> &result);
    void chooseFile();
    void showAbout();

    std::unique_ptr<session::Workbench> m_workbench;
    views::ScopeTreeModel *m_scopeModel = nullptr;
    QTreeView *m_scopeView = nullptr;
    QPlainTextEdit *m_summaryView = nullptr;
    QLabel *m_statusLabel = nullptr;
    bool m_loading = false;
};

} // namespace portolan::gui
