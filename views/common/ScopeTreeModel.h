// Item model of a graph's name-scope hierarchy: groups (with node counts) and their nodes.
#pragma once

#include "ir/Model.h"
#include "ir/NameScopes.h"

#include <QAbstractItemModel>

#include <memory>

namespace portolan::views {

class ScopeTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, DetailColumn, ColumnCount };
    enum Role { NodeIdRole = Qt::UserRole + 1, GroupPathRole, IsGroupRole, GroupIndexRole };

    explicit ScopeTreeModel(QObject *parent = nullptr);

    /// Shows `graph` of `model` (which must outlive this item model, or until the next call); nullptr clears.
    void setGraph(const ir::Model *model, ir::GraphId graph);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // internalId: group index << 1, or node id << 1 | 1
    static quintptr groupKey(std::size_t group) { return static_cast<quintptr>(group) << 1; }
    static quintptr nodeKey(ir::NodeId node) { return (static_cast<quintptr>(node.index) << 1) | 1; }
    static bool isNodeKey(quintptr key) { return (key & 1) != 0; }

    const ir::Model *m_model = nullptr;
    std::unique_ptr<ir::NameScopeTree> m_tree;
};

} // namespace portolan::views
