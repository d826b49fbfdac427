#include "views/compare/ComparisonTableModel.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace portolan::views {

ComparisonTableModel::ComparisonTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void ComparisonTableModel::setOutcome(std::shared_ptr<const session::ComparisonOutcome> outcome)
{
    beginResetModel();
    m_outcome = std::move(outcome);
    endResetModel();
}

int ComparisonTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_outcome ? 0 : static_cast<int>(m_outcome->result.tensors.size());
}

int ComparisonTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ComparisonTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_outcome)
        return {};
    const auto &t = m_outcome->result.tensors[static_cast<std::size_t>(index.row())];
    const auto &m = t.metrics;
    if (role == kRowRole)
        return index.row();
    if (role == Qt::ForegroundRole && index.column() == PassColumn) // green, amber, red
        return QBrush(t.verdict == compare::Verdict::Equivalent ? QColor(0x1e, 0x9e, 0x4a)
                      : t.verdict == compare::Verdict::Drift    ? QColor(0xb0, 0x70, 0x00)
                                                                 : QColor(0xd0, 0x30, 0x30));
    if (role == Qt::ToolTipRole && index.column() == PassColumn && t.failed())
        return QString::fromStdString(t.verdictWhy);
    auto number = [role](double v, char format = 'g', int digits = 3) -> QVariant {
        if (role == kSortRole)
            return v;
        if (role != Qt::DisplayRole)
            return {};
        return std::isinf(v) ? QStringLiteral("∞") : QString::number(v, format, digits);
    };
    switch (index.column()) {
    case TensorColumn:
        if (role == Qt::DisplayRole || role == kSortRole)
            return QString::fromStdString(t.name) + (t.output ? tr(" (output)") : QString());
        if (role == Qt::ToolTipRole)
            return tr("node %1").arg(QString::fromStdString(t.node));
        return {};
    case OpColumn: return role == Qt::DisplayRole || role == kSortRole ? QString::fromStdString(t.opType) : QVariant();
    case PassColumn:
        if (role == kSortRole)
            return static_cast<int>(t.verdict);
        if (role != Qt::DisplayRole)
            return {};
        if (!m.mismatch.empty())
            return tr("mismatch");
        return t.verdict == compare::Verdict::Equivalent ? tr("equivalent") : t.verdict == compare::Verdict::Drift ? tr("drift") : tr("BUG");
    case MaxAbsColumn: return number(m.maxAbs);
    case MaxRelColumn: return number(m.maxRel);
    case CosineColumn: return number(m.cosine, 'f', 6);
    case SnrColumn: return number(m.snrDb, 'f', 1);
    case NeededAtolColumn: return number(m.neededAtol);
    default: return {};
    }
}

QVariant ComparisonTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TensorColumn: return tr("Tensor");
    case OpColumn: return tr("Op");
    case PassColumn: return tr("Verdict");
    case MaxAbsColumn: return tr("Max abs");
    case MaxRelColumn: return tr("Max rel");
    case CosineColumn: return tr("Cosine");
    case SnrColumn: return tr("SNR dB");
    case NeededAtolColumn: return tr("Needed atol");
    default: return {};
    }
}

} // namespace portolan::views
