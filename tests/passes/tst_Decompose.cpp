// decompose: each op it knows becomes standard primitives with the same numbers, the `ops` option
// selects, unknown names are refused, near-misses say why, and decompose → re-fuse round-trips.
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "passes/Pipeline.h"

#include <QTest>

using namespace portolan;

class tst_Decompose : public QObject {
    Q_OBJECT
private slots:
    void opsBecomePrimitives_data();
    void opsBecomePrimitives();
    void optionSelectsOps();
    void unknownOpIsRefused();
    void nearMisses_data();
    void nearMisses();
    void fixtureRoundTrips();
    void rmsNormRoundTrips();
};

static std::unique_ptr<ir::Model> load(const std::string &text) { return test::modelFromText(text); }

static const char *kWeights = "float[8] gamma = {1.0, 0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.75}, "
                              "float[8] beta = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, "
                              "float[8] bias = {0.0, -0.1, 0.2, -0.3, 0.4, -0.5, 0.6, -0.7}";

void tst_Decompose::opsBecomePrimitives_data()
{
    QTest::addColumn<int>("opset");
    QTest::addColumn<QString>("signature");
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("gone");
    const QString x = "(float[2,3,8] x) => (float[2,3,8] y)";
    QTest::newRow("LayerNormalization") << 17 << x << "y = LayerNormalization <axis = -1, epsilon = 1e-5> (x, gamma, beta)"
                                        << "LayerNormalization";
    QTest::newRow("LayerNormalization over two axes")
        << 17 << x << "y = LayerNormalization <axis = 1> (x, gamma24, beta24)" << "LayerNormalization";
    QTest::newRow("ai.portolan LayerNormalization")
        << 14 << x << "y = ai.portolan.LayerNormalization <epsilon = 1e-5> (x, gamma)" << "ai.portolan::LayerNormalization";
    QTest::newRow("Gelu") << 14 << x << "y = ai.portolan.Gelu (x)" << "ai.portolan::Gelu";
    QTest::newRow("Gelu tanh") << 14 << x << "y = ai.portolan.Gelu <approximate = \"tanh\"> (x)" << "ai.portolan::Gelu";
    QTest::newRow("HardSwish") << 14 << x << "y = HardSwish (x)" << "HardSwish";
    QTest::newRow("RMSNormalization") << 14 << x << "y = ai.portolan.RMSNormalization <epsilon = 1e-6> (x, gamma)"
                                      << "ai.portolan::RMSNormalization";
    QTest::newRow("SkipLayerNormalization, sum read")
        << 14 << "(float[2,3,8] x, float[2,3,8] skip) => (float[2,3,8] y, float[2,3,8] sum)"
        << "y, sum = ai.portolan.SkipLayerNormalization <epsilon = 1e-5> (x, skip, gamma, beta, bias)"
        << "ai.portolan::SkipLayerNormalization";
    QTest::newRow("Attention, mask, causal")
        << 14 << "(float[2,2,4,8] q, float[2,2,4,8] k, float[2,2,4,8] v, float[2,1,1,4] mask) => (float[2,2,4,8] y)"
        << "y = ai.portolan.Attention <scale = 0.35355339, causal = 1> (q, k, v, mask)" << "ai.portolan::Attention";
    QTest::newRow("Einsum bij,bjk->bik") << 14 << "(float[2,3,8] x, float[2,8,5] w) => (float[2,3,5] y)"
                                         << "y = Einsum <equation = \"bij,bjk->bik\"> (x, w)" << "Einsum";
    QTest::newRow("Einsum bhqd,bhkd->bhqk") << 14 << "(float[2,2,3,8] x, float[2,2,5,8] w) => (float[2,2,3,5] y)"
                                           << "y = Einsum <equation = \"bhqd,bhkd->bhqk\"> (x, w)" << "Einsum";
    QTest::newRow("Einsum implicit, permuted") << 14 << "(float[3,8] x, float[5,3] w) => (float[8,5] y)"
                                               << "y = Einsum <equation = \"ij,ki\"> (x, w)" << "Einsum";
    QTest::newRow("Einsum transpose") << 14 << "(float[2,3,8] x) => (float[8,2,3] y)"
                                      << "y = Einsum <equation = \"abc -> cab\"> (x)" << "Einsum";
    QTest::newRow("FusedConv, residual, Relu")
        << 14 << "(float[1,2,5,5] x, float[1,3,5,5] z) => (float[1,3,5,5] y)"
        << "y = ai.portolan.FusedConv <pads = [1, 1, 1, 1], activation = \"Relu\"> (x, cw, cb, z)" << "ai.portolan::FusedConv";
    QTest::newRow("FusedGemm, LeakyRelu") << 14 << "(float[4,6] a) => (float[4,5] y)"
                                          << "y = ai.portolan.FusedGemm <transB = 1, activation = \"LeakyRelu\", "
                                             "activation_params = [0.1]> (a, gw)"
                                          << "ai.portolan::FusedGemm";
    QTest::newRow("FusedMatMul, bias, GeluTanh, Clip")
        << 14 << "(float[2,4,6] a) => (float[2,4,5] y)"
        << "t = ai.portolan.FusedMatMul <activation = \"GeluTanh\"> (a, mw, mb)\n"
           " y = ai.portolan.FusedMatMul <activation = \"Clip\", activation_params = [-0.5, 0.5]> (t, sq, mb)"
        << "ai.portolan::FusedMatMul";
}

