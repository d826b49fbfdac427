#include "views/inspector/InspectorPanel.h"

#include "views/inspector/InspectorHtml.h"
#include "views/inspector/TensorValuesModel.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/TensorStats.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace portolan::views {

InspectorPanel::InspectorPanel(QWidget *parent) : QWidget(parent)
{
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_page = new QTextBrowser(m_tabs);
    m_page->setOpenLinks(false);
    connect(m_page, &QTextBrowser::anchorClicked, this, &InspectorPanel::follow);
    m_values = new TensorValuesModel(this);
    m_table = new QTableView(m_tabs);
    m_table->setModel(m_values);
    m_chart = new QChartView(m_tabs);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_tabs->addTab(m_page, tr("Details"));
    m_tabs->addTab(m_table, tr("Values"));
    m_tabs->addTab(m_chart, tr("Histogram"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
    clearPage();
}

void InspectorPanel::setModel(const ir::Model *model)
{
    if (model == m_model && model)
        return;
    m_model = model;
    m_computed.clear();
    clearPage();
}

QString InspectorPanel::pageText() const { return m_page->toPlainText(); }

void InspectorPanel::clearPage()
{
    m_page->setHtml(QStringLiteral("<p style=\"color:gray\">%1</p>").arg(tr("Select a node, tensor or group on the canvas.")));
    showData({});
}

void InspectorPanel::showNode(ir::NodeId node)
{
    if (!m_model)
        return;
    m_page->setHtml(nodePageHtml(*m_model, node));
    showData({});
}

void InspectorPanel::showValue(ir::ValueId value)
{
    if (!m_model)
        return;
    m_page->setHtml(valuePageHtml(*m_model, value, computedOf(value)));
    showData(value);
}

const runtime::Tensor *InspectorPanel::computedOf(ir::ValueId value) const
{
    const auto it = m_computed.find(value.index);
    return it == m_computed.end() ? nullptr : &it->second;
}

void InspectorPanel::showComputedValue(ir::ValueId value, runtime::Tensor tensor)
{
    m_computed[value.index] = std::move(tensor);
    if (m_shownValue == value)
        showValue(value);
}

void InspectorPanel::showGroup(const ir::NameScopeTree &tree, std::size_t group)
{
    if (!m_model)
        return;
    m_page->setHtml(groupPageHtml(*m_model, tree, group));
    showData({});
}

// Values and histogram of a tensor with data (an initializer; run results come with the compare panel).
void InspectorPanel::showData(ir::ValueId value)
{
    m_shownValue = value.valid() ? std::optional<ir::ValueId>(value) : std::nullopt;
    std::optional<runtime::Tensor> tensor;
    if (m_model && value.valid() && m_model->value(value).isInitializer()) {
        if (auto t = runtime::tensorFromInitializer(m_model->value(value).initializer); t && t->dataType() != onnx::TensorProto::STRING)
            tensor = std::move(*t);
    } else if (const runtime::Tensor *computed = value.valid() ? computedOf(value) : nullptr;
               computed && computed->dataType() != onnx::TensorProto::STRING) {
        tensor = *computed;
    }
    m_values->setTensor(tensor);
    m_tabs->setTabEnabled(1, tensor.has_value());
    m_tabs->setTabEnabled(2, tensor.has_value());
    if (!tensor && m_tabs->currentIndex() != 0)
        m_tabs->setCurrentIndex(0);

    auto *chart = new QChart;
    chart->legend()->hide();
    m_histogramBins = 0;
    if (tensor) {
        const auto stats = runtime::tensorStats(*tensor);
        const auto histogram = runtime::tensorHistogram(*tensor, stats, 64);
        if (!histogram.counts.empty()) {
            auto *upper = new QLineSeries;
            const double width = (histogram.high - histogram.low) / static_cast<double>(histogram.counts.size());
            std::int64_t peak = 1;
            for (std::size_t b = 0; b < histogram.counts.size(); ++b) { // steps: each bin a flat top
                const double x0 = histogram.low + width * static_cast<double>(b);
                upper->append(x0, static_cast<double>(histogram.counts[b]));
                upper->append(x0 + width, static_cast<double>(histogram.counts[b]));
                peak = std::max(peak, histogram.counts[b]);
            }
            auto *area = new QAreaSeries(upper);
            area->setColor(QColor(0x4a, 0x90, 0xd9));
            area->setBorderColor(QColor(0x2a, 0x60, 0xa0));
            chart->addSeries(area);
            auto *x = new QValueAxis;
            x->setRange(histogram.low, width > 0 ? histogram.high : histogram.low + 1);
            x->setLabelFormat("%.3g");
            auto *y = new QValueAxis;
            y->setRange(0, static_cast<double>(peak) * 1.05);
            y->setLabelFormat("%d");
            chart->addAxis(x, Qt::AlignBottom);
            chart->addAxis(y, Qt::AlignLeft);
            area->attachAxis(x);
            area->attachAxis(y);
            chart->setTitle(tr("%1 finite values, %2 bins").arg(stats.count - stats.nans - stats.infs).arg(histogram.counts.size()));
            m_histogramBins = static_cast<int>(histogram.counts.size());
        }
    }
    QChart *old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
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
    } else if (target.startsWith(QLatin1String("compute:"))) {
        const auto index = target.mid(8).toUInt(&ok);
        if (ok && index < m_model->valueCapacity())
            emit valuesRequested(ir::ValueId(index));
    }
}

} // namespace portolan::views
