// A tensor's values as a table: the last dimension across, every other index down ("[0,3,1]"),
// read element by element from the tensor in place, so a 100M-element weight costs nothing until shown.
#pragma once

#include "runtime/Tensor.h"

#include <QAbstractTableModel>

#include <optional>

namespace portolan::views {

class TensorValuesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Columns shown at most (a wider last dimension is cut, the header says so).
    static constexpr int kMaxColumns = 256;

    explicit TensorValuesModel(QObject *parent = nullptr);
    void setTensor(std::optional<runtime::Tensor> tensor);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::int64_t lastExtent() const;
    std::optional<runtime::Tensor> m_tensor;
    int m_rows = 0;
};

} // namespace portolan::views