void tst_Decompose::opsBecomePrimitives()
{
    QFETCH(int, opset);
    QFETCH(QString, signature);
    QFETCH(QString, body);
    QFETCH(QString, gone);
    const std::string text =
        "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + ", \"ai.portolan\" : 1]>\ng " +
        signature.toStdString() + "\n<" + kWeights +
        ", float[3,8] gamma24 = {1.0, 0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.75, 1.0, 0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.75, 1.0, "
        "0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.75}, float[3,8] beta24 = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.1, 0.2, 0.3, "
        "0.4, 0.5, 0.6, 0.7, 0.8, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, float[3,2,3,3] cw = {0.1, -0.2, 0.3, 0.4, -0.5, "
        "0.6, 0.7, 0.8, -0.9, 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, "
        "-0.1, 0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8, -0.9, 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 0.1, 0.2, -0.3, 0.4, "
        "0.5, -0.6, 0.7, 0.8, 0.9}, float[3] cb = {0.1, -0.2, 0.3}, float[5,6] gw = {0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, "
        "-0.8, 0.9, 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 0.1, 0.2, "
        "0.3}, float[6,5] mw = {0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, "
        "0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 0.1, 0.2, 0.3}, float[5] mb = {0.1, -0.2, 0.3, -0.4, 0.5}, "
        "float[5,5] sq = {0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7, -0.8, 0.9, 0.1, "
        "0.2, 0.3, -0.4, 0.5, 0.6, 0.7}>\n{\n" +
        body.toStdString() + "\n}\n";
    auto model = load(text);
    QVERIFY(model);
    auto result = test::runChecked(*model, "decompose,eliminate-dead");
    QVERIFY(result);
    QVERIFY(result->passes.at(0).changed);
    QVERIFY(test::numericsHeld(*result));
    for (const auto &[op, count] : test::opHistogram(*result->model))
        QVERIFY2(op.rfind("ai.portolan::", 0) != 0 && op != gone.toStdString(), op.c_str());
    // Every primitive stands for the node it came from.
    const ir::Model &out = *result->model;
    for (const ir::NodeId n : out.graph(out.mainGraph()).nodes)
        if (out.node(n).alive)
            QCOMPARE(result->provenance.originsOf(n).size(), std::size_t(1));
}

void tst_Decompose::optionSelectsOps()
{
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[2,8] x, float[8] gamma) => (float[2,8] y)
{
    n = LayerNormalization (x, gamma)
    h = HardSwish (n)
    y = ai.portolan.Gelu (h)
}
)");
    QVERIFY(model);
    auto result = test::runChecked(*model, "decompose{ops=Gelu,HardSwish},eliminate-dead");
    QVERIFY(result);
    const auto ops = test::opHistogram(*result->model);
    QCOMPARE(ops.at("LayerNormalization"), 1);
    QVERIFY(!ops.contains("HardSwish") && !ops.contains("ai.portolan::Gelu"));
    QCOMPARE(ops.at("Erf"), 1);
    QCOMPARE(result->passes.at(0).statistics.at("decomposed-Gelu"), std::int64_t(1));
    QVERIFY(test::numericsHeld(*result));
}

