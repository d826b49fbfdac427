// `portolan shapes`: each origin of a dynamic dim (an input dim, a data-dependent op, an output ONNX
// cannot type) on crafted graphs, what it reaches, the advice per kind of target, freezing, and the
// fixture models as a user runs the command.
#include "support/CliSupport.h"
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "diagnose/DynamicShapes.h"
#include "diagnose/FreezeDims.h"
#include "diagnose/ShapesFormat.h"
#include "diagnose/TargetProfile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace portolan;
using diagnose::DimSourceKind;
using diagnose::ShapeAdvice;

namespace {

std::unique_ptr<ir::Model> model(const std::string &signature, const std::string &body, const std::string &weights = {})
{
    return test::modelFromText("<ir_version: 8, opset_import: [\"\" : 13]>\ng " + signature +
                               (weights.empty() ? std::string() : "\n<" + weights + ">") + "\n{\n" + body + "\n}\n");
}

/// A target whose dynamic shapes are `shapes` ("static", "profile", "supported"), with `ops` listed.
diagnose::TargetProfile target(const std::string &shapes, const std::string &ops = R"("Relu": {})")
{
    auto p = diagnose::parseTargetProfile(R"({"format": "portolan-target/1", "id": "npu", "name": "Test NPU",
        "source": {"document": "a test", "version": "1"}, "dynamicShapes": ")" +
                                              shapes + R"(", "ops": {)" + ops + "}}",
                                          "test profile");
    if (!p)
        qFatal("%s", p.error().format().c_str());
    return *p;
}

diagnose::ShapeAnalysis analyze(const ir::Model &m, const diagnose::ShapeOptions &options = {})
{
    auto a = diagnose::analyzeShapes(m, options);
    if (!a)
        qFatal("%s", a.error().format().c_str());
    return *a;
}

const diagnose::DynamicValue *valueNamed(const diagnose::ShapeAnalysis &a, const std::string &name)
{
    for (const auto &v : a.dynamicValues)
        if (v.name == name)
            return &v;
    return nullptr;
}

} // namespace

class TestDynamicShapes : public QObject {
    Q_OBJECT

private slots:
    void staticModelHasNoSources();
    void symbolicInputDimReachesItsConsumers();
    void shapeComputationIsTracedToTheInputDim();
    void dataDependentOpIsASource();
    void shapeReadFromAnInputsValuesIsASource();
    void loopScanOutputsAreASource();
    void adviceFollowsTheTarget();
    void perOpStaticShapesCountOnlyThoseNodes();
    void freezingClosesTheInputDims();
    void badFreezeIsAnError();
    void relatedDimsAreSizedTogether();
    void fixtureAsAUserRunsIt();
};

void TestDynamicShapes::staticModelHasNoSources()
{
    auto m = model("(float[2,4] x) => (float[2,4] y)", "y = Relu(x)");
    const auto a = analyze(*m);
    QVERIFY(a.sources.empty());
    QVERIFY(a.dynamicValues.empty());
    QCOMPARE(a.values, std::size_t(2));
    QVERIFY(a.freezeAll.empty());
}

void TestDynamicShapes::symbolicInputDimReachesItsConsumers()
{
    auto m = model("(float[N,4] x) => (float[N,4] y)", "t = Relu(x)\ny = Sigmoid(t)");
    const auto a = analyze(*m);
    QCOMPARE(a.sources.size(), std::size_t(1));
    const auto &s = a.sources[0];
    QCOMPARE(s.kind, DimSourceKind::InputDim);
    QCOMPARE(s.input, std::string("x"));
    QCOMPARE(s.axis, std::int64_t(0));
    QCOMPARE(s.symbol, std::string("N"));
    QCOMPARE(s.valuesReached, std::size_t(3)); // x, t, y
    QCOMPARE(s.namedValues, std::size_t(3));
    QCOMPARE(s.nodesReached.size(), std::size_t(2));
    QCOMPARE(s.outputs, std::vector<std::string>{"y"});
    QVERIFY(s.staticNodes.empty()); // no target asked
    QCOMPARE(s.advice, (std::vector<ShapeAdvice>{ShapeAdvice::Keep, ShapeAdvice::Freeze}));
    QCOMPARE(s.pipeline, std::string("freeze-shapes{input=x:1x4},fold-constants"));
    QCOMPARE(a.freezeAll, std::string("x:1x4"));
    QCOMPARE(s.label(), std::string("input 'x' axis 0 ('N')"));
}

