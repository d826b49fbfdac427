// fuse-gelu and fuse-rms-norm, and the ai.portolan Gelu and RMSNormalization ops they create:
// the exported variants, near-misses with their reasons, bad inputs, the fixture encoders' GELUs and
// the GPT-2 benchmark's. Then decompose on these ops: back to primitives and fused again, and the
// FusedConv fuse-conv-activation makes turned back into Conv + Relu.
#include "LinearFusionModels.h"
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "analysis/ShapeInference.h"
#include "ir/ModelLoader.h"
#include "passes/Pipeline.h"

#include <onnx/defs/schema.h>

#include <QTest>

using namespace portolan;

class tst_ActivationFusions : public QObject {
    Q_OBJECT
private slots:
    void geluFuses_data();
    void geluFuses();
    void geluNearMisses_data();
    void geluNearMisses();
    void geluRefusesABadAttribute();
    void geluAtOpset20();
    void standardGeluDecomposes();
    void fixtureGelusFuse_data();
    void fixtureGelusFuse();
    void rmsNormFuses_data();
    void rmsNormFuses();
    void rmsNormNearMisses_data();
    void rmsNormNearMisses();
    void rmsNormLeavesLayerNormAlone();
    void gptGeluFuses();
    void decomposedActivationsFuseAgain_data();
    void decomposedActivationsFuseAgain();
    void decomposeNearMisses_data();
    void decomposeNearMisses();
    void decomposeRefusesAMisspelledOp();
    void fusedConvDecomposes();
};

static std::unique_ptr<ir::Model> load(const std::string &text) { return test::modelFromText(text); }

// A graph over x [2,3,8] at `opset` whose body is `body` (ending in y).
static std::string graph(const std::string &body, const std::string &initializers = {}, const std::string &inputs = {},
                         int opset = 14)
{
    return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\ng (float[2,3,8] x" + inputs +
           ") => (float[2,3,8] y)\n" +
           (initializers.empty() ? std::string() : "<" + initializers + ">\n") + "{\n" + body + "\n}\n";
}

// ---- fuse-gelu ----

static const char *kGeluConstants = "float r2 = {1.4142135}, float ir2 = {0.70710678}, float one = {1.0}, "
                                    "float half = {0.5}, float two = {2.0}, float three = {3.0}, "
                                    "float c = {0.044715}, float k = {0.7978846}";

void tst_ActivationFusions::geluFuses_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("approximate");
    QTest::newRow("erf, Div √2, (x·a)·½ (PyTorch)")
        << "t = Div(x, r2)\n e = Erf(t)\n a = Add(e, one)\n m = Mul(x, a)\n y = Mul(m, half)" << "none";
    QTest::newRow("erf, Mul 1/√2, (x·½)·a")
        << "t = Mul(ir2, x)\n e = Erf(t)\n a = Add(one, e)\n h = Mul(x, half)\n y = Mul(h, a)" << "none";
    QTest::newRow("erf, x·(a/2)")
        << "t = Div(x, r2)\n e = Erf(t)\n a = Add(e, one)\n h = Div(a, two)\n y = Mul(x, h)" << "none";
    QTest::newRow("erf, (a·½)·x")
        << "t = Div(x, r2)\n e = Erf(t)\n a = Add(one, e)\n h = Mul(half, a)\n y = Mul(h, x)" << "none";
    QTest::newRow("erf, (a·x)·½")
        << "t = Mul(x, ir2)\n e = Erf(t)\n a = Add(e, one)\n m = Mul(a, x)\n y = Mul(half, m)" << "none";
    QTest::newRow("tanh, Pow")
        << "p = Pow(x, three)\n q = Mul(p, c)\n s = Add(x, q)\n u = Mul(s, k)\n th = Tanh(u)\n a = Add(th, one)\n"
           " m = Mul(x, a)\n y = Mul(m, half)"
        << "tanh";
    QTest::newRow("tanh, x·(x·x), ½ first")
        << "sq = Mul(x, x)\n p = Mul(x, sq)\n q = Mul(c, p)\n s = Add(q, x)\n u = Mul(k, s)\n th = Tanh(u)\n"
           " a = Add(one, th)\n h = Mul(half, x)\n y = Mul(h, a)"
        << "tanh";
    QTest::newRow("tanh, (x·x)·x, ½ last")
        << "sq = Mul(x, x)\n p = Mul(sq, x)\n q = Mul(p, c)\n s = Add(x, q)\n u = Mul(s, k)\n th = Tanh(u)\n"
           " a = Add(th, one)\n m = Mul(a, x)\n y = Div(m, two)"
        << "tanh";
}

