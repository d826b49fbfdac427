// Op documentation resolves at the model's opset, the way the inspector shows it.
#include "analysis/OpSchemas.h"

#include <QtTest>

using namespace portolan;

class TestOpSchemas : public QObject {
    Q_OBJECT

private slots:
    void convAtOpset13()
    {
        const auto doc = analysis::opDoc("Conv", "", 13);
        QVERIFY(doc.has_value());
        QCOMPARE(doc->sinceVersion, 11);
        QVERIFY(!doc->doc.empty());
        QCOMPARE(doc->inputs.size(), std::size_t(3));
        QCOMPARE(doc->inputs[0].name, std::string("X"));
        QCOMPARE(doc->inputs[2].option, std::string("optional"));
        const bool hasKernelShape = std::any_of(doc->attributes.begin(), doc->attributes.end(),
                                                [](const auto &a) { return a.name == "kernel_shape" && a.type == "INTS"; });
        QVERIFY(hasKernelShape);
        QVERIFY(!doc->typeConstraints.empty());
    }

    void versionFollowsTheOpset_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("opset");
        QTest::addColumn<int>("since");
        QTest::newRow("Softmax 11") << "Softmax" << 11 << 11;
        QTest::newRow("Softmax 13") << "Softmax" << 13 << 13;
        QTest::newRow("Reshape 5") << "Reshape" << 5 << 5;
        QTest::newRow("Reshape 17") << "Reshape" << 17 << 14;
        QTest::newRow("LayerNormalization 17") << "LayerNormalization" << 17 << 17;
    }

    void versionFollowsTheOpset()
    {
        QFETCH(QString, op);
        QFETCH(int, opset);
        QFETCH(int, since);
        const auto doc = analysis::opDoc(op.toStdString(), "ai.onnx", opset);
        QVERIFY(doc.has_value());
        QCOMPARE(doc->sinceVersion, since);
    }

    void unknownOpsHaveNoDoc()
    {
        QVERIFY(!analysis::opDoc("LayerNormalization", "", 16).has_value()); // born at 17
        QVERIFY(!analysis::opDoc("Mystery", "", 17).has_value());
        QVERIFY(!analysis::opDoc("Conv", "com.vendor", 1).has_value());
        QVERIFY(analysis::isOnnxDomain("ai.onnx.ml"));
        QVERIFY(!analysis::isOnnxDomain("com.microsoft"));
    }
};

QTEST_GUILESS_MAIN(TestOpSchemas)
#include "tst_OpSchemas.moc"
