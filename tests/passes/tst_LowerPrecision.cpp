// lower-precision: fp16 and bf16 lowering with Casts at the float interface and around kept nodes,
// and int8 weight-only quantization. Its numeric effect is bounded loosely, not at 1e-5.
#include "LinearFusionModels.h"

#include "passes/Match.h"

using namespace portolan;
using namespace portolan::test::linear;

class tst_LowerPrecision : public QObject {
    Q_OBJECT
private slots:
    void lowerPrecisionToHalf_data();
    void lowerPrecisionToHalf();
    void lowerPrecisionInt8Weights();
    void lowerPrecisionBadOptions();
};

/// The pass's numeric effect is below `bound` (absolute) but not zero: the precision did change.
static bool roughlyHeld(const passes::CompileResult &result, double bound)
{
    const passes::NumericCheck &n = result.passes.at(0).numerics;
    if (!n.ran || n.comparedOutputs == 0 || n.maxAbsError >= bound || n.maxAbsError == 0) {
        qWarning("numeric check: ran %d, %zu outputs, max abs error %g (bound %g) %s", n.ran, n.comparedOutputs,
                 n.maxAbsError, bound, n.skippedReason.c_str());
        return false;
    }
    return true;
}

void tst_LowerPrecision::lowerPrecisionToHalf_data()
{
    QTest::addColumn<QString>("to");
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("bound");
    QTest::newRow("fp16") << "fp16" << int(onnx::TensorProto::FLOAT16) << 2e-2;
    QTest::newRow("bf16") << "bf16" << int(onnx::TensorProto::BFLOAT16) << 1.5e-1;
}

void tst_LowerPrecision::lowerPrecisionToHalf()
{
    QFETCH(QString, to);
    QFETCH(int, type);
    QFETCH(double, bound);
    auto model = load(convModel("float[1,3,5,5] y", "", "", "    r = Relu(c)\n    s = Sigmoid(r)\n    y = Softmax(s)\n"));
    QVERIFY(model);
    auto result = test::runChecked(*model, "lower-precision{to=" + to.toStdString() + " keep-fp32=^Sig}");
    QVERIFY(result);
    QVERIFY(roughlyHeld(*result, bound));
    const ir::Model &out = *result->model;
    const ir::Graph &main = out.graph(out.mainGraph());
    QCOMPARE(passes::elementTypeOf(out, main.inputs[0]), int(onnx::TensorProto::FLOAT)); // the interface stays float
    QCOMPARE(passes::elementTypeOf(out, main.outputs[0]), int(onnx::TensorProto::FLOAT));
    QCOMPARE(passes::elementTypeOf(out, findNode(out, "Conv")->inputs[1]), type);
    QCOMPARE(passes::elementTypeOf(out, findNode(out, "Relu")->outputs[0]), type);
    // x → Cast → Conv → Relu → Cast → Sigmoid (kept) → Softmax (no half kernel)
    QCOMPARE(test::opHistogram(out), (Ops{{"Cast", 2}, {"Conv", 1}, {"Relu", 1}, {"Sigmoid", 1}, {"Softmax", 1}}));
    const std::string reasons = test::failureReasons(*result, "lower-precision");
    QVERIFY2(reasons.find("kept in fp32: matches keep-fp32") != std::string::npos, reasons.c_str());
    QVERIFY2(reasons.find("kept in fp32: Softmax has no half-precision reference kernel") != std::string::npos, reasons.c_str());
}

void tst_LowerPrecision::lowerPrecisionInt8Weights()
{
    auto model = load("<ir_version: 8, opset_import: [\"\" : 17]>\n"
                      "g (float[1,2,5,5] x) => (float[1,4] y)\n"
                      "<float[3,2,3,3] w = " + values(54, -1, 1, 1) + ", float[4,3] fw = " + values(12, -1, 1, 2) +
                      ", int64[2] shape = {1, 3}>\n"
                      "{\n    c = Conv (x, w)\n    p = GlobalAveragePool(c)\n    f = Reshape(p, shape)\n"
                      "    y = Gemm <transB = 1> (f, fw)\n}\n");
    QVERIFY(model);
    auto result = test::runChecked(*model, "lower-precision{to=int8}");
    QVERIFY(result);
    QVERIFY(roughlyHeld(*result, 5e-2));
    const ir::Model &out = *result->model;
    QCOMPARE(test::opHistogram(out).at("DequantizeLinear"), 2);
    QCOMPARE(result->passes[0].statistics.at("quantized-weights"), std::int64_t(2));
    const ir::Node *dq = passes::producerOf(out, findNode(out, "Conv")->inputs[1]);
    QVERIFY(dq && dq->opType == "DequantizeLinear");
    QCOMPARE(passes::elementTypeOf(out, dq->inputs[0]), int(onnx::TensorProto::INT8));
    QCOMPARE(passes::attrInt(*dq, "axis", -1), std::int64_t(0));
}

void tst_LowerPrecision::lowerPrecisionBadOptions()
{
    auto model = load(convModel("float[1,3,5,5] y", "", "", "    y = Relu(c)\n"));
    QVERIFY(model);
    for (const char *pipeline : {"lower-precision{to=int4}", "lower-precision{keep-fp32=(}"}) {
        auto result = passes::runPipeline(*model, *passes::parsePipeline(pipeline), {});
        QVERIFY2(!result, pipeline);
        QVERIFY2(result.error().format().find("lower-precision") != std::string::npos, result.error().format().c_str());
    }
}

QTEST_GUILESS_MAIN(tst_LowerPrecision)
#include "tst_LowerPrecision.moc"