void tst_ActivationFusions::geluFuses()
{
    QFETCH(QString, body);
    QFETCH(QString, approximate);
    auto model = load(graph(body.toStdString(), kGeluConstants));
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-gelu,eliminate-dead");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"ai.portolan::Gelu", 1}}));
    QVERIFY(test::numericsHeld(*result));
    const ir::Model &out = *result->model;
    for (const ir::NodeId n : out.graph(out.mainGraph()).nodes) {
        const ir::Node &node = out.node(n);
        if (!node.alive)
            continue;
        const ir::Attribute *a = node.attribute("approximate");
        QCOMPARE(QString::fromStdString(a ? a->proto.s() : "none"), approximate);
        QVERIFY(result->provenance.originsOf(n).size() >= 5);
    }
    QCOMPARE(result->passes.at(0).statistics.at(approximate == "tanh" ? "fused-tanh" : "fused-erf"), std::int64_t(1));
}

void tst_ActivationFusions::geluNearMisses_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<bool>("standardOnly");
    QTest::addColumn<QString>("reason");
    QTest::newRow("1 + erf also read") << "t = Div(x, r2)\n e = Erf(t)\n a = Add(e, one)\n m = Mul(x, a)\n h = Mul(m, half)\n"
                                          " y = Add(h, a)"
                                       << false << "1 + erf(x/√2) is not multiplied by x and ½";
    QTest::newRow("no ½") << "t = Div(x, r2)\n e = Erf(t)\n a = Add(e, one)\n y = Mul(x, a)" << false
                          << "1 + erf(x/√2) is not multiplied by x and ½";
    QTest::newRow("erf read twice") << "t = Div(x, r2)\n e = Erf(t)\n a = Add(e, one)\n m = Mul(x, a)\n h = Mul(m, half)\n"
                                       " y = Add(h, e)"
                                    << false << "erf(x/√2) is not followed by + 1";
    QTest::newRow("tanh of another sum") << "q = Mul(x, c)\n s = Add(x, q)\n u = Mul(s, k)\n th = Tanh(u)\n a = Add(th, one)\n"
                                            " m = Mul(x, a)\n y = Mul(m, half)"
                                         << false << "s is not x + 0.044715 · x³";
    QTest::newRow("standard-only") << "t = Div(x, r2)\n e = Erf(t)\n a = Add(e, one)\n m = Mul(x, a)\n y = Mul(m, half)"
                                   << true << "standard-only: Gelu is not a standard op before opset 20";
}

void tst_ActivationFusions::geluNearMisses()
{
    QFETCH(QString, body);
    QFETCH(bool, standardOnly);
    QFETCH(QString, reason);
    auto model = load(graph(body.toStdString(), kGeluConstants));
    QVERIFY(model);
    passes::PassManagerOptions options;
    options.standardOnly = standardOnly;
    auto result = test::runChecked(*model, "fuse-gelu", options);
    QVERIFY(result);
    QVERIFY(!result->passes.at(0).changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "fuse-gelu"));
    QVERIFY2(reasons.contains(reason), qPrintable(reasons));
}

