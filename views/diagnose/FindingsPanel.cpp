// The findings dock (see FindingsPanel.h).
#include "views/diagnose/FindingsPanel.h"

#include "views/common/Background.h"
#include "diagnose/CheckFormat.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace portolan::views {

namespace {

constexpr int kNodeRole = Qt::UserRole; ///< the row's node id + 1; 0 for none

QString qs(const std::string &text) { return QString::fromStdString(text); }

} // namespace

struct FindingsPanel::CheckOutcome {
    int generation = 0;
    std::optional<diagnose::TargetCheck> check;
    std::optional<diagnose::ShapeAnalysis> shapes;
    QString shapeError;
};

FindingsPanel::FindingsPanel(QWidget *parent) : QWidget(parent)
{
    m_targets = new QComboBox(this);
    m_targets->addItem(tr("No target"), QString());
    const diagnose::TargetListing listing = diagnose::listTargetProfiles();
    m_profiles = listing.profiles;
    for (const diagnose::TargetProfile &p : m_profiles)
        m_targets->addItem(qs(p.name), qs(p.id));
    m_targets->setToolTip(tr("Check the model against a target's published op support (profiles: docs/targets.md)"));
    connect(m_targets, &QComboBox::currentIndexChanged, this, [this] { startCheck(); });

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("Finding"), tr("Node"), tr("Detail")});
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_tree->header()->resizeSection(0, 300);
    m_tree->header()->resizeSection(1, 180);
    auto activate = [this](QTreeWidgetItem *item) {
        if (const uint id = item->data(0, kNodeRole).toUInt())
            emit nodeActivated(ir::NodeId(id - 1));
    };
    connect(m_tree, &QTreeWidget::itemActivated, this, activate);
    connect(m_tree, &QTreeWidget::itemClicked, this, activate);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Target:"), this));
    top->addWidget(m_targets, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_summary);
    layout->addWidget(m_tree, 1);
    for (const support::Error &e : listing.problems) // a broken user profile is said, not hidden
        m_summary->setText(m_summary->text() + tr("Profile skipped: %1\n").arg(qs(e.format())));
    rebuildTree();
}

void FindingsPanel::setWorkbench(std::shared_ptr<const session::Workbench> workbench, support::Diagnostics findings)
{
    m_workbench = std::move(workbench);
    m_findings = m_workbench ? std::move(findings) : support::Diagnostics{};
    startCheck();
}

void FindingsPanel::setTarget(const QString &id)
{
    const int index = m_targets->findData(id);
    if (index >= 0 && index != m_targets->currentIndex())
        m_targets->setCurrentIndex(index); // starts the check
}

QString FindingsPanel::targetId() const { return m_targets->currentData().toString(); }

std::optional<diagnose::TargetProfile> FindingsPanel::targetProfile() const
{
    const std::string id = targetId().toStdString();
    for (const diagnose::TargetProfile &profile : m_profiles)
        if (!id.empty() && profile.id == id)
            return profile;
    return std::nullopt;
}

QString FindingsPanel::targetName() const { return m_check ? qs(m_check->targetName) : QString(); }

std::unordered_map<std::uint32_t, QString> FindingsPanel::unsupportedNodes() const
{
    std::unordered_map<std::uint32_t, QString> nodes;
    if (!m_check)
        return nodes;
    for (const diagnose::ProblemGroup &g : m_check->groups)
        for (const diagnose::NodeProblem &p : g.nodes) {
            QString &why = nodes[p.node.index];
            why += (why.isEmpty() ? "" : "; ") + qs(p.detail);
        }
    return nodes;
}

