// Target profiles and `portolan check`: every rule on crafted graphs (a case that breaks it and one
// that does not), the fixes measured on copies, the partition count, the shipped profiles, and the
// fixture models as a user checks them.
#include "support/CliSupport.h"
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "diagnose/CheckFormat.h"
#include "diagnose/TargetCheck.h"
#include "diagnose/TargetProfile.h"
#include "session/Workbench.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace portolan;
using diagnose::Cause;

Q_DECLARE_METATYPE(std::string)

namespace {

/// A profile named "Test NPU" whose top level is `extra` (JSON members, may be empty) and whose ops are `ops`.
diagnose::TargetProfile profile(const std::string &ops, const std::string &extra = {})
{
    const std::string text = R"({"format": "portolan-target/1", "id": "test-npu", "name": "Test NPU",
        "source": {"document": "a test", "version": "1"}, )" +
                             (extra.empty() ? std::string() : extra + ", ") + "\"ops\": {" + ops + "}}";
    auto p = diagnose::parseTargetProfile(text, "test profile");
    if (!p)
        qFatal("%s", p.error().format().c_str());
    return *p;
}

/// A model at `opset` with `signature` and `body` (ONNX text syntax), initializers in `weights`.
std::unique_ptr<ir::Model> model(int opset, const std::string &signature, const std::string &body,
                                 const std::string &weights = {})
{
    return test::modelFromText("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\ng " + signature +
                               (weights.empty() ? std::string() : "\n<" + weights + ">") + "\n{\n" + body + "\n}\n");
}

/// The causes found, as "cause:OpType" keys ("dynamic-shape:*" for a target-wide group).
QStringList causes(const std::vector<diagnose::ProblemGroup> &groups)
{
    QStringList out;
    for (const auto &g : groups)
        out << QString("%1:%2").arg(diagnose::causeKey(g.cause), g.opType.empty() ? "*" : QString::fromStdString(g.opType));
    return out;
}

const diagnose::Fix *fixOf(const diagnose::ProblemGroup &group, diagnose::FixKind kind)
{
    for (const diagnose::Fix &f : group.fixes)
        if (f.kind == kind)
            return &f;
    return nullptr;
}

} // namespace

class TestTargetCheck : public QObject {
    Q_OBJECT

private slots:
    void rules_data();
    void rules();

    void profileErrorsNameTheKey_data();
    void profileErrorsNameTheKey();
    void shippedProfilesCiteTheirSources();
    void userProfileDirectoryComesFirst();

    void functionOpsExpandWhereTheTargetDoes();
    void subgraphNodesAreChecked();
    void opsetFixIsMeasured();
    void decompositionFixIsMeasured();
    void shapeFixesAreMeasured();
    void partitionsCountCrossingsWithoutCycles();

    void fixtureOnTensorRtIsSupported();
    void fixtureOnStaticTargetGetsAWorkingPipeline();
    void cliExitCodesAndJson();
};

