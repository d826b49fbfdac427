// Workbench::compare, the facade the compare panel runs: reference against the compiled executor on
// a real exported transformer, within tolerance at fp32, diverging at fp16 under a tight tolerance.
#include "support/TestSupport.h"

#include "session/Workbench.h"

#include <QtTest>

using namespace portolan;

class TestWorkbenchCompare : public QObject {
    Q_OBJECT

    session::Workbench m_workbench;

private slots:
    void initTestCase() { QVERIFY(m_workbench.open(test::fixturesDir() + "/transformer_opset17/model.onnx")); }

    void fp32PassesEveryOutput()
    {
        session::ComparisonRequest request;
        request.inputsDir = test::fixturesDir() + "/transformer_opset17/test_data_set_0";
        auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        const auto &o = **outcome;
        QVERIFY(o.result.outputsPassed());
        QVERIFY(o.result.tensors.size() > 10); // intermediates too, not only the outputs
        QVERIFY(o.compiled->model->liveNodeCount() < m_workbench.model().liveNodeCount()); // -O2 fused
        QVERIFY(o.kernelChecks.empty());
        QCOMPARE(o.result.labelB, std::string("cpu:fp32"));
    }

    void fp16UnderATightToleranceDiverges()
    {
        session::ComparisonRequest request;
        request.precision = "fp16";
        request.seed = 3;
        request.shapes["input"] = {1, 5, 32};
        request.tolerance = compare::Tolerance{1e-6, 1e-6};
        auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        const auto &o = **outcome;
        QVERIFY(!o.result.outputsPassed());
        QVERIFY(o.firstDivergence);
        QVERIFY(!o.firstDivergence->metrics.passed);
        QVERIFY(!o.failingSuspects.empty());
        QCOMPARE(o.kernelChecks.size(), o.failingSuspects.size());
    }

    void badRequestsAreErrors()
    {
        session::ComparisonRequest request;
        request.pipeline = "fuse-everything";
        auto outcome = m_workbench.compare(request);
        QVERIFY(!outcome.hasValue());
        QVERIFY(outcome.error().format().find("fuse-everything") != std::string::npos);
        request = {};
        request.precision = "int8";
        QVERIFY(!m_workbench.compare(request).hasValue());
        request = {}; // the input has a symbolic dim: random inputs need its extent
        const auto missing = m_workbench.compare(request);
        QVERIFY(!missing.hasValue());
        QVERIFY2(missing.error().format().find("input") != std::string::npos, missing.error().format().c_str());
    }
};

QTEST_MAIN(TestWorkbenchCompare)
#include "tst_WorkbenchCompare.moc"
