// Op documentation resolves at the model's opset, the way the inspector shows it.
#include "analysis/OpSchemas.h"
#include "opset/OpVersions.h"
#include "runtime/cpu/CpuKernel.h"
#include "runtime/reference/KernelRegistry.h"

#include <QtTest>

#include <onnx/defs/schema.h>

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

    void laterOpsetsResolveToTheVersionInForce_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<int>("opset");
        QTest::addColumn<int>("since");
        QTest::newRow("ReduceMean 17") << "ReduceMean" << 17 << 13;
        QTest::newRow("ReduceMean 18") << "ReduceMean" << 18 << 18;
        QTest::newRow("ReduceMean 26") << "ReduceMean" << 26 << 18;
        QTest::newRow("Conv 21") << "Conv" << 21 << 11;
        QTest::newRow("Conv 22") << "Conv" << 22 << 22;
        QTest::newRow("Cast 25") << "Cast" << 25 << 25;
        QTest::newRow("Attention 22") << "Attention" << 22 << 0;
        QTest::newRow("Attention 24") << "Attention" << 24 << 24;
        QTest::newRow("Range 27") << "Range" << 27 << 27;
    }

    void laterOpsetsResolveToTheVersionInForce()
    {
        QFETCH(QString, op);
        QFETCH(int, opset);
        QFETCH(int, since);
        QCOMPARE(opset::standardSinceVersion(op.toStdString(), opset), since);
    }

    void anOlderSchemaOrKernelNeverServesAChangedVersion()
    {
        // ReduceMean-18 takes its axes as an input: opset 18 must find Portolan's ReduceMean-18 schema,
        // never ReduceMean-13's (the reference kernel reads the axes input from opset 18 on)
        const onnx::OpSchema *reduceMean13 = analysis::findSchema("ReduceMean", "", 17);
        const onnx::OpSchema *reduceMean18 = analysis::findSchema("ReduceMean", "", 18);
        QVERIFY(reduceMean13 && reduceMean18);
        QCOMPARE(reduceMean13->SinceVersion(), 13);
        QCOMPARE(reduceMean18->SinceVersion(), 18);
        QCOMPARE(int(reduceMean18->inputs().size()), 2);
        QVERIFY(runtime::findReferenceKernel("", "ReduceMean", 18) != nullptr);
        // Range-27 added stash_type, which the Range-11 kernel does not know: opset 27 gets its own
        QVERIFY(runtime::findReferenceKernel("", "Range", 26) != nullptr);
        QVERIFY(runtime::findReferenceKernel("", "Range", 27) != nullptr);
        QVERIFY(runtime::findReferenceKernel("", "Range", 27) != runtime::findReferenceKernel("", "Range", 26));
        QVERIFY(runtime::cpu::findCpuKernel("", "Split", 17) != nullptr);
        QVERIFY(runtime::cpu::findCpuKernel("", "Split", 18) == nullptr);
        // Conv-22 only added bfloat16: the opset-11 schema and kernels still compute it
        QVERIFY(analysis::findSchema("Conv", "", 22) != nullptr);
        QVERIFY(runtime::findReferenceKernel("", "Conv", 22) != nullptr);
        QVERIFY(runtime::cpu::findCpuKernel("", "Conv", 22) != nullptr);
        QCOMPARE(opset::describeOpVersion("", "ReduceMean", 20), std::string("ReduceMean-18 (opset 20)"));
        QCOMPARE(opset::describeOpVersion("com.microsoft", "Attention", 1), std::string("com.microsoft::Attention (opset 1)"));
    }

    void semanticChangesAreTheOnesThatMatter()
    {
        QCOMPARE(opset::semanticChangeAfter("Split", 13, 17), 0);
        QCOMPARE(opset::semanticChangeAfter("Split", 13, 18), 18);
        QCOMPARE(opset::semanticChangeAfter("Pad", 18, 25), 19); // 21, 23, 24, 25 only added types
        QCOMPARE(opset::semanticChangeAfter("Relu", 14, 27), 0);
        QVERIFY(opset::isKnownStandardOp("RotaryEmbedding"));
        QVERIFY(!opset::isKnownStandardOp("Mystery"));
    }
};

QTEST_GUILESS_MAIN(TestOpSchemas)
#include "tst_OpSchemas.moc"