void TestTargetCheck::rules_data()
{
    QTest::addColumn<std::string>("ops");
    QTest::addColumn<std::string>("extra");
    QTest::addColumn<int>("opset");
    QTest::addColumn<std::string>("signature");
    QTest::addColumn<std::string>("body");
    QTest::addColumn<std::string>("weights");
    QTest::addColumn<QStringList>("expected");

    const std::string x24 = "(float[2,4] x) => (float[2,4] y)";
    QTest::newRow("missing op") << std::string(R"("Relu": {})") << std::string() << 13 << x24
                                << std::string("y = Sigmoid(x)") << std::string() << QStringList{"missing-op:Sigmoid"};
    QTest::newRow("listed op") << std::string(R"("Relu": {})") << std::string() << 13 << x24 << std::string("y = Relu(x)")
                               << std::string() << QStringList{};
    QTest::newRow("unknown domain") << std::string(R"("Relu": {})") << std::string() << 13 << x24
                                    << std::string("y = com.vendor.Magic(x)") << std::string()
                                    << QStringList{"missing-op:Magic"};
    QTest::newRow("opset too old") << std::string(R"("Relu": {"opsets": {"min": 14}})") << std::string() << 13 << x24
                                   << std::string("y = Relu(x)") << std::string() << QStringList{"opset-too-old:Relu"};
    QTest::newRow("opset in range") << std::string(R"("Relu": {"opsets": {"min": 13}})") << std::string() << 13 << x24
                                    << std::string("y = Relu(x)") << std::string() << QStringList{};
    QTest::newRow("opset too new") << std::string(R"("Relu": {"opsets": {"max": 12}})") << std::string() << 13 << x24
                                   << std::string("y = Relu(x)") << std::string() << QStringList{"opset-too-new:Relu"};
    QTest::newRow("op element type") << std::string(R"("Relu": {"dtypes": ["float16"]})") << std::string() << 13 << x24
                                     << std::string("y = Relu(x)") << std::string() << QStringList{"element-type:Relu"};
    QTest::newRow("op element type met")
        << std::string(R"("Relu": {"dtypes": ["float16"]})") << std::string() << 13
        << std::string("(float16[2,4] x) => (float16[2,4] y)") << std::string("y = Relu(x)") << std::string() << QStringList{};
    QTest::newRow("target element type") << std::string(R"("Relu": {})") << std::string(R"("dtypes": ["float"])") << 13
                                         << std::string("(double[2,4] x) => (double[2,4] y)") << std::string("y = Relu(x)")
                                         << std::string() << QStringList{"element-type:Relu"};
    QTest::newRow("input element type")
        << std::string(R"("Reshape": {"inputs": {"1": {"dtypes": ["int32"]}}})") << std::string() << 13
        << std::string("(float[2,4] x) => (float[4,2] y)") << std::string("y = Reshape(x, s)")
        << std::string("int64[2] s = {4, 2}") << QStringList{"element-type:Reshape"};
    QTest::newRow("attribute above max")
        << std::string(R"("LeakyRelu": {"attributes": {"alpha": {"max": 0.5}}})") << std::string() << 13 << x24
        << std::string("y = LeakyRelu <alpha = 0.9> (x)") << std::string() << QStringList{"attribute-value:LeakyRelu"};
    QTest::newRow("attribute within max")
        << std::string(R"("LeakyRelu": {"attributes": {"alpha": {"max": 0.5}}})") << std::string() << 13 << x24
        << std::string("y = LeakyRelu <alpha = 0.1> (x)") << std::string() << QStringList{};
    QTest::newRow("attribute default not allowed")
        << std::string(R"("Gemm": {"attributes": {"transB": {"in": [1]}}})") << std::string() << 13
        << std::string("(float[2,4] x) => (float[2,3] y)") << std::string("y = Gemm(x, w)")
        << std::string("float[4,3] w = {1,2,3,4,5,6,7,8,9,10,11,12}") << QStringList{"attribute-value:Gemm"};
    QTest::newRow("string attribute forbidden")
        << std::string(R"("Pad": {"attributes": {"mode": {"notIn": ["reflect"]}}})") << std::string() << 13
        << std::string("(float[2,4] x) => (float[2,6] y)") << std::string("y = Pad <mode = \"reflect\"> (x, p)")
        << std::string("int64[4] p = {0, 1, 0, 1}") << QStringList{"attribute-value:Pad"};
    QTest::newRow("int list element")
        << std::string(R"("MaxPool": {"attributes": {"dilations": {"in": [1]}}})") << std::string() << 13
        << std::string("(float[1,1,6,6] x) => (float[1,1,2,2] y)")
        << std::string("y = MaxPool <kernel_shape = [2, 2], dilations = [2, 2]> (x)") << std::string()
        << QStringList{"attribute-value:MaxPool"};
    QTest::newRow("computed input must be constant")
        << std::string(R"("Reshape": {"inputs": {"1": {"constant": true}}}, "Shape": {})") << std::string() << 13
        << std::string("(float[2,4] x) => (float[2,4] y)") << std::string("s = Shape(x)\n y = Reshape(x, s)")
        << std::string() << QStringList{"non-constant-input:Reshape"};
    QTest::newRow("initializer input is constant")
        << std::string(R"("Reshape": {"inputs": {"1": {"constant": true}}})") << std::string() << 13
        << std::string("(float[2,4] x) => (float[4,2] y)") << std::string("y = Reshape(x, s)")
        << std::string("int64[2] s = {4, 2}") << QStringList{};
    QTest::newRow("rank above the target's") << std::string(R"("Relu": {})") << std::string(R"("maxRank": 4)") << 13
                                             << std::string("(float[1,1,1,2,4] x) => (float[1,1,1,2,4] y)")
                                             << std::string("y = Relu(x)") << std::string() << QStringList{"rank:Relu"};
    QTest::newRow("rank above the op's") << std::string(R"("Relu": {"maxRank": 1})") << std::string() << 13 << x24
                                         << std::string("y = Relu(x)") << std::string() << QStringList{"rank:Relu"};
    QTest::newRow("static target, symbolic dim")
        << std::string(R"("Relu": {})") << std::string(R"("dynamicShapes": "static")") << 13
        << std::string("(float[N,4] x) => (float[N,4] y)") << std::string("y = Relu(x)") << std::string()
        << QStringList{"dynamic-shape:*"};
    QTest::newRow("static target, static dims")
        << std::string(R"("Relu": {})") << std::string(R"("dynamicShapes": "static")") << 13 << x24
        << std::string("y = Relu(x)") << std::string() << QStringList{};
    QTest::newRow("op needs static shapes")
        << std::string(R"("Relu": {"staticShapes": true})") << std::string(R"("dynamicShapes": "profile")") << 13
        << std::string("(float[N,4] x) => (float[N,4] y)") << std::string("y = Relu(x)") << std::string()
        << QStringList{"dynamic-shape:Relu"};
    QTest::newRow("profile target, symbolic dim")
        << std::string(R"("Relu": {})") << std::string(R"("dynamicShapes": "profile")") << 13
        << std::string("(float[N,4] x) => (float[N,4] y)") << std::string("y = Relu(x)") << std::string() << QStringList{};
}