void FindingsPanel::startCheck()
{
    const int generation = ++m_generation;
    m_check.reset();
    m_shapes.reset();
    m_namedNodes.clear(); // found again once the dim sources are known (adopt)
    m_shapeError.clear();
    if (!m_workbench || !m_workbench->hasModel()) {
        m_checking = false;
        rebuildTree();
        emit checked();
        return;
    }
    std::optional<diagnose::TargetProfile> profile;
    for (const diagnose::TargetProfile &p : m_profiles)
        if (qs(p.id) == targetId())
            profile = p;
    m_checking = true;
    m_summary->setText(profile ? tr("Checking against %1…").arg(qs(profile->name)) : tr("Tracing dynamic dims…"));
    rebuildTree();
    auto job = [workbench = m_workbench, profile, generation] {
        auto outcome = std::make_shared<CheckOutcome>();
        outcome->generation = generation;
        diagnose::ShapeOptions options;
        options.target = profile;
        if (auto shapes = workbench->analyzeShapes(options))
            outcome->shapes = std::move(*shapes);
        else
            outcome->shapeError = qs(shapes.error().format());
        if (profile)
            outcome->check = workbench->checkTarget(*profile);
        return outcome;
    };
    runInBackground(this, std::move(job), [this](const std::shared_ptr<CheckOutcome> &outcome) {
        if (outcome->generation == m_generation) // else another model or target was chosen meanwhile
            adopt(*outcome);
    });
}

void FindingsPanel::adopt(const CheckOutcome &outcome)
{
    m_checking = false;
    m_check = outcome.check;
    m_shapes = outcome.shapes;
    m_shapeError = outcome.shapeError;
    locateNamedNodes();
    rebuildTree();
    emit checked();
}

QTreeWidgetItem *FindingsPanel::addSection(const QString &title, bool expanded)
{
    auto *item = new QTreeWidgetItem(m_tree, {title});
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    item->setFirstColumnSpanned(true);
    item->setExpanded(expanded);
    return item;
}

void FindingsPanel::locateNamedNodes()
{
    m_namedNodes.clear();
    if (!m_workbench || !m_workbench->hasModel())
        return;
    // Diagnostics name a graph by its name, an unnamed main graph "main"; a dim source's node is in the main graph.
    for (const support::Diagnostic &d : m_findings)
        if (!d.node.empty())
            m_namedNodes.emplace(std::pair{d.graph, d.node}, ir::NodeId());
    if (m_shapes)
        for (const diagnose::DimSource &d : m_shapes->sources)
            if (!d.node.empty())
                m_namedNodes.emplace(std::pair{std::string("main"), d.node}, ir::NodeId());
    if (m_namedNodes.empty())
        return;
    const ir::Model &model = m_workbench->model();
    for (std::size_t g = 0; g < model.graphCount(); ++g) {
        const ir::Graph &graph = model.graph(ir::GraphId(static_cast<std::uint32_t>(g)));
        for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
            const std::string name = model.node(graph.nodes[i]).displayName(i);
            for (const std::string &graphName : {graph.name, graph.isMain() ? std::string("main") : std::string()})
                if (const auto it = m_namedNodes.find({graphName, name}); it != m_namedNodes.end() && !it->second.valid())
                    it->second = graph.nodes[i];
        }
    }
}

std::optional<ir::NodeId> FindingsPanel::nodeNamed(const std::string &graph, const std::string &name) const
{
    const auto it = m_namedNodes.find({graph, name});
    if (it == m_namedNodes.end() || !it->second.valid())
        return std::nullopt;
    return it->second;
}

