#include "inspector/InspectorPanel.h"

#include "inspector/InspectorHtml.h"

namespace portolan::views {

InspectorPanel::InspectorPanel(QWidget *parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, &InspectorPanel::follow);
    clearPage();
}

void InspectorPanel::setModel(const ir::Model *model)
{
    m_model = model;
    clearPage();
}

void InspectorPanel::clearPage()
{
    setHtml(QStringLiteral("<p style=\"color:gray\">%1</p>").arg(tr("Select a node, tensor or group on the canvas.")));
}

void InspectorPanel::showNode(ir::NodeId node)
{
    if (m_model)
        setHtml(nodePageHtml(*m_model, node));
}

void InspectorPanel::showValue(ir::ValueId value)
{
    if (m_model)
        setHtml(valuePageHtml(*m_model, value));
}

void InspectorPanel::showGroup(const ir::NameScopeTree &tree, std::size_t group)
{
    if (m_model)
        setHtml(groupPageHtml(*m_model, tree, group));
}

void InspectorPanel::follow(const QUrl &link)
{
    if (!m_model)
        return;
    const QString target = link.toString();
    bool ok = false;
    if (target.startsWith(QLatin1String("node:"))) {
        const auto index = target.mid(5).toUInt(&ok);
        if (ok && index < m_model->nodeCapacity()) {
            showNode(ir::NodeId(index));
            emit nodeActivated(ir::NodeId(index));
        }
    } else if (target.startsWith(QLatin1String("value:"))) {
        const auto index = target.mid(6).toUInt(&ok);
        if (ok && index < m_model->valueCapacity()) {
            showValue(ir::ValueId(index));
            emit valueActivated(ir::ValueId(index));
        }
    }
}

} // namespace portolan::views
