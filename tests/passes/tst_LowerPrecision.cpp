// lower-precision: fp16 and bf16 lowering with Casts at the float interface and around kept nodes,
// and int8 weight-only quantization. Its numeric effect is bounded loosely, not at 1e-5. Each node
// is one rewrite, so any prefix of them is a valid model and a numeric failure names its node.
#include "LinearFusionModels.h"

#include "analysis/ModelChecker.h"
#include "passes/Match.h"
#include "passes/NumericCheck.h"
#include "passes/Pass.h"
#include "passes/Verifier.h"

using namespace portolan;
using namespace portolan::test::linear;

class tst_LowerPrecision : public QObject {
    Q_OBJECT
private slots:
    void lowerPrecisionToHalf_data();
    void lowerPrecisionToHalf();
    void lowerPrecisionInt8Weights();
    void lowerPrecisionBadOptions();
    void lowerPrecisionIsValidAfterEveryPrefix_data();
    void lowerPrecisionIsValidAfterEveryPrefix();
    void lowerPrecisionNumericFailureNamesTheNode();
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

/// A model from ONNX text whose nodes get `names` in file order (the text syntax cannot name nodes).
static std::unique_ptr<ir::Model> withNodeNames(const std::string &text, const std::vector<std::string> &names)
{
    onnx::ModelProto proto = test::parseModelText(text.c_str());
    for (int i = 0; i < proto.graph().node_size() && i < static_cast<int>(names.size()); ++i)
        proto.mutable_graph()->mutable_node(i)->set_name(names[static_cast<std::size_t>(i)]);
    auto loaded = ir::loadModelProto(std::move(proto), "text-model", {});
    if (!loaded) {
        qWarning("%s", loaded.error().format().c_str());
        return nullptr;
    }
    return std::move(loaded->model);
}

/// Runs lower-precision with `options` on `model`, allowing `budget` rewrites; returns how many it recorded.
static std::size_t lowerWithBudget(ir::Model &model, const std::map<std::string, std::string> &options,
                                   std::size_t budget)
{
    passes::Provenance provenance(static_cast<std::uint32_t>(model.nodeCapacity()),
                                  static_cast<std::uint32_t>(model.valueCapacity()));
    passes::Rewriter rewriter(model, provenance, "lower-precision");
    rewriter.setRewriteBudget(budget);
    const passes::PassOptions passOptions(options);
    passes::PassContext context{model, rewriter, passOptions};
    const support::Status status = passes::findPass("lower-precision")->create()->run(context);
    if (!status)
        qWarning("%s", status.error().format().c_str());
    rewriter.finish();
    return rewriter.takeRecords().size();
}

void tst_LowerPrecision::lowerPrecisionIsValidAfterEveryPrefix_data()
{
    QTest::addColumn<QString>("to");
    QTest::newRow("fp16") << "fp16";
    QTest::newRow("int8") << "int8";
}

void tst_LowerPrecision::lowerPrecisionIsValidAfterEveryPrefix()
{
    // Bisection replays the pass with a rewrite budget: every prefix must verify, pass the ONNX
    // checker and run. The diamond (c read by lowered, kept and int-typed readers; r both a graph
    // output and read) exercises the Casts back to float that later rewrites remove again.
    QFETCH(QString, to);
    const std::map<std::string, std::string> options{{"to", to.toStdString()}, {"keep-fp32", "^Sig"}};
    auto model = load(convModel("float[1,3,5,5] y, float[1,3,5,5] r", "", "float[3,3] fw = " + values(9, -1, 1, 3),
                                "    r = Relu(c)\n    s = Sigmoid(c)\n    a = Add(r, s)\n    sh = Shape(c)\n"
                                "    a2 = Reshape(a, sh)\n    t = Transpose <perm = [0, 2, 3, 1]> (a2)\n"
                                "    m = MatMul(t, fw)\n    u = Transpose <perm = [0, 3, 1, 2]> (m)\n"
                                "    y = Mul(u, c)\n"));
    QVERIFY(model);
    const auto feeds = passes::seededFeeds(*model, 1, {}, 3);
    QVERIFY(feeds);
    ir::Model full = *model;
    const std::size_t rewrites = lowerWithBudget(full, options, static_cast<std::size_t>(-1));
    QVERIFY(rewrites >= 2);
    for (std::size_t budget = 0; budget <= rewrites; ++budget) {
        ir::Model trial = *model;
        QCOMPARE(lowerWithBudget(trial, options, budget), budget);
        const std::string prefix = std::to_string(budget) + " of " + std::to_string(rewrites) + " rewrites";
        for (const auto &d : passes::verifyInvariants(trial))
            QFAIL((prefix + ": " + d.format()).c_str());
        for (const auto &d : analysis::checkModel(trial))
            QVERIFY2(d.severity != support::Severity::Error, (prefix + ": " + d.format()).c_str());
        auto outputs = passes::referenceOutputs(trial, *feeds);
        QVERIFY2(outputs, (prefix + ": " + (outputs ? "" : outputs.error().format())).c_str());
    }
    if (to == "fp16") // x in; back to float for r, for the kept Sigmoid and for y; Sigmoid's output in
        QCOMPARE(test::opHistogram(full).at("Cast"), 5);
}

void tst_LowerPrecision::lowerPrecisionNumericFailureNamesTheNode()
{
    // b is in [1, 2], so each element of b·w is at least 4·30000 > 65504: only the MatMul overflows
    // fp16. The other nodes' rounding stays inside rtol 1e-2, so the bisection must name the MatMul.
    auto model = withNodeNames("<ir_version: 8, opset_import: [\"\" : 17]>\n"
                               "g (float[2,4] x) => (float[2,4] y)\n"
                               "<float[1] one = {1.0}, float[4,4] w = {30000, 30000, 30000, 30000, 30000, 30000, "
                               "30000, 30000, 30000, 30000, 30000, 30000, 30000, 30000, 30000, 30000}, "
                               "float[1] s = {0.0001}>\n"
                               "{\n    a = Abs(x)\n    b = Add(a, one)\n    m = MatMul(b, w)\n    y = Mul(m, s)\n}\n",
                               {"magnitude", "shift", "big_matmul", "scale_down"});
    QVERIFY(model);
    passes::PassManagerOptions options;
    options.checkNumerics = true;
    options.atol = 1e-3;
    options.rtol = 1e-2;
    auto result = passes::runPipeline(*model, *passes::parsePipeline("lower-precision{to=fp16}"), options);
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    const passes::PassResult &pass = result->passes.at(0);
    QCOMPARE(pass.rewrites.size(), std::size_t(4)); // one per node
    QVERIFY(pass.numerics.ran);
    QVERIFY(!pass.numerics.withinTolerance);
    const QString culprit = QString::fromStdString(pass.numerics.culpritRewrite);
    QVERIFY2(culprit.startsWith("lower-fp16: 'big_matmul' (MatMul) at fp16"), qPrintable(culprit));
    QVERIFY2(culprit.endsWith("(rewrite 3 of 4)"), qPrintable(culprit));
}

QTEST_GUILESS_MAIN(tst_LowerPrecision)
#include "tst_LowerPrecision.moc"