void TestTargetCheck::rules()
{
    QFETCH(std::string, ops);
    QFETCH(std::string, extra);
    QFETCH(int, opset);
    QFETCH(std::string, signature);
    QFETCH(std::string, body);
    QFETCH(std::string, weights);
    QFETCH(QStringList, expected);
    auto m = model(opset, signature, body, weights);
    QVERIFY(m);
    const auto scan = diagnose::findProblems(*m, profile(ops, extra));
    QCOMPARE(causes(scan.groups), expected);
    for (const auto &g : scan.groups)
        for (const auto &p : g.nodes)
            QVERIFY2(!p.detail.empty() && !p.nodeName.empty(), p.detail.c_str());
}

void TestTargetCheck::profileErrorsNameTheKey_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    const QString head = R"({"format": "portolan-target/1", "id": "t", "name": "T", "source": {"document": "d", "version": "1"}, )";
    QTest::newRow("not json") << "{" << "not valid JSON";
    QTest::newRow("format") << R"({"format": "other", "ops": {}})" << "'format'";
    QTest::newRow("no source") << R"({"format": "portolan-target/1", "id": "t", "name": "T", "ops": {"Relu": {}}})"
                               << "'source'";
    QTest::newRow("unknown key") << head + R"("ops": {"Relu": {"colour": 1}}})" << "'ops.Relu.colour'";
    QTest::newRow("bad dtype") << head + R"("ops": {"Relu": {"dtypes": ["float33"]}}})" << "float33";
    QTest::newRow("range") << head + R"("opsets": {"ai.onnx": {"min": 9, "max": 7}}, "ops": {"Relu": {}}})"
                           << "'opsets.ai.onnx'";
    QTest::newRow("input index") << head + R"("ops": {"Relu": {"inputs": {"x": {}}}}})" << "'ops.Relu.inputs'";
    QTest::newRow("dynamic") << head + R"("dynamicShapes": "sometimes", "ops": {"Relu": {}}})" << "'dynamicShapes'";
    QTest::newRow("no ops") << head + R"("ops": {}})" << "'ops'";
}

