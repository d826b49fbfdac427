// The transformer fusions (fuse-layer-norm, fuse-attention, fuse-skip-layer-norm) and the
// ai.portolan ops they create: positive cases, near-misses with their reasons, bad inputs, and the
// fixture encoders fused end to end with provenance.
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "opset/PortolanOps.h"
#include "passes/Pipeline.h"

#include <QTest>

#include <set>

using namespace portolan;

class tst_TransformerFusions : public QObject {
    Q_OBJECT
private slots:
    void layerNormFuses_data();
    void layerNormFuses();
    void layerNormNearMisses_data();
    void layerNormNearMisses();
    void layerNormRefusesABadOption();
    void attentionFuses_data();
    void attentionFuses();
    void attentionAbsorbsTheQueryScale();
    void headSplitTransposesAreAbsorbed();
    void attentionNearMisses();
    void packedProjectionSlicesBecomeSplit();
    void slicesWithAGapStay();
    void skipLayerNormFuses();
    void skipLayerNormKeepsTheSumWhenRead();
    void skipLayerNormNearMisses();
    void fixtureEncodersFuse_data();
    void fixtureEncodersFuse();
};

static std::unique_ptr<ir::Model> load(const std::string &text) { return test::modelFromText(text); }

// A layer norm over the last axis of x [2,3,8], in the exported form; %s slots vary one piece.
static std::string layerNormModel(int opset, const char *eps, const char *variance, const char *tail)
{
    char text[2048];
    std::snprintf(text, sizeof text, R"(
<ir_version: 8, opset_import: ["" : %d]>
g (float[2,3,8] x) => (float[2,3,8] y)
<float[8] gamma = {1.0, 0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.75}, float[8] beta = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8},
 float two = {2.0}, float eps = {%s}>
{
    mean = ReduceMean <axes = [-1]> (x)
    d = Sub(x, mean)
    %s
    var = ReduceMean <axes = [-1]> (sq)
    ve = Add(var, eps)
    s = Sqrt(ve)
    n = Div(d, s)
    %s
}
)", opset, eps, variance, tail);
    return text;
}

void tst_TransformerFusions::layerNormFuses_data()
{
    QTest::addColumn<int>("opset");
    QTest::addColumn<QString>("variance");
    QTest::addColumn<QString>("tail");
    QTest::addColumn<QString>("fusedOp");
    QTest::newRow("opset 17, Pow") << 17 << "sq = Pow(d, two)" << "m = Mul(n, gamma)\n y = Add(m, beta)" << "LayerNormalization";
    QTest::newRow("opset 14, Mul") << 14 << "sq = Mul(d, d)" << "m = Mul(gamma, n)\n y = Add(beta, m)"
                                   << "ai.portolan::LayerNormalization";
    QTest::newRow("no beta") << 17 << "sq = Pow(d, two)" << "y = Mul(n, gamma)" << "LayerNormalization";
    QTest::newRow("no gamma") << 17 << "sq = Pow(d, two)" << "y = Add(n, beta)" << "LayerNormalization";
}

void tst_TransformerFusions::layerNormFuses()
{
    QFETCH(int, opset);
    QFETCH(QString, variance);
    QFETCH(QString, tail);
    QFETCH(QString, fusedOp);
    auto model = load(layerNormModel(opset, "1e-5", variance.toUtf8().constData(), tail.toUtf8().constData()).c_str());
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-layer-norm,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const auto ops = test::opHistogram(*result->model);
    QCOMPARE(ops, (std::map<std::string, int>{{fusedOp.toStdString(), 1}}));
    // The fused node stands for every node of the decomposition.
    const ir::Model &out = *result->model;
    for (const ir::NodeId n : out.graph(out.mainGraph()).nodes)
        if (out.node(n).alive)
            QCOMPARE(result->provenance.originsOf(n).size(), model->liveNodeCount());
}

void tst_TransformerFusions::layerNormNearMisses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("reason");
    QTest::newRow("eps after sqrt") << QString::fromStdString(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] y)
<float two = {2.0}, float eps = {1e-5}>
{
    mean = ReduceMean <axes = [-1]> (x)
    d = Sub(x, mean)
    sq = Pow(d, two)
    var = ReduceMean <axes = [-1]> (sq)
    s = Sqrt(var)
    se = Add(s, eps)
    y = Div(d, se)
}
)") << "epsilon is added after Sqrt";
    QTest::newRow("eps is an input") << QString::fromStdString(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x, float eps) => (float[2,8] y)
<float two = {2.0}>
{
    mean = ReduceMean <axes = [-1]> (x)
    d = Sub(x, mean)
    sq = Pow(d, two)
    var = ReduceMean <axes = [-1]> (sq)
    ve = Add(var, eps)
    s = Sqrt(ve)
    y = Div(d, s)
}
)") << "epsilon is not a constant";
    QTest::newRow("not the trailing axis") << QString::fromStdString(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] y)
