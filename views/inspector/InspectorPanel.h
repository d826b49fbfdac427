// The inspector dock's widget: shows one node, tensor or group; its links navigate the canvas.
#pragma once

#include "ir/Model.h"
#include "ir/NameScopes.h"

#include <QTextBrowser>

namespace portolan::views {

class InspectorPanel : public QTextBrowser {
    Q_OBJECT
public:
    explicit InspectorPanel(QWidget *parent = nullptr);

    void setModel(const ir::Model *model);
    void showNode(ir::NodeId node);
    void showValue(ir::ValueId value);
    void showGroup(const ir::NameScopeTree &tree, std::size_t group);
    void clearPage();

signals:
    void nodeActivated(ir::NodeId node);
    void valueActivated(ir::ValueId value);

private:
    void follow(const QUrl &link);
    const ir::Model *m_model = nullptr;
};

} // namespace portolan::views
