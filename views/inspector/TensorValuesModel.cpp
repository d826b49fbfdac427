#include "views/inspector/TensorValuesModel.h"

#include "runtime/TensorStats.h"

#include <QStringList>

#include <algorithm>
#include <limits>

namespace portolan::views {

TensorValuesModel::TensorValuesModel(QObject *parent) : QAbstractTableModel(parent) {}

std::int64_t TensorValuesModel::lastExtent() const
{
    if (!m_tensor || m_tensor->rank() == 0)
        return 1;
    return m_tensor->shape().back();
}

void TensorValuesModel::setTensor(std::optional<runtime::Tensor> tensor)
{
    beginResetModel();
    m_tensor = std::move(tensor);
    m_rows = 0;
    if (m_tensor && m_tensor->dataType() != onnx::TensorProto::STRING && m_tensor->size() > 0) {
        const std::int64_t rows = m_tensor->size() / std::max<std::int64_t>(1, lastExtent());
        m_rows = static_cast<int>(std::min<std::int64_t>(rows, std::numeric_limits<int>::max()));
    }
    endResetModel();
}

int TensorValuesModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : m_rows; }

int TensorValuesModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid() || m_rows == 0)
        return 0;
    return static_cast<int>(std::min<std::int64_t>(lastExtent(), kMaxColumns));
}

QVariant TensorValuesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_tensor || (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != Qt::UserRole))
        return {};
    const std::int64_t flat = static_cast<std::int64_t>(index.row()) * lastExtent() + index.column();
    const double v = runtime::elementAsDouble(*m_tensor, flat);
    if (role == Qt::UserRole)
        return v;
    return QString::number(v, 'g', role == Qt::ToolTipRole ? 17 : 6);
}

QVariant TensorValuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || !m_tensor)
        return {};
    if (orientation == Qt::Horizontal) {
        if (section == kMaxColumns - 1 && lastExtent() > kMaxColumns)
            return tr("%1 (of %2)").arg(section).arg(lastExtent());
        return section;
    }
    // the leading indices of this row, innermost last
    QStringList parts;
    std::int64_t rest = section;
    const auto &shape = m_tensor->shape();
    for (std::size_t d = shape.size() >= 1 ? shape.size() - 1 : 0; d-- > 0;) {
        parts.prepend(QString::number(rest % shape[d]));
        rest /= shape[d];
    }
    return QStringLiteral("[%1]").arg(parts.join(QLatin1Char(',')));
}

} // namespace portolan::views