<float two = {2.0}, float eps = {1e-5}>
{
    mean = ReduceMean <axes = [0]> (x)
    d = Sub(x, mean)
    sq = Pow(d, two)
    var = ReduceMean <axes = [0]> (sq)
    ve = Add(var, eps)
    s = Sqrt(ve)
    y = Div(d, s)
}
)") << "not the trailing axes";
    QTest::newRow("big epsilon") << QString::fromStdString(layerNormModel(17, "1.0", "sq = Pow(d, two)", "y = Mul(n, gamma)"))
                                 << "outside (0, max-epsilon]";
}

void tst_TransformerFusions::layerNormNearMisses()
{
    QFETCH(QString, text);
    QFETCH(QString, reason);
    auto model = load(text.toUtf8().constData());
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-layer-norm");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "fuse-layer-norm"));
    QVERIFY2(reasons.contains(reason), qPrintable(reasons));
}

void tst_TransformerFusions::layerNormRefusesABadOption()
{
    auto model = load(layerNormModel(17, "1e-5", "sq = Pow(d, two)", "y = Mul(n, gamma)").c_str());
    QVERIFY(model);
    auto result = passes::runPipeline(*model, *passes::parsePipeline("fuse-layer-norm{max-epsilon=small}"), {});
    QVERIFY(!result);
    QVERIFY2(QString::fromStdString(result.error().format()).contains("max-epsilon"), result.error().format().c_str());
}

// Attention on q/k/v [1,2,4,8] (batch, heads, seq, head dim); `scores` and `mask` vary.
static std::string attentionModel(const char *inputs, const char *initializers, const char *body)
{
    char text[4096];
    std::snprintf(text, sizeof text, R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[1,2,4,8] q, float[1,4,2,8] kraw, float[1,2,4,8] v%s) => (float[1,2,4,8] y)
<float c = {2.828427}%s>
{
    kt = Transpose <perm = [0, 2, 3, 1]> (kraw)
    s = MatMul(q, kt)
    %s
    p = Softmax <axis = -1> (m)
    y = MatMul(p, v)
}
)", inputs, initializers, body);
    return text;
}

void tst_TransformerFusions::attentionFuses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("inputs");
    QTest::addColumn<int>("causal");
    QTest::newRow("div scale") << QString::fromStdString(attentionModel("", "", "m = Div(s, c)")) << 3 << 0;
    QTest::newRow("additive mask") << QString::fromStdString(attentionModel(", float[1,1,4,4] mask", "", "sc = Div(s, c)\n m = Add(sc, mask)"))
                                   << 4 << 0;
    QTest::newRow("causal where") << QString::fromStdString(attentionModel(
        "", ", bool[1,1,4,4] hide = {0,1,1,1, 0,0,1,1, 0,0,0,1, 0,0,0,0}, float fill = {-1e30}",
        "sc = Mul(s, c)\n m = Where(hide, fill, sc)")) << 3 << 1;
    QTest::newRow("padding where") << QString::fromStdString(attentionModel(
        "", ", bool[1,1,1,4] keep = {1,1,1,0}, float fill = {-1e10}", "sc = Mul(s, c)\n m = Where(keep, sc, fill)")) << 4 << 0;
}

void tst_TransformerFusions::attentionFuses()
{
    QFETCH(QString, text);
    QFETCH(int, inputs);
    QFETCH(int, causal);
    auto model = load(text.toUtf8().constData());
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-attention,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const ir::Model &out = *result->model;
    const auto ops = test::opHistogram(out);
    QCOMPARE(ops.at("ai.portolan::Attention"), 1);
    QVERIFY(!ops.contains("Softmax") && !ops.contains("MatMul"));
    for (const ir::NodeId n : out.graph(out.mainGraph()).nodes) {
        const ir::Node &node = out.node(n);
        if (!node.alive || node.opType != "Attention")
            continue;
        QCOMPARE(static_cast<int>(node.inputs.size()), inputs);
        QCOMPARE(static_cast<int>(node.attribute("causal")->proto.i()), causal);
    }
}

void tst_TransformerFusions::attentionAbsorbsTheQueryScale()
{
    // nn.MultiheadAttention's export: 3-D heads, the queries divided by √d before the product.
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2,4,8] q, float[2,8,4] kt, float[2,4,8] v) => (float[2,4,8] y)
<float c = {2.828427}>
{
    qs = Div(q, c)
    s = MatMul(qs, kt)
    p = Softmax <axis = -1> (s)
    y = MatMul(p, v)
}
)");
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-attention,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const auto ops = test::opHistogram(*result->model);
    QVERIFY(!ops.contains("Div"));
    QCOMPARE(ops.at("ai.portolan::Attention"), 1);
    QCOMPARE(ops.at("Transpose"), 1); // K arrives transposed and is not a transpose output: one is made
}