void tst_ActivationFusions::geluRefusesABadAttribute()
{
    // An erf that is no GELU is not reported at all; a Gelu with an unknown approximation is refused
    // by the schema (so by the checker and shape inference).
    auto plain = load(graph("t = Mul(x, half)\n y = Erf(t)", kGeluConstants));
    QVERIFY(plain);
    auto result = test::runChecked(*plain, "fuse-gelu");
    QVERIFY(result);
    QVERIFY(!result->passes.at(0).changed);
    QCOMPARE(test::failureReasons(*result, "fuse-gelu"), std::string());
    auto bad = load(R"(
<ir_version: 8, opset_import: ["" : 14, "ai.portolan" : 1]>
g (float[2,3] x) => (float[2,3] y)
{
    y = ai.portolan.Gelu <approximate = "fast"> (x)
}
)");
    QVERIFY(bad);
    const auto inferred = analysis::inferShapes(*bad);
    QVERIFY(!inferred.findings.empty());
    QVERIFY2(inferred.findings.front().format().find("approximate") != std::string::npos,
             inferred.findings.front().format().c_str());
}

void tst_ActivationFusions::geluAtOpset20()
{
    // From opset 20 Gelu is a standard op: fuse-gelu creates it (in standard-only mode too) when this
    // build's ONNX has its schema (libonnx >= 1.15); without it ai.portolan's Gelu stands in.
    const bool known = onnx::OpSchemaRegistry::Schema("Gelu", 20, "") != nullptr;
    auto model = load(graph("t = Div(x, r2)\n e = Erf(t)\n a = Add(e, one)\n m = Mul(x, a)\n y = Mul(m, half)",
                            kGeluConstants, {}, 20));
    QVERIFY(model);
    auto fused = test::runChecked(*model, "fuse-gelu,eliminate-dead");
    QVERIFY(fused);
    QCOMPARE(test::opHistogram(*fused->model),
             (std::map<std::string, int>{{known ? "Gelu" : "ai.portolan::Gelu", 1}}));
    QVERIFY(test::numericsHeld(*fused));
    passes::PassManagerOptions options;
    options.standardOnly = true;
    auto strict = test::runChecked(*model, "fuse-gelu", options);
    QVERIFY(strict);
    QCOMPARE(strict->passes.at(0).changed, known);
    if (!known)
        QVERIFY(test::failureReasons(*strict, "fuse-gelu").find("no schema of the standard Gelu-20") != std::string::npos);
}

void tst_ActivationFusions::standardGeluDecomposes()
{
    // The standard Gelu of opset 20 runs on the reference interpreter (the numeric check runs the
    // model before decompose) and becomes the tanh form's primitives.
    auto model = load(graph("y = Gelu <approximate = \"tanh\"> (x)", {}, {}, 20));
    QVERIFY(model);
    auto result = test::runChecked(*model, "decompose,eliminate-dead");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model).at("Tanh"), 1);
    QVERIFY(!test::opHistogram(*result->model).contains("Gelu"));
    QVERIFY(test::numericsHeld(*result));
}

void tst_ActivationFusions::fixtureGelusFuse_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::newRow("opset 14") << "transformer_opset14";
    QTest::newRow("opset 17") << "transformer_opset17";
}

void tst_ActivationFusions::fixtureGelusFuse()
{
    QFETCH(QString, fixture);
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + fixture.toStdString() + "/model.onnx");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "infer-shapes,fold-constants,eliminate-dead,fuse-gelu,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const auto ops = test::opHistogram(*result->model);
    QVERIFY(!ops.contains("Erf"));
    QCOMPARE(ops.at("ai.portolan::Gelu"), 2);
}

// ---- fuse-rms-norm ----

static const char *kRmsConstants = "float[8] gamma = {1.0, 0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.75}, float two = {2.0}, "
                                   "float one = {1.0}, float eps = {1e-6}, float minusHalf = {-0.5}, "
                                   "float[3,1] rowScale = {1.0, 2.0, 3.0}, int64[3] shape = {2, 3, 1}";

