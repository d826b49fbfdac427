// The findings dock: what is known about the open model before it runs. A target picker (the
// shipped and user profiles); the target's check — per cause and op, the nodes it cannot run with
// the exact reason and the best measured fix; the dynamic dims and what to do about them; and the
// model's findings (checker, shape inference, export pitfalls). The check runs off the GUI thread;
// activating a row names its node, and the unsupported nodes feed the canvas's target overlay.
#pragma once

#include "diagnose/DynamicShapes.h"
#include "diagnose/TargetCheck.h"
#include "session/Workbench.h"

#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

class QComboBox;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace portolan::views {

class FindingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit FindingsPanel(QWidget *parent = nullptr);

    /// The open model and its findings (nullptr clears); checks it against the chosen target again.
    void setWorkbench(std::shared_ptr<const session::Workbench> workbench, support::Diagnostics findings);
    /// Picks a target by profile id ("" for none) and checks the model against it.
    void setTarget(const QString &id);
    QString targetId() const;
    QString targetName() const;
    /// The chosen target's profile; nullopt for none.
    std::optional<diagnose::TargetProfile> targetProfile() const;
    bool isChecking() const { return m_checking; }
    /// Node id → why the chosen target cannot run it; empty without a target.
    std::unordered_map<std::uint32_t, QString> unsupportedNodes() const;
    const QTreeWidget *tree() const { return m_tree; }
    /// The last check against the chosen target, and the dynamic dims; nullptr when there is none.
    const diagnose::TargetCheck *check() const { return m_check ? &*m_check : nullptr; }
    const diagnose::ShapeAnalysis *shapes() const { return m_shapes ? &*m_shapes : nullptr; }

    /// What a check hands back to the GUI thread (defined in the .cpp).
    struct CheckOutcome;

signals:
    void nodeActivated(ir::NodeId node);
    /// A check finished (or was cleared): the overlay and the tree are new.
    void checked();

private:
    void startCheck();
    void adopt(const CheckOutcome &outcome);
    void rebuildTree();
    QTreeWidgetItem *addSection(const QString &title, bool expanded);
    /// Finds the nodes the findings and the dynamic-dim sources name, in one pass over the model.
    void locateNamedNodes();
    std::optional<ir::NodeId> nodeNamed(const std::string &graph, const std::string &name) const;

    QComboBox *m_targets = nullptr;
    QLabel *m_summary = nullptr;
    QTreeWidget *m_tree = nullptr;
    std::vector<diagnose::TargetProfile> m_profiles;
    std::shared_ptr<const session::Workbench> m_workbench;
    support::Diagnostics m_findings;
    std::optional<diagnose::TargetCheck> m_check;
    std::optional<diagnose::ShapeAnalysis> m_shapes;
    QString m_shapeError;
    /// (graph, display name) → node, for the names the rows show: diagnostics name a node, not its id.
    std::map<std::pair<std::string, std::string>, ir::NodeId> m_namedNodes;
    bool m_checking = false;
    int m_generation = 0; ///< results of an older request are dropped
};

} // namespace portolan::views
