// The inspector on real models: node pages with schema documentation, tensor pages with an
// initializer's statistics, its values table (under QAbstractItemModelTester) and histogram.
#include "support/TestSupport.h"

#include "views/inspector/InspectorPanel.h"
#include "views/inspector/TensorValuesModel.h"
#include "ir/ModelLoader.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/TensorStats.h"

#include <QAbstractItemModelTester>
#include <QTabWidget>
#include <QtTest>

using namespace portolan;

class TestInspector : public QObject {
    Q_OBJECT

private slots:
    void initializerShowsStatisticsValuesAndHistogram()
    {
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/cnn_bn/model.onnx");
        QVERIFY(loaded.hasValue());
        const ir::Model &model = *loaded->model;
        const ir::Value *weight = nullptr;
        for (auto v : model.graph(model.mainGraph()).initializers)
            if (model.value(v).shape().dims && model.value(v).shape().dims->size() == 4 && !weight)
                weight = &model.value(v);
        QVERIFY(weight);
        const auto tensor = runtime::tensorFromInitializer(weight->initializer);
        QVERIFY(tensor.hasValue());
        const auto stats = runtime::tensorStats(*tensor);

        views::InspectorPanel panel;
        panel.setModel(&model);
        panel.showValue(weight->id);
        const QString page = panel.pageText();
        QVERIFY(page.contains(QString::fromStdString(weight->name)));
        QVERIFY2(page.contains(QString::number(stats.max, 'g', 7)), qPrintable(page));
        QVERIFY(page.contains("initializer"));

        const auto *values = panel.valuesModel();
        const auto &shape = tensor->shape();
        QCOMPARE(values->columnCount(), static_cast<int>(shape.back()));
        QCOMPARE(values->rowCount(), static_cast<int>(tensor->size() / shape.back()));
        const int lastRow = values->rowCount() - 1, lastColumn = values->columnCount() - 1;
        QCOMPARE(values->index(lastRow, lastColumn).data(Qt::UserRole).toDouble(),
                 static_cast<double>(tensor->data<float>()[tensor->size() - 1]));
        QCOMPARE(values->headerData(lastRow, Qt::Vertical).toString(),
                 QString("[%1,%2,%3]").arg(shape[0] - 1).arg(shape[1] - 1).arg(shape[2] - 1));
        QCOMPARE(panel.histogramBins(), 64);
        const auto histogram = runtime::tensorHistogram(*tensor, stats, 64);
        std::int64_t counted = 0;
        for (auto c : histogram.counts)
            counted += c;
        QCOMPARE(counted, tensor->size());
        panel.resize(420, 560);
        QDir().mkpath("screenshots");
        QVERIFY(panel.grab().save("screenshots/inspector_initializer.png"));
        auto *tabs = panel.findChild<QTabWidget *>();
        tabs->setCurrentIndex(2);
        QVERIFY(panel.grab().save("screenshots/inspector_histogram.png"));
        tabs->setCurrentIndex(1);
        QVERIFY(panel.grab().save("screenshots/inspector_values.png"));

        panel.showNode(weight->uses.front().node); // a node has no data: the table empties
        QCOMPARE(values->rowCount(), 0);
        QCOMPARE(panel.histogramBins(), 0);
        QVERIFY(panel.pageText().contains("Operator documentation"));
    }

    void valuesModelPassesTheTester()
    {
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/transformer_opset17/model.onnx");
        QVERIFY(loaded.hasValue());
        const ir::Model &model = *loaded->model;
        views::TensorValuesModel values;
        QAbstractItemModelTester tester(&values, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (auto v : model.graph(model.mainGraph()).initializers) {
            auto tensor = runtime::tensorFromInitializer(model.value(v).initializer);
            QVERIFY(tensor.hasValue());
            values.setTensor(*tensor);
            QVERIFY(values.columnCount() <= views::TensorValuesModel::kMaxColumns);
            if (tensor->size() > 0 && tensor->dataType() != onnx::TensorProto::STRING)
                QVERIFY(values.rowCount() > 0);
        }
        values.setTensor(std::nullopt);
        QCOMPARE(values.rowCount(), 0);
    }

    void nodePageNamesItsSchemaVersion()
    {
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/control_flow/model.onnx");
        QVERIFY(loaded.hasValue());
        const ir::Model &model = *loaded->model;
        views::InspectorPanel panel;
        panel.setModel(&model);
        const ir::NodeId first = model.graph(model.mainGraph()).nodes.front();
        panel.showNode(first);
        QVERIFY(panel.pageText().startsWith(QString::fromStdString(model.node(first).opType)));
        QVERIFY(panel.pageText().contains("schema since version"));
    }
};

QTEST_MAIN(TestInspector)
#include "tst_Inspector.moc"