void tst_ActivationFusions::rmsNormFuses_data()
{
    QTest::addColumn<QString>("body");
    QTest::newRow("Pow, Div, γ · n (LLaMA)")
        << "q = Pow(x, two)\n m = ReduceMean <axes = [-1]> (q)\n v = Add(m, eps)\n s = Sqrt(v)\n n = Div(x, s)\n"
           " y = Mul(gamma, n)";
    QTest::newRow("x·x, Reciprocal, n · γ")
        << "q = Mul(x, x)\n m = ReduceMean <axes = [2]> (q)\n v = Add(eps, m)\n s = Sqrt(v)\n r = Reciprocal(s)\n"
           " n = Mul(x, r)\n y = Mul(n, gamma)";
    QTest::newRow("1/s, no γ")
        << "q = Pow(x, two)\n m = ReduceMean <axes = [-1]> (q)\n v = Add(m, eps)\n s = Sqrt(v)\n r = Div(one, s)\n"
           " y = Mul(r, x)";
    QTest::newRow("x · Pow(v, −0.5), γ · n")
        << "q = Pow(x, two)\n m = ReduceMean <axes = [-1]> (q)\n v = Add(m, eps)\n r = Pow(v, minusHalf)\n"
           " n = Mul(x, r)\n y = Mul(gamma, n)";
}

void tst_ActivationFusions::rmsNormFuses()
{
    QFETCH(QString, body);
    auto model = load(graph(body.toStdString(), kRmsConstants));
    QVERIFY(model);
    auto result = test::runChecked(*model, "infer-shapes,fuse-rms-norm,eliminate-dead");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"ai.portolan::RMSNormalization", 1}}));
    QVERIFY(test::numericsHeld(*result));
    const ir::Model &out = *result->model;
    for (const ir::NodeId n : out.graph(out.mainGraph()).nodes)
        if (out.node(n).alive) {
            QCOMPARE(out.node(n).attribute("axis")->proto.i(), std::int64_t(-1));
            QVERIFY(result->provenance.originsOf(n).size() >= 5);
        }
}

void tst_ActivationFusions::rmsNormNearMisses_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<bool>("standardOnly");
    QTest::addColumn<QString>("reason");
    const QString tail = " v = Add(m, e)\n s = Sqrt(v)\n n = Div(x, s)\n y = Mul(n, gamma)";
    QTest::newRow("epsilon is an input") << "q = Pow(x, two)\n m = ReduceMean <axes = [-1]> (q)\n" + tail << false
                                         << "epsilon is not a constant";
    QTest::newRow("not the trailing axes") << "q = Pow(x, two)\n m = ReduceMean <axes = [1]> (q)\n" + tail << false
                                           << "ReduceMean axes are not the trailing axes";
    QTest::newRow("divides something else") << "q = Pow(x, two)\n m = ReduceMean <axes = [-1]> (q)\n v = Add(m, eps)\n"
                                               " s = Sqrt(v)\n y = Div(gamma, s)"
                                            << false << "x is not divided by √(mean(x²) + ε)";
    QTest::newRow("standard-only") << "q = Pow(x, two)\n m = ReduceMean <axes = [-1]> (q)\n v = Add(m, eps)\n s = Sqrt(v)\n"
                                      " n = Div(x, s)\n y = Mul(n, gamma)"
                                   << true << "standard-only: RMSNormalization is not a standard op at opset 14";
    QTest::newRow("scale along another axis") << "q = Pow(x, two)\n m = ReduceMean <axes = [-1]> (q)\n v = Add(m, eps)\n"
                                                 " s = Sqrt(v)\n n = Div(x, s)\n y = Mul(n, rowScale)"
                                              << false << "the scale varies along a non-normalized axis";
    QTest::newRow("no square root") << "q = Pow(x, two)\n m = ReduceMean <axes = [-1]> (q)\n v = Add(m, eps)\n"
                                   " r = Reciprocal(v)\n n = Mul(x, r)\n y = Mul(n, gamma)"
                                << false << "is not followed by + ε and Sqrt or Pow(·, −0.5)";
    QTest::newRow("keepdims=0") << "q = Pow(x, two)\n m = ReduceMean <axes = [-1], keepdims = 0> (q)\n v = Add(m, eps)\n"
                                   " s = Sqrt(v)\n u = Reshape(s, shape)\n n = Div(x, u)\n y = Mul(n, gamma)"
                                << false << "ReduceMean drops the reduced axes (keepdims=0)";
}

