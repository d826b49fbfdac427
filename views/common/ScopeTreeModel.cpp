// ScopeTreeModel: rows of a group are its child groups first, then its direct nodes.
#include "views/common/ScopeTreeModel.h"

namespace portolan::views {

ScopeTreeModel::ScopeTreeModel(QObject *parent) : QAbstractItemModel(parent) {}

void ScopeTreeModel::setGraph(const ir::Model *model, ir::GraphId graph)
{
    beginResetModel();
    m_model = model;
    m_tree = model ? std::make_unique<ir::NameScopeTree>(ir::NameScopeTree::build(*model, graph)) : nullptr;
    endResetModel();
}

QModelIndex ScopeTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!m_tree || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (parent.isValid() && (parent.column() != 0 || isNodeKey(parent.internalId())))
        return {};
    const std::size_t group = parent.isValid() ? parent.internalId() >> 1 : 0;
    const ir::ScopeGroup &g = m_tree->group(group);
    const auto r = static_cast<std::size_t>(row);
    if (r < g.children.size())
        return createIndex(row, column, groupKey(g.children[r]));
    if (r < g.children.size() + g.nodes.size())
        return createIndex(row, column, nodeKey(g.nodes[r - g.children.size()]));
    return {};
}

QModelIndex ScopeTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || !m_tree)
        return {};
    const quintptr key = child.internalId();
    std::size_t parentGroup = 0;
    if (isNodeKey(key)) {
        parentGroup = m_tree->groupOf(ir::NodeId(static_cast<std::uint32_t>(key >> 1))).value_or(0);
    } else {
        parentGroup = m_tree->group(key >> 1).parent;
    }
    if (parentGroup == 0)
        return {};
    return createIndex(static_cast<int>(m_tree->group(parentGroup).indexInParent), 0, groupKey(parentGroup));
}

int ScopeTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!m_tree)
        return 0;
    if (!parent.isValid()) {
        const ir::ScopeGroup &root = m_tree->root();
        return static_cast<int>(root.children.size() + root.nodes.size());
    }
    if (parent.column() != 0 || isNodeKey(parent.internalId()))
        return 0;
    const ir::ScopeGroup &g = m_tree->group(parent.internalId() >> 1);
    return static_cast<int>(g.children.size() + g.nodes.size());
}

int ScopeTreeModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant ScopeTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_tree)
        return {};
    const quintptr key = index.internalId();
    if (isNodeKey(key)) {
        const ir::Node &node = m_model->node(ir::NodeId(static_cast<std::uint32_t>(key >> 1)));
        switch (role) {
        case Qt::DisplayRole:
            if (index.column() == NameColumn) {
                const std::size_t slash = node.name.rfind('/');
                const std::string leaf = slash == std::string::npos ? node.name : node.name.substr(slash + 1);
                return QString::fromStdString(leaf.empty() ? "(" + node.opType + ")" : leaf);
            }
            return QString::fromStdString(node.domain.empty() ? node.opType : node.domain + "::" + node.opType);
        case Qt::ToolTipRole: return QString::fromStdString(node.name);
        case NodeIdRole: return QVariant::fromValue<quint32>(node.id.index);
        case IsGroupRole: return false;
        default: return {};
        }
    }
    const ir::ScopeGroup &g = m_tree->group(key >> 1);
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn)
            return QString::fromStdString(g.name);
        return tr("%n node(s)", nullptr, static_cast<int>(g.totalNodes));
    case Qt::ToolTipRole:
    case GroupPathRole: return QString::fromStdString(m_tree->pathOf(key >> 1));
    case IsGroupRole: return true;
    case GroupIndexRole: return QVariant::fromValue<qulonglong>(key >> 1);
    default: return {};
    }
}

QVariant ScopeTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == NameColumn ? tr("Name") : tr("Operator / size");
}

} // namespace portolan::views
