// ScopeTreeModel under QAbstractItemModelTester, on real exported models and a 100k-node graph.
#include "support/TestSupport.h"

#include "views/common/ScopeTreeModel.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace portolan;

class TestScopeTreeModel : public QObject {
    Q_OBJECT

private slots:
    void modelTester_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const std::string &n : test::fixtureNames())
            QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }

    void modelTester()
    {
        QFETCH(QString, fixture);
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + fixture.toStdString() + "/model.onnx");
        QVERIFY(loaded.hasValue());
        views::ScopeTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setGraph(loaded->model.get(), loaded->model->mainGraph());

        // Walk the whole tree: every node of the graph appears exactly once.
        std::size_t nodes = 0;
        std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                QCOMPARE(model.parent(i), parent);
                if (model.data(i, views::ScopeTreeModel::IsGroupRole).toBool())
                    walk(i);
                else
                    ++nodes;
            }
        };
        walk({});
        QCOMPARE(nodes, loaded->model->graph(loaded->model->mainGraph()).nodes.size());
        model.setGraph(nullptr, {});
        QCOMPARE(model.rowCount(), 0);
    }

    void groupsShowCountsAndNodesShowOps()
    {
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/cnn_bn/model.onnx");
        QVERIFY(loaded.hasValue());
        views::ScopeTreeModel model;
        model.setGraph(loaded->model.get(), loaded->model->mainGraph());
        QModelIndex layer1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.data(model.index(r, 0)).toString() == "layer1")
                layer1 = model.index(r, 0);
        QVERIFY(layer1.isValid());
        QCOMPARE(model.data(layer1, views::ScopeTreeModel::GroupPathRole).toString(), QString("/layer1"));
        QVERIFY(model.data(model.index(layer1.row(), 1)).toString().contains("node"));
        QModelIndex conv = model.index(0, 0, layer1);
        QVERIFY(conv.isValid());
        QVERIFY(model.rowCount(conv) > 0); // "conv" sub-scope
        const QModelIndex convNode = model.index(0, 1, conv);
        QCOMPARE(model.data(convNode).toString(), QString("Conv"));
    }

    void hundredThousandNodes()
    {
        const std::string bytes = test::canonicalBytes(test::syntheticModel(1000, 100));
        auto loaded = ir::loadModelBytes(std::as_bytes(std::span(bytes.data(), bytes.size())), "synthetic", {});
        QVERIFY(loaded.hasValue());
        views::ScopeTreeModel model;
        model.setGraph(loaded->model.get(), loaded->model->mainGraph());
        QCOMPARE(model.rowCount(), 1); // /encoder
        const QModelIndex encoder = model.index(0, 0);
        QCOMPARE(model.rowCount(encoder), 1000);
        const QModelIndex last = model.index(999, 0, encoder);
        QCOMPARE(model.data(last).toString(), QString("layer.999"));
        QCOMPARE(model.parent(last), encoder);
    }
};

QTEST_MAIN(TestScopeTreeModel)
#include "tst_ScopeTreeModel.moc"
