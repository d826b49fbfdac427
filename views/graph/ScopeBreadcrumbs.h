// The name-scope path of the canvas's selection as a row of buttons (main › layers.0 › self_attn),
// each leading to its group: where a node sits in a deep exported model, and a way back up.
#pragma once

#include "ir/NameScopes.h"

#include <QWidget>

class QHBoxLayout;

namespace portolan::views {

class ScopeBreadcrumbs : public QWidget {
    Q_OBJECT

public:
    explicit ScopeBreadcrumbs(QWidget *parent = nullptr);

    /// Shows the groups from the root down to `group` of `tree`, then `leaf` (a node's name) if given.
    void showPath(const ir::NameScopeTree &tree, std::size_t group, const QString &leaf = {});
    void clear();
    /// The crumbs' texts, root first (tests read them).
    QStringList crumbs() const;

signals:
    /// A crumb was clicked: the group it stands for (0 for the root).
    void groupActivated(std::size_t group);

private:
    QHBoxLayout *m_row = nullptr;
};

} // namespace portolan::views