void FindingsPanel::rebuildTree()
{
    m_tree->clear();
    if (!m_workbench || !m_workbench->hasModel()) {
        m_summary->setText(tr("Open a model to see what a target can run of it."));
        return;
    }
    auto row = [this](QTreeWidgetItem *parent, const QString &what, const std::optional<ir::NodeId> &node, const QString &nodeName,
                      const QString &detail) {
        auto *item = new QTreeWidgetItem(parent, {what, nodeName, detail});
        item->setToolTip(2, detail);
        if (node)
            item->setData(0, kNodeRole, node->index + 1);
        return item;
    };

    QString summary;
    if (m_checking) {
        summary = m_summary->text();
    } else if (m_check) {
        const diagnose::TargetCheck &c = *m_check;
        summary = c.supported() ? tr("%1 can run all %2 nodes.").arg(qs(c.targetName)).arg(c.nodes)
                                : tr("%1 cannot run %2 of %3 nodes.").arg(qs(c.targetName)).arg(c.unsupportedNodes).arg(c.nodes);
        QTreeWidgetItem *section = addSection(tr("%1 (profile: %2, %3)").arg(qs(c.targetName), qs(c.source.document), qs(c.source.version)),
                                              true);
        for (const support::Diagnostic &d : c.modelFindings)
            row(section, qs(support::severityName(d.severity)) + ": " + qs(d.code), std::nullopt, {}, qs(d.message));
        for (const diagnose::ProblemGroup &g : c.groups) {
            const QString op = g.opType.empty() ? tr("any op") : qs((g.domain.empty() ? "" : g.domain + ":") + g.opType);
            QString fixes;
            for (const diagnose::Fix &f : g.fixes)
                if (diagnose::fixWorthShowing(f))
                    fixes += (fixes.isEmpty() ? "" : "\n") + qs(diagnose::fixLine(f, g.nodes.size()));
            QTreeWidgetItem *group = row(section, qs(diagnose::causeTitle(g.cause)) + QStringLiteral(" — ") + op, std::nullopt,
                                         tr("%n node(s)", nullptr, static_cast<int>(g.nodes.size())),
                                         fixes.section('\n', 0, 0));
            group->setToolTip(0, g.note.empty() ? fixes : qs(g.note) + "\n\n" + fixes);
            group->setToolTip(2, fixes);
            for (const diagnose::NodeProblem &p : g.nodes)
                row(group, qs(g.opType.empty() ? p.opType : std::string(diagnose::causeKey(g.cause))), p.node, qs(p.nodeName),
                    qs(p.detail));
        }
        if (c.partitions.fallbackPartitions > 0)
            row(section, tr("With the rest on the host"), std::nullopt, {},
                tr("%1 target partition(s), %2 host partition(s), %3 tensor(s) crossing each run")
                    .arg(c.partitions.targetPartitions)
                    .arg(c.partitions.fallbackPartitions)
                    .arg(c.partitions.crossingTensors));
        if (c.combined && c.combined->ran())
            row(section, tr("Every pass fix together"), std::nullopt, {},
                tr("portolan optimize --pipeline '%1' leaves %2 unsupported").arg(qs(c.combined->pipeline)).arg(c.combined->unsupportedAfter));
    } else {
        summary = tr("Pick a target to see which nodes it cannot run and why.");
    }

    if (m_shapes) {
        QTreeWidgetItem *section = addSection(tr("Dynamic dims (%n origin(s))", nullptr, static_cast<int>(m_shapes->sources.size())),
                                              !m_shapes->sources.empty());
        for (const diagnose::DimSource &d : m_shapes->sources) {
            const auto node = nodeNamed("main", d.node);
            QTreeWidgetItem *item = row(section, qs(d.label()), node, qs(d.node),
                                        tr("reaches %n value(s)", nullptr, static_cast<int>(d.valuesReached)) + " — " + qs(d.suggestion));
            item->setToolTip(0, qs(d.reason));
        }
    } else if (!m_shapeError.isEmpty()) {
        row(addSection(tr("Dynamic dims"), true), tr("error"), std::nullopt, {}, m_shapeError);
    }

    QTreeWidgetItem *section = addSection(tr("Findings (%1)").arg(m_findings.size()), true);
    for (const support::Diagnostic &d : m_findings) {
        const QString where = qs(!d.node.empty() ? d.node : d.value);
        QTreeWidgetItem *item = row(section, qs(support::severityName(d.severity)) + ": " + qs(d.code), nodeNamed(d.graph, d.node),
                                    where, qs(d.message));
        item->setToolTip(0, qs(d.format()));
    }
    if (m_findings.empty())
        row(section, tr("none: the checker, shape inference and the export pitfalls found nothing"), std::nullopt, {}, {});
    m_summary->setText(summary);
}

} // namespace portolan::views
