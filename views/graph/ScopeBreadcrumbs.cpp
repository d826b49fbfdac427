// Breadcrumb buttons over the scope tree.
#include "views/graph/ScopeBreadcrumbs.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

#include <vector>

namespace portolan::views {

ScopeBreadcrumbs::ScopeBreadcrumbs(QWidget *parent) : QWidget(parent)
{
    m_row = new QHBoxLayout(this);
    m_row->setContentsMargins(4, 0, 4, 0);
    m_row->setSpacing(2);
    m_row->addStretch(1);
    // as tall as a crumb even when empty: the canvas below must not jump as selections come and go
    QToolButton probe;
    probe.setAutoRaise(true);
    probe.setText(QStringLiteral("main"));
    setFixedHeight(probe.sizeHint().height());
}

void ScopeBreadcrumbs::clear()
{
    while (m_row->count() > 1) { // the stretch at the end stays
        QLayoutItem *item = m_row->takeAt(0);
        delete item->widget();
        delete item;
    }
}

void ScopeBreadcrumbs::showPath(const ir::NameScopeTree &tree, std::size_t group, const QString &leaf)
{
    clear();
    if (group >= tree.groupCount())
        return;
    std::vector<std::size_t> chain; // root first
    for (std::size_t g = group;; g = tree.group(g).parent) {
        chain.insert(chain.begin(), g);
        if (g == 0)
            break;
    }
    int at = 0;
    const auto separator = [&] {
        auto *arrow = new QLabel(QStringLiteral("›"), this);
        arrow->setForegroundRole(QPalette::PlaceholderText);
        m_row->insertWidget(at++, arrow);
    };
    for (std::size_t i = 0; i < chain.size(); ++i) {
        if (i)
            separator();
        const std::size_t g = chain[i];
        auto *crumb = new QToolButton(this);
        crumb->setAutoRaise(true);
        crumb->setText(g == 0 ? tr("main") : QString::fromStdString(tree.group(g).name));
        crumb->setToolTip(g == 0 ? tr("The whole graph") : QString::fromStdString(tree.pathOf(g)));
        connect(crumb, &QToolButton::clicked, this, [this, g] { emit groupActivated(g); });
        m_row->insertWidget(at++, crumb);
    }
    if (!leaf.isEmpty()) {
        separator();
        auto *label = new QLabel(leaf, this);
        QFont bold = label->font();
        bold.setBold(true);
        label->setFont(bold);
        m_row->insertWidget(at++, label);
    }
}

QStringList ScopeBreadcrumbs::crumbs() const
{
    QStringList texts;
    for (int i = 0; i < m_row->count(); ++i) {
        QWidget *w = m_row->itemAt(i)->widget();
        if (auto *button = qobject_cast<QToolButton *>(w))
            texts << button->text();
        else if (auto *label = qobject_cast<QLabel *>(w); label && label->text() != QStringLiteral("›"))
            texts << label->text();
    }
    return texts;
}

} // namespace portolan::views