void TestTargetCheck::profileErrorsNameTheKey()
{
    QFETCH(QString, json);
    QFETCH(QString, expected);
    const auto p = diagnose::parseTargetProfile(json.toStdString(), "my.json");
    QVERIFY(!p);
    const QString message = QString::fromStdString(p.error().format());
    QVERIFY2(message.contains("my.json") && message.contains(expected), qPrintable(message));
}

void TestTargetCheck::shippedProfilesCiteTheirSources()
{
    const auto listing = diagnose::listTargetProfiles();
    for (const auto &e : listing.problems)
        QFAIL(e.format().c_str());
    QStringList ids;
    for (const auto &p : listing.profiles) {
        ids << QString::fromStdString(p.id);
        QVERIFY2(!p.source.document.empty() && !p.source.version.empty() && p.source.url.starts_with("https://"),
                 p.id.c_str());
        QVERIFY2(p.ops.size() >= 50, p.id.c_str()); // AWS's ONNX list, the shortest, has 66
        QVERIFY2(p.opsets.contains(""), p.id.c_str());
        // Every profile takes a plain convolution network's core ops.
        for (const char *op : {"Conv", "Relu", "Add", "MatMul", "Reshape", "Concat"})
            QVERIFY2(p.op("", op), (p.id + " lacks " + op).c_str());
    }
    for (const char *id : {"onnxruntime-cpu", "tensorrt-10", "openvino", "qnn-htp", "neuron", "mobile"})
        QVERIFY2(ids.contains(id), id);
}

void TestTargetCheck::userProfileDirectoryComesFirst()
{
    QTemporaryDir dir;
    QFile file(dir.filePath("tensorrt-10.json"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "portolan-target/1", "id": "tensorrt-10", "name": "My TensorRT",
                   "source": {"document": "mine", "version": "0"}, "ops": {"Relu": {}}})");
    file.close();
    auto path = diagnose::targetSearchPath();
    path.insert(path.begin(), dir.path().toStdString());
    const auto found = diagnose::findTargetProfile("tensorrt-10", path);
    QVERIFY(found);
    QCOMPARE(found->name, std::string("My TensorRT"));
    const auto missing = diagnose::findTargetProfile("no-such-target", path);
    QVERIFY(!missing);
    QVERIFY(missing.error().format().find("tensorrt-10") != std::string::npos); // names what exists
}

void TestTargetCheck::functionOpsExpandWhereTheTargetDoes()
{
    // ONNX defines HardSwish as x · HardSigmoid(x).
    auto m = model(14, "(float[2,4] x) => (float[2,4] y)", "y = HardSwish(x)");
    QVERIFY(m);
    const std::string ops = R"("HardSigmoid": {}, "Mul": {})";
    QCOMPARE(causes(diagnose::findProblems(*m, profile(ops, R"("expandsFunctions": true)")).groups), QStringList{});
    QCOMPARE(causes(diagnose::findProblems(*m, profile(ops)).groups), QStringList{"missing-op:HardSwish"});
    const auto lacking = diagnose::findProblems(*m, profile(R"("Mul": {})", R"("expandsFunctions": true)"));
    QCOMPARE(causes(lacking.groups), QStringList{"missing-op:HardSwish"});
    QVERIFY(lacking.groups[0].nodes[0].detail.find("HardSigmoid") != std::string::npos);
}