void tst_TransformerFusions::headSplitTransposesAreAbsorbed()
{
    // The exporters' head split: [B,S,H,D] → Transpose → [B,H,S,D], and back after the product.
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[1,4,2,8] qs, float[1,4,2,8] ks, float[1,4,2,8] vs) => (float[1,4,2,8] y)
<float c = {0.35355339}, bool[1,1,4,4] hide = {0,1,1,1, 0,0,1,1, 0,0,0,1, 0,0,0,0}, float fill = {-1e30}>
{
    q = Transpose <perm = [0, 2, 1, 3]> (qs)
    kt = Transpose <perm = [0, 2, 3, 1]> (ks)
    v = Transpose <perm = [0, 2, 1, 3]> (vs)
    s = MatMul(q, kt)
    sc = Mul(s, c)
    m = Where(hide, fill, sc)
    p = Softmax <axis = -1> (m)
    o = MatMul(p, v)
    y = Transpose <perm = [0, 2, 1, 3]> (o)
}
)");
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-attention,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"ai.portolan::Attention", 1}}));
    // And back to primitives, with the same numbers.
    auto back = test::runChecked(*result->model, "decompose,eliminate-dead");
    QVERIFY(back);
    QVERIFY(test::numericsHeld(*back));
    QVERIFY(!test::opHistogram(*back->model).contains("ai.portolan::Attention"));
}

void tst_TransformerFusions::packedProjectionSlicesBecomeSplit()
{
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2,12] qkv) => (float[2,4] q, float[2,4] k, float[2,4] v)
<int64[1] s0 = {0}, int64[1] s1 = {4}, int64[1] s2 = {8}, int64[1] s3 = {9223372036854775807}, int64[1] axis = {-1}>
{
    k = Slice(qkv, s1, s2, axis)
    q = Slice(qkv, s0, s1, axis)
    v = Slice(qkv, s2, s3, axis)
}
)");
    QVERIFY(model);
    auto result = test::runChecked(*model, "canonicalize,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"Split", 1}}));
}

void tst_TransformerFusions::slicesWithAGapStay()
{
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[2,12] qkv) => (float[2,4] q, float[2,3] k)
<int64[1] s0 = {0}, int64[1] s1 = {4}, int64[1] s2 = {5}, int64[1] s3 = {8}, int64[1] axis = {1}>
{
    q = Slice(qkv, s0, s1, axis)
    k = Slice(qkv, s2, s3, axis)
}
)");
    QVERIFY(model);
    auto result = test::runChecked(*model, "canonicalize");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    QVERIFY(QString::fromStdString(test::failureReasons(*result, "canonicalize")).contains("consecutive pieces"));
}

void tst_TransformerFusions::attentionNearMisses()
{
    // The probabilities are also an output: the softmax must stay.
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[1,2,4,8] q, float[1,2,8,4] kt, float[1,2,4,8] v) => (float[1,2,4,8] y, float[1,2,4,4] p)
{
    s = MatMul(q, kt)
    p = Softmax <axis = -1> (s)
    y = MatMul(p, v)
}
)");
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-attention");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    QVERIFY(QString::fromStdString(test::failureReasons(*result, "fuse-attention")).contains("other readers"));
    // Multi-query: one head of K and V broadcast over Q's two (Attention wants them whole)
    auto multiQuery = load(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[1,2,4,8] q, float[1,1,8,4] kt, float[1,1,4,8] v) => (float[1,2,4,8] y)
{
    s = MatMul(q, kt)
    p = Softmax <axis = -1> (s)
    y = MatMul(p, v)
}
)");
    QVERIFY(multiQuery);
    auto broadcast = test::runChecked(*multiQuery, "fuse-attention");
    QVERIFY(broadcast);
    QVERIFY(!broadcast->passes[0].changed);
    QVERIFY(QString::fromStdString(test::failureReasons(*broadcast, "fuse-attention")).contains("multi-query"));
    // A whole row hidden: Where's uniform softmax is not −∞'s NaN.
    auto hidden = load(attentionModel("", ", bool[1,1,4,4] hide = {1,1,1,1, 0,0,1,1, 0,0,0,1, 0,0,0,0}, float fill = {-1e30}",
                                      "sc = Mul(s, c)\n m = Where(hide, fill, sc)").c_str());
    QVERIFY(hidden);
    auto declined = test::runChecked(*hidden, "fuse-attention");
    QVERIFY(declined);
    QVERIFY(QString::fromStdString(test::failureReasons(*declined, "fuse-attention")).contains("hides every key"));
    // standard-only
    auto plain = load(attentionModel("", "", "m = Div(s, c)").c_str());
    passes::PassManagerOptions options;
    options.standardOnly = true;
    auto standard = test::runChecked(*plain, "fuse-attention", options);
    QVERIFY(standard);
    QVERIFY(QString::fromStdString(test::failureReasons(*standard, "fuse-attention")).contains("standard-only"));
}