void TestDynamicShapes::shapeComputationIsTracedToTheInputDim()
{
    // z is reshaped to x's shape: its output dims come from x's dims through Shape's values.
    auto m = model("(float[N,4] x, float[8] z) => (float[?,?] y)", "s = Shape(x)\ny = Reshape(z, s)");
    const auto a = analyze(*m);
    QCOMPARE(a.sources.size(), std::size_t(1));
    QCOMPARE(a.sources[0].kind, DimSourceKind::InputDim);
    const auto *y = valueNamed(a, "y");
    QVERIFY(y);
    QCOMPARE(y->sources, std::vector<std::size_t>{0});
    QCOMPARE(y->opType, std::string("Reshape"));
    QVERIFY(valueNamed(a, "s") == nullptr); // Shape's output is int64[2]: its shape is static
}

void TestDynamicShapes::dataDependentOpIsASource()
{
    auto m = model("(float[3,4] x) => (int64[2,?] y)", "y = NonZero(x)");
    const auto a = analyze(*m);
    QCOMPARE(a.sources.size(), std::size_t(1));
    const auto &s = a.sources[0];
    QCOMPARE(s.kind, DimSourceKind::DataDependent);
    QCOMPARE(s.opType, std::string("NonZero"));
    QVERIFY(QString::fromStdString(s.reason).contains("nonzero"));
    QCOMPARE(s.advice, std::vector<ShapeAdvice>{ShapeAdvice::Keep});

    // On a static target the same node needs a bound, and the advice says how.
    diagnose::ShapeOptions options;
    options.target = target("static");
    const auto onNpu = analyze(*m, options);
    QCOMPARE(onNpu.sources[0].advice, std::vector<ShapeAdvice>{ShapeAdvice::Pad});
    QCOMPARE(onNpu.sources[0].staticNodes.size(), std::size_t(1));
    QVERIFY(QString::fromStdString(onNpu.sources[0].suggestion).contains("TopK with a fixed K"));
}

void TestDynamicShapes::shapeReadFromAnInputsValuesIsASource()
{
    auto m = model("(float[8] z, int64[2] shape) => (float[?,?] y)", "y = Reshape(z, shape)");
    const auto a = analyze(*m);
    QCOMPARE(a.sources.size(), std::size_t(1));
    QCOMPARE(a.sources[0].kind, DimSourceKind::DataDependent);
    QCOMPARE(a.sources[0].opType, std::string("Reshape"));
    QVERIFY(QString::fromStdString(a.sources[0].reason).contains("values of 'shape', a graph input"));

    // The same shape as a constant: inference knows the output, nothing is dynamic.
    auto constant = model("(float[8] z) => (float[2,4] y)", "y = Reshape(z, shape)", "int64[2] shape = {2, 4}");
    QVERIFY(analyze(*constant).sources.empty());
}

void TestDynamicShapes::loopScanOutputsAreASource()
{
    auto m = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 13]>
g (int64 n, float[4] x) => (float[?,4] ys) {
    cond = Constant<value = bool {1}>()
    last, ys = Loop(n, cond, x) <body = step (int64 i, bool c, float[4] acc) => (bool c2, float[4] next, float[4] out) {
        c2 = Identity(c)
        next = Relu(acc)
        out = Identity(acc)
    }>
}
)");
    const auto a = analyze(*m);
    QCOMPARE(a.sources.size(), std::size_t(1));
    QCOMPARE(a.sources[0].opType, std::string("Loop"));
    QVERIFY(QString::fromStdString(a.sources[0].reason).contains("trip count"));
    QCOMPARE(a.sources[0].outputs, std::vector<std::string>{"ys"});
}