void tst_ActivationFusions::rmsNormNearMisses()
{
    QFETCH(QString, body);
    QFETCH(bool, standardOnly);
    QFETCH(QString, reason);
    auto model = load(graph(body.toStdString(), kRmsConstants, ", float[1] e"));
    QVERIFY(model);
    passes::PassManagerOptions options;
    options.standardOnly = standardOnly;
    auto result = test::runChecked(*model, "infer-shapes,fuse-rms-norm", options);
    QVERIFY(result);
    QVERIFY(!result->passes.at(1).changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "fuse-rms-norm"));
    QVERIFY2(reasons.contains(reason), qPrintable(reasons));
}

void tst_ActivationFusions::rmsNormLeavesLayerNormAlone()
{
    // A layer norm's variance is an RMS norm of x − mean: fuse-rms-norm leaves it to fuse-layer-norm.
    auto model = load(graph("mean = ReduceMean <axes = [-1]> (x)\n d = Sub(x, mean)\n q = Pow(d, two)\n"
                            " m = ReduceMean <axes = [-1]> (q)\n v = Add(m, eps)\n s = Sqrt(v)\n n = Div(d, s)\n"
                            " y = Mul(n, gamma)",
                            kRmsConstants));
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-rms-norm,fuse-layer-norm,eliminate-dead");
    QVERIFY(result);
    QVERIFY(!result->passes.at(0).changed);
    QCOMPARE(test::failureReasons(*result, "fuse-rms-norm"), std::string());
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"ai.portolan::LayerNormalization", 1}}));
    QVERIFY(test::numericsHeld(*result));
}

// ---- the GPT-2 benchmark's GELU ----

void tst_ActivationFusions::gptGeluFuses()
{
    // benchmarks/.cache/models/gpt_block: the MLP's tanh GELU as torch.onnx exports GPT-2's NewGELU,
    // with Constant nodes and x = the fc layer's output read three times.
    using test::linear::values;
    auto model = load("<ir_version: 8, opset_import: [\"\" : 14]>\n"
                      "gpt (float[1,4,8] h) => (float[1,4,16] y)\n"
                      "<float[8,16] w = " + values(128, -1, 1, 3) + ", float[16] b = " + values(16, -1, 1, 4) + ">\n" +
                      R"({
    mm = MatMul(h, w)
    x = Add(mm, b)
    c7 = Constant <value = float {0.5}> ()
    h1 = Mul(x, c7)
    c8 = Constant <value = float {3.0}> ()
    p = Pow(x, c8)
    c9 = Constant <value = float {0.044715}> ()
    m2 = Mul(p, c9)
    a1 = Add(x, m2)
    c10 = Constant <value = float {0.7978845608}> ()
    m3 = Mul(a1, c10)
    t = Tanh(m3)
    c11 = Constant <value = float {1.0}> ()
    a2 = Add(t, c11)
    y = Mul(h1, a2)
})");
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-gelu,eliminate-dead");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model),
             (std::map<std::string, int>{{"Add", 1}, {"MatMul", 1}, {"ai.portolan::Gelu", 1}}));
    QCOMPARE(test::linear::findNode(*result->model, "Gelu")->attribute("approximate")->proto.s(), std::string("tanh"));
    QVERIFY(test::numericsHeld(*result));
}

// ---- decompose ----

void tst_ActivationFusions::decomposedActivationsFuseAgain_data()
{
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("op");
    QTest::newRow("Gelu") << "y = ai.portolan.Gelu (x)" << "ai.portolan::Gelu";
    QTest::newRow("Gelu tanh") << "y = ai.portolan.Gelu <approximate = \"tanh\"> (x)" << "ai.portolan::Gelu";
    QTest::newRow("RMSNormalization") << "y = ai.portolan.RMSNormalization <epsilon = 1e-6> (x, gamma)"
                                      << "ai.portolan::RMSNormalization";
}