void TestTargetCheck::subgraphNodesAreChecked()
{
    session::Workbench workbench;
    QVERIFY(workbench.open(test::fixturesDir() + "/control_flow/model.onnx"));
    // A target with the main graph's ops but nothing else: the bodies' nodes are named in their graphs.
    std::string ops;
    for (const ir::NodeId n : workbench.model().graph(workbench.model().mainGraph()).nodes)
        ops += (ops.empty() ? "\"" : ", \"") + workbench.model().node(n).opType + "\": {}";
    const auto check = workbench.checkTarget(profile(ops), {.tryFixes = false});
    QVERIFY(check.unsupportedNodes > 0);
    for (const auto &g : check.groups)
        for (const auto &p : g.nodes)
            QVERIFY2(p.graph != "main", p.nodeName.c_str());
    // Their owners fall back with them: one host partition at least.
    QVERIFY(check.partitions.fallbackPartitions >= 1);
}

void TestTargetCheck::opsetFixIsMeasured()
{
    auto m = model(12, "(float[2,4] x) => (float[2,4] y)", "y = Relu(x)");
    QVERIFY(m);
    const auto check = diagnose::checkTarget(*m, profile(R"("Relu": {"opsets": {"min": 13}})", R"("opsets": {"ai.onnx": {"min": 13, "max": 17}})"));
    QCOMPARE(causes(check.groups), QStringList{"opset-too-old:Relu"});
    QVERIFY(support::hasErrors(check.modelFindings)); // the model's opset 12 is below the target's range too
    const diagnose::Fix &first = check.groups[0].fixes.front();
    QCOMPARE(first.kind, diagnose::FixKind::ConvertOpset);
    QCOMPARE(first.pipeline, std::string("convert-opset{target=13}"));
    QVERIFY2(first.tried && first.failure.empty(), first.failure.c_str());
    QCOMPARE(first.fixedNodes, std::size_t(1));
    QCOMPARE(first.unsupportedAfter, std::size_t(0));
    QVERIFY(check.groups[0].fixes.back().kind == diagnose::FixKind::Plugin); // the last resort comes last
}

void TestTargetCheck::decompositionFixIsMeasured()
{
    auto m = model(17, "(float[2,3,8] x) => (float[2,3,8] y)", "y = LayerNormalization <axis = -1> (x, g, b)",
                   "float[8] g = {1,1,1,1,1,1,1,1}, float[8] b = {0,0,0,0,0,0,0,0}");
    QVERIFY(m);
    const std::string primitives = R"("ReduceMean": {}, "Sub": {}, "Pow": {}, "Add": {}, "Sqrt": {}, "Div": {}, "Mul": {})";
    const auto check = diagnose::checkTarget(*m, profile(primitives));
    QCOMPARE(causes(check.groups), QStringList{"missing-op:LayerNormalization"});
    const diagnose::Fix *decompose = fixOf(check.groups[0], diagnose::FixKind::Decompose);
    QVERIFY(decompose);
    QCOMPARE(decompose->pipeline, std::string("decompose{ops=LayerNormalization}"));
    QCOMPARE(decompose->fixedNodes, std::size_t(1));
    QCOMPARE(decompose->unsupportedAfter, std::size_t(0));
    QVERIFY(std::find(decompose->createdOps.begin(), decompose->createdOps.end(), "ReduceMean") != decompose->createdOps.end());
    // A target lacking one primitive: the decomposition is tried, and said not to be enough.
    const auto partial = diagnose::checkTarget(*m, profile(R"("ReduceMean": {}, "Sub": {}, "Add": {}, "Div": {}, "Mul": {})"));
    const diagnose::Fix *tried = fixOf(partial.groups[0], diagnose::FixKind::Decompose);
    QVERIFY(tried && tried->tried);
    QVERIFY(tried->unsupportedAfter > 0);
    QVERIFY(partial.combined);
    QVERIFY(partial.combined->unsupportedAfter > 0);
}

