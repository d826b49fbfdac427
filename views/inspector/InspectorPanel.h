// The inspector dock: a page for the selected node, tensor or group (its links navigate the canvas),
// and for a tensor with data, its values as a table and their histogram.
#pragma once

#include "ir/Model.h"
#include "ir/NameScopes.h"
#include "runtime/Tensor.h"

#include <QWidget>

#include <map>
#include <optional>

class QChartView;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QUrl;

namespace portolan::views {

class TensorValuesModel;

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(QWidget *parent = nullptr);

    void setModel(const ir::Model *model);
    void showNode(ir::NodeId node);
    void showValue(ir::ValueId value);
    void showGroup(const ir::NameScopeTree &tree, std::size_t group);
    void clearPage();
    /// A computed tensor's values from a reference run: shown now if `value` is on the page, and
    /// whenever it is shown again (until another model is set).
    void showComputedValue(ir::ValueId value, runtime::Tensor tensor);
    /// The value on the page, when it is a tensor.
    std::optional<ir::ValueId> shownValue() const { return m_shownValue; }

    /// The details page as plain text (tests read it).
    QString pageText() const;
    const TensorValuesModel *valuesModel() const { return m_values; }
    /// Bins drawn in the histogram, 0 when there is none.
    int histogramBins() const { return m_histogramBins; }

signals:
    void nodeActivated(ir::NodeId node);
    void valueActivated(ir::ValueId value);
    /// The page's link asked for a computed tensor's values (showComputedValue answers).
    void valuesRequested(ir::ValueId value);

private:
    void follow(const QUrl &link);
    void showData(ir::ValueId value);
    const runtime::Tensor *computedOf(ir::ValueId value) const;

    const ir::Model *m_model = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTextBrowser *m_page = nullptr;
    QTableView *m_table = nullptr;
    TensorValuesModel *m_values = nullptr;
    QChartView *m_chart = nullptr;
    int m_histogramBins = 0;
    std::optional<ir::ValueId> m_shownValue;
    std::map<std::uint32_t, runtime::Tensor> m_computed; ///< reference values by value id, for this model
};

} // namespace portolan::views