void TestDynamicShapes::adviceFollowsTheTarget()
{
    auto m = model("(float[B,3,8] x) => (float[B,3,8] y)", "y = Relu(x)");
    diagnose::ShapeOptions options;

    options.target = target("static");
    auto s = analyze(*m, options).sources.at(0);
    QCOMPARE(s.advice, std::vector<ShapeAdvice>{ShapeAdvice::Freeze}); // axis 0: a batch, no bucketing
    QCOMPARE(s.staticNodes.size(), std::size_t(1));

    options.target = target("profile");
    s = analyze(*m, options).sources.at(0);
    QCOMPARE(s.advice, (std::vector<ShapeAdvice>{ShapeAdvice::Profile, ShapeAdvice::Freeze}));
    QVERIFY(QString::fromStdString(s.suggestion).contains("--minShapes=x:1x3x8"));

    options.target = target("supported");
    s = analyze(*m, options).sources.at(0);
    QCOMPARE(s.advice, std::vector<ShapeAdvice>{ShapeAdvice::Keep});

    // A sequence axis on a static target: freeze, and bucketing when it varies.
    auto seq = model("(float[1,S,8] x) => (float[1,S,8] y)", "y = Relu(x)");
    options.target = target("static");
    s = analyze(*seq, options).sources.at(0);
    QCOMPARE(s.advice, (std::vector<ShapeAdvice>{ShapeAdvice::Freeze, ShapeAdvice::Bucket}));
}

void TestDynamicShapes::perOpStaticShapesCountOnlyThoseNodes()
{
    auto m = model("(float[N,4] x) => (float[N,4] y)", "t = Relu(x)\ny = Sigmoid(t)");
    diagnose::ShapeOptions options;
    options.target = target("supported", R"("Relu": {}, "Sigmoid": {"staticShapes": true})");
    const auto a = analyze(*m, options);
    QCOMPARE(a.sources[0].nodesReached.size(), std::size_t(2));
    QCOMPARE(a.sources[0].staticNodes.size(), std::size_t(1));
    QCOMPARE(a.sources[0].advice, std::vector<ShapeAdvice>{ShapeAdvice::Freeze});
}

void TestDynamicShapes::freezingClosesTheInputDims()
{
    auto m = model("(float[N,4] x) => (int64[2,?] y)", "t = Relu(x)\ny = NonZero(t)");
    QCOMPARE(analyze(*m).sources.size(), std::size_t(2));
    diagnose::ShapeOptions options;
    options.freeze = "x:2x4";
    const auto a = analyze(*m, options);
    QCOMPARE(a.sources.size(), std::size_t(1)); // what freezing cannot fix is left
    QCOMPARE(a.sources[0].opType, std::string("NonZero"));
    QCOMPARE(a.freezeAll, std::string("x:2x4"));
    QVERIFY(valueNamed(a, "t") == nullptr);
}