void TestTargetCheck::shapeFixesAreMeasured()
{
    // Reshape to a shape computed from x's dynamic dims: frozen and folded, it becomes a constant.
    auto m = model(13, "(float[N,4] x) => (float[N,2,2] y)",
                   "s = Shape(x)\n n = Gather <axis = 0> (s, zero)\n n1 = Unsqueeze(n, axes)\n"
                   " t = Concat <axis = 0> (n1, two, two)\n y = Reshape(x, t)",
                   "int64 zero = {0}, int64[1] axes = {0}, int64[1] two = {2}");
    QVERIFY(m);
    const auto p = profile(R"("Shape": {}, "Gather": {}, "Unsqueeze": {}, "Concat": {}, "Reshape": {"inputs": {"1": {"constant": true}}})",
                           R"("dynamicShapes": "static")");
    const auto check = diagnose::checkTarget(*m, p);
    QCOMPARE(causes(check.groups), (QStringList{"non-constant-input:Reshape", "dynamic-shape:*"}));
    QVERIFY(support::hasErrors(check.modelFindings)); // the input itself is named
    const diagnose::Fix *freeze = fixOf(check.groups[0], diagnose::FixKind::FreezeShapes);
    QVERIFY(freeze);
    QCOMPARE(freeze->pipeline, std::string("freeze-shapes{input=x:1x4},fold-constants"));
    QCOMPARE(freeze->fixedNodes, std::size_t(1));
    QVERIFY(check.combined);
    QCOMPARE(check.combined->unsupportedAfter, std::size_t(0));
    const std::string text = diagnose::checkText(check);
    QVERIFY2(text.find("--pipeline 'freeze-shapes{input=x:1x4},fold-constants,infer-shapes'") != std::string::npos,
             text.c_str());
}

void TestTargetCheck::partitionsCountCrossingsWithoutCycles()
{
    // a → Relu → Sigmoid (host) → Relu → Add(·, first Relu): the Add reads the host's output, so it
    // cannot join the first Relu's partition without a cycle.
    auto m = model(13, "(float[2,4] x) => (float[2,4] y)",
                   "a = Relu(x)\n h = Sigmoid(a)\n b = Relu(h)\n y = Add(a, b)");
    QVERIFY(m);
    const auto check = diagnose::checkTarget(*m, profile(R"("Relu": {}, "Add": {})"), {.tryFixes = false});
    QCOMPARE(check.unsupportedNodes, std::size_t(1));
    QCOMPARE(check.partitions.fallbackPartitions, std::size_t(1));
    QCOMPARE(check.partitions.targetPartitions, std::size_t(2));
    QCOMPARE(check.partitions.crossingTensors, std::size_t(2)); // a to the host, h back
    QCOMPARE(check.partitions.crossingBytes, std::uint64_t(2 * 8 * 4));
    const auto all = diagnose::checkTarget(*m, profile(R"("Relu": {}, "Add": {}, "Sigmoid": {})"), {.tryFixes = false});
    QVERIFY(all.supported());
    QCOMPARE(all.partitions.targetPartitions, std::size_t(1));
    QCOMPARE(all.partitions.crossingTensors, std::size_t(0));
}

void TestTargetCheck::fixtureOnTensorRtIsSupported()
{
    session::Workbench workbench;
    QVERIFY(workbench.open(test::fixturesDir() + "/transformer_opset17/model.onnx"));
    const auto trt = diagnose::findTargetProfile("tensorrt-10");
    QVERIFY(trt);
    const auto check = workbench.checkTarget(*trt);
    QVERIFY(check.supported());
    QCOMPARE(check.nodes, std::size_t(104));
    // Dynamic 'seq' on a profile target: a note for the build, not a failure.
    QCOMPARE(check.modelFindings.size(), std::size_t(1));
    QCOMPARE(check.modelFindings[0].code, std::string("shape-profile-needed"));
}

