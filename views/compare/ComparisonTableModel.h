// Every compared tensor of a comparison with its metrics, one row each, in the order run B made
// them; Qt::UserRole gives the number behind a cell so a proxy sorts numerically.
#pragma once

#include "session/Comparison.h"

#include <QAbstractTableModel>

#include <memory>

namespace portolan::views {

class ComparisonTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TensorColumn, OpColumn, PassColumn, MaxAbsColumn, MaxRelColumn, CosineColumn, SnrColumn, NeededAtolColumn, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kRowRole = Qt::UserRole + 1; ///< index into the result's tensors

    explicit ComparisonTableModel(QObject *parent = nullptr);
    void setOutcome(std::shared_ptr<const session::ComparisonOutcome> outcome);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const session::ComparisonOutcome> m_outcome;
};

} // namespace portolan::views