void TestDynamicShapes::relatedDimsAreSizedTogether()
{
    // a decoder step: the mask spans the cached and the new tokens; its dims name that sum
    auto m = model("(int64[batch, sequence] ids, float[batch, 4, past, 8] cache, int64[batch, total] mask, "
                   "float[batch, 3, height, width] image) => (int64[batch, sequence] y)",
                   "y = Identity(ids)");
    QVERIFY(m);
    for (const ir::ValueId v : m->graph(m->mainGraph()).inputs) // as exporters spell it (the text format cannot)
        if (m->value(v).name == "mask")
            m->value(v).info.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("past + sequence");
    // nothing given: every dim is 1, and each is named as such
    const auto blind = diagnose::freezeOpenInputs(*m);
    QCOMPARE(blind.text, std::string("ids:1x1,cache:1x4x1x8,mask:1x1,image:1x3x1x1"));
    QCOMPARE(blind.unsized.size(), std::size_t(9)); // batch four times, sequence, past, their sum, height, width
    QCOMPARE(blind.unsized.front(), std::string("ids axis 0 (batch)"));
    QVERIFY(diagnose::unsizedNote(blind).starts_with("1 stands for ids axis 0 (batch), ids axis 1 (sequence)"));
    // the sizes of the inputs used: the mask follows as past + sequence, the batch everywhere
    const auto sized = diagnose::freezeOpenInputs(*m, {{"ids", {2, 7}}, {"cache", {2, 4, 5, 8}}});
    QCOMPARE(sized.text, std::string("ids:2x7,cache:2x4x5x8,mask:2x12,image:2x3x1x1"));
    QCOMPARE(sized.unsized, (std::vector<std::string>{"image axis 2 (height)", "image axis 3 (width)"}));
    // the analysis's advice says so too
    diagnose::ShapeOptions options;
    options.target = target("static", R"("Identity": {})");
    const auto a = analyze(*m, options);
    QCOMPARE(a.freezeAll, blind.text);
    QCOMPARE(a.unsized, blind.unsized);
    const auto ids = std::find_if(a.sources.begin(), a.sources.end(), [](const auto &s) { return s.input == "ids" && s.axis == 1; });
    QVERIFY(ids != a.sources.end());
    QVERIFY2(ids->suggestion.find("1 stands for ids axis 0 (batch) and ids axis 1 (sequence)") != std::string::npos,
             ids->suggestion.c_str());
    QVERIFY2(ids->suggestion.find("cache") == std::string::npos, ids->suggestion.c_str()); // only its own dims
}

void TestDynamicShapes::badFreezeIsAnError()
{
    auto m = model("(float[N,4] x) => (float[N,4] y)", "y = Relu(x)");
    diagnose::ShapeOptions options;
    options.freeze = "x:2x5"; // 4 is static
    const auto a = diagnose::analyzeShapes(*m, options);
    QVERIFY(!a);
    QVERIFY(QString::fromStdString(a.error().format()).contains("x"));
}

void TestDynamicShapes::fixtureAsAUserRunsIt()
{
    const QString model = QString::fromStdString(test::fixturesDir() + "/transformer_opset17/model.onnx");
    auto plain = test::runPortolan({"shapes", model});
    QCOMPARE(plain.exitCode, 0);
    QVERIFY(plain.out.contains("#1 input 'input' axis 1 ('seq')"));

    auto onNpu = test::runPortolan({"shapes", model, "--target", "qnn-htp", "--json"});
    QCOMPARE(onNpu.exitCode, 1); // the target needs static shapes the seq dim reaches
    const QJsonObject json = QJsonDocument::fromJson(onNpu.out).object();
    QCOMPARE(json["schemaVersion"].toInt(), diagnose::kShapesJsonSchemaVersion);
    const QJsonArray sources = json["sources"].toArray();
    QCOMPARE(sources.size(), 1);
    const QJsonObject seq = sources[0].toObject();
    QCOMPARE(seq["kind"].toString(), QString("input-dim"));
    QCOMPARE(seq["advice"].toArray()[0].toString(), QString("freeze"));
    QCOMPARE(seq["staticNodes"].toArray().size(), seq["nodesReached"].toArray().size());
    QCOMPARE(seq["valuesReached"].toInt(), json["dynamicValues"].toArray().size());
    QCOMPARE(json["freezeAll"].toString(), QString("input:1x1x32"));

    auto frozen = test::runPortolan({"shapes", model, "--input", "input=1,16,32", "--target", "qnn-htp"});
    QCOMPARE(frozen.exitCode, 0);
    QVERIFY(frozen.out.contains("0 sources of dynamic dims"));

    auto bad = test::runPortolan({"shapes", model, "--input", "input=1,16"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("input"));
}

QTEST_GUILESS_MAIN(TestDynamicShapes)
#include "tst_DynamicShapes.moc"