void TestTargetCheck::fixtureOnStaticTargetGetsAWorkingPipeline()
{
    session::Workbench workbench;
    QVERIFY(workbench.open(test::fixturesDir() + "/transformer_opset17/model.onnx"));
    const auto mobile = diagnose::findTargetProfile("mobile");
    QVERIFY(mobile);
    const auto check = workbench.checkTarget(*mobile);
    QVERIFY(!check.supported());
    QVERIFY(causes(check.groups).contains("dynamic-shape:*"));
    QVERIFY(check.partitions.fallbackPartitions > 0 && check.partitions.crossingTensors > 0);
    QVERIFY(check.combined);
    QVERIFY2(check.combined->pipeline.starts_with("freeze-shapes{input=input:1x1x32}"), check.combined->pipeline.c_str());
    QCOMPARE(check.combined->unsupportedAfter, std::size_t(0));
    bool saysWhichOne = false; // the 1 stands for a size nothing told, and a freeze fix says which
    for (const auto &g : check.groups)
        for (const auto &f : g.fixes)
            saysWhichOne = saysWhichOne || f.summary.find("1 stands for input axis 1 (seq)") != std::string::npos;
    QVERIFY(saysWhichOne);
    // at the sizes the model runs with (its test set), the fixes freeze those, and say nothing of 1s
    auto sizes = workbench.inputSizesOf(test::fixturesDir() + "/transformer_opset17/test_data_set_0");
    QVERIFY2(sizes, sizes ? "" : sizes.error().format().c_str());
    diagnose::CheckOptions atTheirSizes;
    atTheirSizes.inputSizes = *sizes;
    const auto sized = workbench.checkTarget(*mobile, atTheirSizes);
    QVERIFY(sized.combined);
    QVERIFY2(sized.combined->pipeline.starts_with("freeze-shapes{input=input:1x8x32}"), sized.combined->pipeline.c_str());
    QCOMPARE(sized.combined->unsupportedAfter, std::size_t(0));
    for (const auto &g : sized.groups)
        for (const auto &f : g.fixes)
            QVERIFY2(f.summary.find("stands for") == std::string::npos, f.summary.c_str());
}

void TestTargetCheck::cliExitCodesAndJson()
{
    const QString model = QString::fromStdString(test::fixturesDir() + "/transformer_opset17/model.onnx");
    auto ok = test::runPortolan({"check", model, "--target", "tensorrt-10"});
    QCOMPARE(ok.exitCode, 0);
    QVERIFY(ok.out.contains("All 104 nodes can run"));

    auto failing = test::runPortolan({"check", model, "--target", "mobile", "--json"});
    QCOMPARE(failing.exitCode, 1);
    const QJsonObject json = QJsonDocument::fromJson(failing.out).object();
    QCOMPARE(json["supported"].toBool(), false);
    QCOMPARE(json["target"].toObject()["id"].toString(), QString("mobile"));
    QVERIFY(!json["groups"].toArray().isEmpty());
    QCOMPARE(json["combined"].toObject()["unsupportedAfter"].toInt(), 0);
    QCOMPARE(json["combined"].toObject()["kind"].toString(), QString("combined"));
    QCOMPARE(json["modelFindings"].toArray()[0].toObject()["code"].toString(), QString("dynamic-inputs"));

    auto unknown = test::runPortolan({"check", model, "--target", "no-such-npu"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY(unknown.err.contains("tensorrt-10"));

    auto listed = test::runPortolan({"check", "--list-targets"});
    QCOMPARE(listed.exitCode, 0);
    QVERIFY(listed.out.contains("qnn-htp") && listed.out.contains("openvino"));
}

QTEST_GUILESS_MAIN(TestTargetCheck)
#include "tst_TargetCheck.moc"