static const char *kResidualModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x, float[2,3,4] h) => (float[2,3,4] y%s)
<float[4,4] w = {1,0,0,0, 0,2,0,0, 0,0,1,1, 1,0,0,1}, float[4] bias = {0.1, 0.2, 0.3, 0.4},
 float[4] gamma = {1.0, 2.0, 0.5, 1.0}, float[4] beta = {0.0, 0.1, 0.2, 0.3}>
{
    t = MatMul(h, w)
    u = Add(t, bias)
    s = Add(x, u)
    y = LayerNormalization <axis = -1, epsilon = 1e-5> (s, gamma, beta)
    %s
}
)";

void tst_TransformerFusions::skipLayerNormFuses()
{
    char text[1024];
    std::snprintf(text, sizeof text, kResidualModel, "", "");
    auto model = load(text);
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-skip-layer-norm,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"MatMul", 1}, {"ai.portolan::SkipLayerNormalization", 1}}));
}

void tst_TransformerFusions::skipLayerNormKeepsTheSumWhenRead()
{
    char text[1024];
    std::snprintf(text, sizeof text, kResidualModel, ", float[2,3,4] z", "z = Relu(s)");
    auto model = load(text);
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-skip-layer-norm,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const ir::Model &out = *result->model;
    for (const ir::NodeId n : out.graph(out.mainGraph()).nodes)
        if (out.node(n).alive && out.node(n).opType == "SkipLayerNormalization")
            QCOMPARE(out.node(n).outputs.size(), std::size_t(2));
}

void tst_TransformerFusions::skipLayerNormNearMisses()
{
    auto model = load(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x, float[4] h) => (float[2,3,4] y)
<float[4] gamma = {1.0, 2.0, 0.5, 1.0}>
{
    s = Add(x, h)
    y = LayerNormalization <axis = -1> (s, gamma)
}
)");
    QVERIFY(model);
    auto result = test::runChecked(*model, "fuse-skip-layer-norm");
    QVERIFY(result);
    QVERIFY(!result->passes[0].changed);
    QVERIFY(QString::fromStdString(test::failureReasons(*result, "fuse-skip-layer-norm")).contains("broadcast"));
}

void tst_TransformerFusions::fixtureEncodersFuse_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::newRow("opset 14") << "transformer_opset14";
    QTest::newRow("opset 17") << "transformer_opset17";
}

void tst_TransformerFusions::fixtureEncodersFuse()
{
    QFETCH(QString, fixture);
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + fixture.toStdString() + "/model.onnx");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "infer-shapes,fold-constants,eliminate-identity,eliminate-dead,"
                                                   "fuse-layer-norm,fuse-attention,fuse-skip-layer-norm,eliminate-dead");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const auto ops = test::opHistogram(*result->model);
    for (const char *gone : {"Softmax", "ReduceMean", "Sqrt", "Pow", "LayerNormalization", "ai.portolan::LayerNormalization"})
        QVERIFY2(!ops.contains(gone), gone);
    QCOMPARE(ops.at("ai.portolan::Attention"), 2);
    QCOMPARE(ops.at("ai.portolan::SkipLayerNormalization"), 4);
    QVERIFY(!ops.contains("Transpose")); // the head splits are absorbed (layout SND)
    // fused nodes are named for their op in the scope of what they replaced, without a "_1" left
    // from the moment they and the replaced nodes were both alive
    std::set<std::string> fusedNames;
    for (const ir::NodeId n : result->model->graph(result->model->mainGraph()).nodes)
        if (const ir::Node &node = result->model->node(n); node.alive && node.domain == opset::kPortolanDomain)
            fusedNames.insert(node.name);
    for (const char *name : {"/layers.0/self_attn/Attention", "/layers.0/norm1/SkipLayerNormalization",
                             "/layers.1/norm2/SkipLayerNormalization"})
        QVERIFY2(fusedNames.contains(name), (std::string(name) + " not among the fused nodes").c_str());
    // A SkipLayerNormalization made from a decomposed layer norm stands for its nine nodes and the
    // residual Add (and the bias Add before it): composed across two passes.
    if (fixture == "transformer_opset14") {
        const ir::Model &out = *result->model;
        for (const ir::NodeId n : out.graph(out.mainGraph()).nodes)
            if (out.node(n).alive && out.node(n).opType == "SkipLayerNormalization")
                QCOMPARE(result->provenance.originsOf(n).size(), std::size_t(11));
    }
}

QTEST_GUILESS_MAIN(tst_TransformerFusions)
#include "tst_TransformerFusions.moc"