void tst_Decompose::unknownOpIsRefused()
{
    auto model = load("<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[2] x) => (float[2] y)\n{\n y = Relu(x)\n}\n");
    QVERIFY(model);
    auto pipeline = passes::parsePipeline("decompose{ops=Gelu,Softplus}");
    QVERIFY(pipeline);
    auto result = passes::runPipeline(*model, *pipeline, {});
    QVERIFY(!result);
    const QString message = QString::fromStdString(result.error().format());
    QVERIFY2(message.contains("unknown op type 'Softplus'") && message.contains("LayerNormalization") &&
                 message.contains("FusedConv"),
             qPrintable(message));
}

void tst_Decompose::nearMisses_data()
{
    QTest::addColumn<QString>("signature");
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("reason");
    QTest::newRow("Einsum diagonal") << "(float[4,4] x) => (float[4] y)" << "y = Einsum <equation = \"ii->i\"> (x)"
                                     << "repeats an index within an operand";
    QTest::newRow("Einsum sum") << "(float[4,3] x) => (float[4] y)" << "y = Einsum <equation = \"ij->i\"> (x)"
                                << "sums over an index";
    QTest::newRow("Einsum outer product") << "(float[4] x, float[3] w) => (float[4,3] y)"
                                          << "y = Einsum <equation = \"i,j->ij\"> (x, w)" << "is not one matrix product";
    QTest::newRow("causal with a dynamic length")
        << "(float[1,2,s,8] q, float[1,2,s,8] k, float[1,2,s,8] v) => (float[1,2,s,8] y)"
        << "y = ai.portolan.Attention <causal = 1> (q, k, v)" << "the sequence lengths of Q and K are not static";
    QTest::newRow("LayerNormalization statistics read")
        << "(float[2,8] x, float[8] gamma) => (float[2,8] y, float[2,1] mean)" << "y, mean = LayerNormalization (x, gamma)"
        << "output 1 is read";
}

void tst_Decompose::nearMisses()
{
    QFETCH(QString, signature);
    QFETCH(QString, body);
    QFETCH(QString, reason);
    auto model = load("<ir_version: 8, opset_import: [\"\" : 17, \"ai.portolan\" : 1]>\ng " + signature.toStdString() +
                      "\n{\n" + body.toStdString() + "\n}\n");
    QVERIFY(model);
    auto result = test::runChecked(*model, "decompose");
    QVERIFY(result);
    QVERIFY(!result->passes.at(0).changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "decompose"));
    QVERIFY2(reasons.contains(reason), qPrintable(reasons));
}

void tst_Decompose::fixtureRoundTrips()
{
    // Fuse, decompose everything back to primitives, fuse again: the numbers hold at every step and
    // the second fusion finds the same ops as the first.
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/transformer_opset14/model.onnx");
    QVERIFY(loaded);
    const std::string fuse = "fuse-gelu,fuse-layer-norm,fuse-attention,fuse-skip-layer-norm,eliminate-dead";
    auto fused = test::runChecked(*loaded->model, "infer-shapes,fold-constants,eliminate-dead," + fuse);
    QVERIFY(fused);
    auto round = test::runChecked(*fused->model, "decompose,eliminate-dead,infer-shapes," + fuse);
    QVERIFY(round);
    QVERIFY(test::numericsHeld(*fused));
    QVERIFY(test::numericsHeld(*round));
    QVERIFY(round->passes.at(0).changed);
    auto portolanOps = [](const ir::Model &m) {
        std::map<std::string, int> out;
        for (const auto &[op, count] : test::opHistogram(m))
            if (op.rfind("ai.portolan::", 0) == 0)
                out[op] = count;
        return out;
    };
    QVERIFY(!portolanOps(*fused->model).empty());
    QCOMPARE(portolanOps(*round->model), portolanOps(*fused->model));
}

void tst_Decompose::rmsNormRoundTrips()
{
    auto model = load(std::string("<ir_version: 8, opset_import: [\"\" : 14, \"ai.portolan\" : 1]>\n"
                                  "g (float[2,3,8] x) => (float[2,3,8] y)\n<") +
                      kWeights + ">\n{\n y = ai.portolan.RMSNormalization <epsilon = 1e-6> (x, gamma)\n}\n");
    QVERIFY(model);
    auto result = test::runChecked(*model, "decompose,eliminate-dead,fuse-rms-norm,eliminate-dead");
    QVERIFY(result);
    QVERIFY(result->passes.at(0).changed && result->passes.at(2).changed);
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"ai.portolan::RMSNormalization", 1}}));
    QVERIFY(test::numericsHeld(*result));
}

QTEST_GUILESS_MAIN(tst_Decompose)
#include "tst_Decompose.moc"