void tst_ActivationFusions::decomposedActivationsFuseAgain()
{
    // decompose writes the primitives the fusions look for: fusing again restores the op.
    QFETCH(QString, node);
    QFETCH(QString, op);
    auto model = load("<ir_version: 8, opset_import: [\"\" : 14, \"ai.portolan\" : 1]>\n"
                      "g (float[2,3,8] x) => (float[2,3,8] y)\n<" + std::string(kRmsConstants) + ">\n{\n" +
                      node.toStdString() + "\n}\n");
    QVERIFY(model);
    auto result = test::runChecked(*model, "decompose,eliminate-dead,infer-shapes,fuse-gelu,fuse-rms-norm,eliminate-dead");
    QVERIFY(result);
    QVERIFY(result->passes.at(0).changed);
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{op.toStdString(), 1}}));
    const ir::Node *fused = test::linear::findNode(*result->model, op.section("::", 1).toStdString());
    const ir::Node *original = test::linear::findNode(*model, op.section("::", 1).toStdString());
    QVERIFY(fused && original);
    for (const char *name : {"approximate", "epsilon"})
        QCOMPARE(fused->attribute(name) != nullptr, original->attribute(name) != nullptr);
    QVERIFY(test::numericsHeld(*result));
}

void tst_ActivationFusions::decomposeNearMisses_data()
{
    QTest::addColumn<int>("opset");
    QTest::addColumn<QString>("signature");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("reason");
    QTest::newRow("Gelu before Erf") << 8 << "(float[2,8] x) => (float[2,8] y)" << "y = ai.portolan.Gelu (x)"
                                     << "Erf needs opset 9";
    QTest::newRow("RMSNormalization in float16")
        << 14 << "(float16[2,8] x, float16[8] g) => (float16[2,8] y)" << "y = ai.portolan.RMSNormalization (x, g)"
        << "the primitives would compute the statistics at that precision";
    QTest::newRow("RMSNormalization, axis past the rank")
        << 14 << "(float[2,8] x, float[8] g) => (float[2,8] y)" << "y = ai.portolan.RMSNormalization <axis = 2> (x, g)"
        << "axis 2 needs X's rank";
}

void tst_ActivationFusions::decomposeNearMisses()
{
    QFETCH(int, opset);
    QFETCH(QString, signature);
    QFETCH(QString, node);
    QFETCH(QString, reason);
    auto model = load("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + ", \"ai.portolan\" : 1]>\ng " +
                      signature.toStdString() + "\n{\n" + node.toStdString() + "\n}\n");
    QVERIFY(model);
    auto result = test::runChecked(*model, "decompose");
    QVERIFY(result);
    QVERIFY(!result->passes.at(0).changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "decompose"));
    QVERIFY2(reasons.contains(reason), qPrintable(reasons));
}

void tst_ActivationFusions::decomposeRefusesAMisspelledOp()
{
    // Op types are case-sensitive, as in ONNX: "gelu" is no op decompose knows.
    auto model = load(graph("y = Relu(x)"));
    QVERIFY(model);
    auto pipeline = passes::parsePipeline("decompose{ops=HardSwish,gelu}");
    QVERIFY(pipeline);
    auto result = passes::runPipeline(*model, *pipeline, {});
    QVERIFY(!result);
    const QString message = QString::fromStdString(result.error().format());
    QVERIFY2(message.contains("unknown op type 'gelu'") && message.contains("Gelu") && message.contains("RMSNormalization"),
             qPrintable(message));
}

void tst_ActivationFusions::fusedConvDecomposes()
{
    // fuse-conv-activation's FusedConv{activation = Relu} becomes Conv and Relu again.
    auto model = load(test::linear::convModel("float[1,3,5,5] y", "", "", "    y = Relu(c)\n"));
    QVERIFY(model);
    auto fused = test::runChecked(*model, "fuse-conv-activation");
    QVERIFY(fused);
    QCOMPARE(test::opHistogram(*fused->model), (std::map<std::string, int>{{"ai.portolan::FusedConv", 1}}));
    auto result = test::runChecked(*fused->model, "decompose,eliminate-dead");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"Conv", 1}, {"Relu", 1}}));
    QCOMPARE(result->passes.at(0).statistics.at("decomposed-FusedConv"), std::int64_t(1));
    QVERIFY(test::numericsHeld(*fused));
    QVERIFY(test::numericsHeld(*result));
}

QTEST_GUILESS_MAIN(tst_ActivationFusions)
#include "tst_ActivationFusions.moc"
