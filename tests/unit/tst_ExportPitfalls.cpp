// Export pitfalls: each rule fires on the graph an exporter's trace leaves and stays quiet on the
// graph a careful export gives, and `inspect` lists them on the fixture models.
#include "support/CliSupport.h"
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "diagnose/ExportPitfalls.h"
#include "diagnose/TargetProfile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace portolan;

namespace {

std::unique_ptr<ir::Model> model(const std::string &signature, const std::string &body, const std::string &weights = {},
                                 int opset = 13, const std::string &extraImports = {})
{
    return test::modelFromText("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + extraImports +
                               "]>\ng " + signature + (weights.empty() ? std::string() : "\n<" + weights + ">") +
                               "\n{\n" + body + "\n}\n");
}

std::vector<diagnose::TargetProfile> shippedTargets() { return diagnose::listTargetProfiles().profiles; }

/// The findings of `m` with `code`.
support::Diagnostics withCode(const ir::Model &m, const std::string &code,
                              const std::vector<diagnose::TargetProfile> &targets = {})
{
    support::Diagnostics out;
    for (auto &d : diagnose::findExportPitfalls(m, targets))
        if (d.code == code)
            out.push_back(std::move(d));
    return out;
}

bool mentions(const support::Diagnostic &d, const char *text)
{
    const bool found = QString::fromStdString(d.message).contains(QString::fromUtf8(text));
    if (!found)
        qWarning("'%s' not in: %s", text, d.message.c_str());
    return found;
}

diagnose::TargetProfile profileWithOpsetCeiling(int max)
{
    auto p = diagnose::parseTargetProfile(R"({"format": "portolan-target/1", "id": "old-npu", "name": "Old NPU",
        "source": {"document": "a test", "version": "1"}, "opsets": {"ai.onnx": {"max": )" +
                                              std::to_string(max) + R"(}}, "ops": {"Relu": {}}})",
                                          "test profile");
    if (!p)
        qFatal("%s", p.error().format().c_str());
    return *p;
}

} // namespace

class TestExportPitfalls : public QObject {
    Q_OBJECT

private slots:
    void reshapeToTheExamplesShapeIsBaked();
    void expandToTheExamplesSizeIsBaked();
    void constantIfCondition();
    void constantSmallTripCount();
    void batchNormInTrainingMode();
    void dropoutInTrainingMode();
    void leftoversAreGroupedPerOp();
    void customDomainNamesTheTargetsThatRunIt();
    void opsetAheadOfTargets();
    void inspectListsThemOnFixtures();
};

void TestExportPitfalls::reshapeToTheExamplesShapeIsBaked()
{
    // The trace saw N = 2: [N,4] → [8] fits only that example.
    auto baked = model("(float[N,4] x) => (float[8] y)", "y = Reshape(x, shape)", "int64[1] shape = {8}");
    const auto found = withCode(*baked, "baked-shape");
    QCOMPARE(found.size(), std::size_t(1));
    QCOMPARE(found[0].severity, support::Severity::Warning);
    QCOMPARE(found[0].value, std::string("shape"));
    QVERIFY(mentions(found[0], "constant [8]"));
    QVERIFY(mentions(found[0], "'N'"));

    // -1 for the open dim follows N; a reshape that keeps the element count whatever N is fine too.
    auto flexible = model("(float[N,4] x) => (float[?] y)", "y = Reshape(x, shape)", "int64[1] shape = {-1}");
    QVERIFY(withCode(*flexible, "baked-shape").empty());
    auto staticInput = model("(float[2,4] x) => (float[8] y)", "y = Reshape(x, shape)", "int64[1] shape = {8}");
    QVERIFY(withCode(*staticInput, "baked-shape").empty());
}

void TestExportPitfalls::expandToTheExamplesSizeIsBaked()
{
    auto baked = model("(float[N,1] x) => (float[4,3] y)", "y = Expand(x, shape)", "int64[2] shape = {4, 3}");
    const auto found = withCode(*baked, "baked-shape");
    QCOMPARE(found.size(), std::size_t(1));
    QVERIFY(mentions(found[0], "expands to the constant [4,3]"));
    QVERIFY(mentions(found[0], "dim 0"));

    // 1 in the shape keeps the input's own size: that is what a careful export writes.
    auto keeps = model("(float[N,1] x) => (float[N,3] y)", "y = Expand(x, shape)", "int64[2] shape = {1, 3}");
    QVERIFY(withCode(*keeps, "baked-shape").empty());
}

void TestExportPitfalls::constantIfCondition()
{
    const std::string branches = R"(<then_branch = t () => (float[2] a) { a = Neg(x) },
                                     else_branch = e () => (float[2] b) { b = Relu(x) }>)";
    auto fixed = model("(float[2] x) => (float[2] y)", "y = If(c) " + branches, "bool c = {1}");
    const auto found = withCode(*fixed, "constant-if");
    QCOMPARE(found.size(), std::size_t(1));
    QCOMPARE(found[0].value, std::string("c"));
    QVERIFY(mentions(found[0], "constant true"));
    QVERIFY(mentions(found[0], "only then_branch"));

    auto decided = model("(bool c, float[2] x) => (float[2] y)", "y = If(c) " + branches);
    QVERIFY(withCode(*decided, "constant-if").empty());
}

void TestExportPitfalls::constantSmallTripCount()
{
    const std::string body = R"(y = Loop(m, cond, x) <body = b (int64 i, bool c, float[1] v) => (bool c2, float[1] w) {
        c2 = Identity(c)
        w = Relu(v)
    }>)";
    auto traced = model("(float[1] x) => (float[1] y)", body, "int64 m = {5}, bool cond = {1}");
    const auto found = withCode(*traced, "constant-trip-count");
    QCOMPARE(found.size(), std::size_t(1));
    QVERIFY(mentions(found[0], "constant 5"));
    QVERIFY(mentions(found[0], "5 times"));

    auto fromInput = model("(int64 m, float[1] x) => (float[1] y)", body, "bool cond = {1}");
    QVERIFY(withCode(*fromInput, "constant-trip-count").empty());
    auto large = model("(float[1] x) => (float[1] y)", body, "int64 m = {1000}, bool cond = {1}");
    QVERIFY(withCode(*large, "constant-trip-count").empty()); // past kSmallTripCount: a real constant
}

void TestExportPitfalls::batchNormInTrainingMode()
{
    const std::string weights = "float[2] s = {1, 1}, float[2] b = {0, 0}, float[2] mean = {0, 0}, float[2] var = {1, 1}";
    auto training = model("(float[1,2,3] x) => (float[1,2,3] y)",
                          "y, rm, rv = BatchNormalization <training_mode = 1> (x, s, b, mean, var)", weights, 14);
    const auto found = withCode(*training, "training-mode");
    QCOMPARE(found.size(), std::size_t(1));
    QVERIFY(mentions(found[0], "training_mode is 1"));
    QVERIFY(mentions(found[0], "model.eval()"));

    auto inference = model("(float[1,2,3] x) => (float[1,2,3] y)", "y = BatchNormalization(x, s, b, mean, var)",
                           weights, 14);
    QVERIFY(withCode(*inference, "training-mode").empty());
}

void TestExportPitfalls::dropoutInTrainingMode()
{
    auto training = model("(float[4] x) => (float[4] y)", "y = Dropout(x, ratio, on)", "float ratio = {0.5}, bool on = {1}");
    const auto found = withCode(*training, "training-mode");
    QCOMPARE(found.size(), std::size_t(1));
    QVERIFY(mentions(found[0], "training_mode is true"));
    QVERIFY(withCode(*training, "export-leftover").empty()); // it drops: not a no-op leftover

    auto runtime = model("(float[4] x, bool on) => (float[4] y)", "y = Dropout(x, ratio, on)", "float ratio = {0.5}");
    QCOMPARE(withCode(*runtime, "training-mode").size(), std::size_t(1));

    auto inference = model("(float[4] x) => (float[4] y)", "y = Dropout(x)");
    QVERIFY(withCode(*inference, "training-mode").empty());
    QCOMPARE(withCode(*inference, "export-leftover").size(), std::size_t(1));
}

void TestExportPitfalls::leftoversAreGroupedPerOp()
{
    auto m = model("(float[4] x) => (float[4] y)", "a = Identity(x)\nb = Relu(a)\nc = Identity(b)\ny = Dropout(c)");
    const auto found = withCode(*m, "export-leftover");
    QCOMPARE(found.size(), std::size_t(2)); // one for Dropout, one for the two Identity nodes
    QCOMPARE(found[0].severity, support::Severity::Info);
    QVERIFY(mentions(found[0], "1 Dropout node"));
    QVERIFY(mentions(found[1], "2 Identity nodes"));

    auto clean = model("(float[4] x) => (float[4] y)", "y = Relu(x)");
    QVERIFY(diagnose::findExportPitfalls(*clean, shippedTargets()).empty());
}

void TestExportPitfalls::customDomainNamesTheTargetsThatRunIt()
{
    auto m = model("(float[4] x) => (float[4] y)", "a = com.vendor.Swish(x)\ny = com.vendor.Swish(a)", {}, 13,
                   ", \"com.vendor\" : 1");
    auto found = withCode(*m, "custom-domain", shippedTargets());
    QCOMPARE(found.size(), std::size_t(1));
    QVERIFY(mentions(found[0], "2 com.vendor:Swish nodes"));
    QVERIFY(mentions(found[0], "none of the shipped target profiles lists it"));

    auto microsoft = model("(float[2,2] x, float[2,2] w) => (float[2,2] y)", "y = com.microsoft.FusedMatMul(x, w)", {},
                           13, ", \"com.microsoft\" : 1");
    found = withCode(*microsoft, "custom-domain", shippedTargets());
    QCOMPARE(found.size(), std::size_t(1));
    QVERIFY(mentions(found[0], "mobile")); // onnx2tf lowers FusedMatMul
}

void TestExportPitfalls::opsetAheadOfTargets()
{
    auto m = model("(float[4] x) => (float[4] y)", "y = Relu(x)");
    const auto found = withCode(*m, "opset-ahead-of-targets", {profileWithOpsetCeiling(12)});
    QCOMPARE(found.size(), std::size_t(1));
    QVERIFY(mentions(found[0], "opset 13"));
    QVERIFY(mentions(found[0], "old-npu (≤ 12)"));
    QVERIFY(mentions(found[0], "convert-opset{target=12}"));
    QVERIFY(withCode(*m, "opset-ahead-of-targets", {profileWithOpsetCeiling(13)}).empty());
}

void TestExportPitfalls::inspectListsThemOnFixtures()
{
    const auto codesOf = [](const QString &fixture) {
        auto run = test::runPortolan(
            {"inspect", QString::fromStdString(test::fixturesDir()) + "/" + fixture + "/model.onnx", "--json"});
        QStringList codes;
        if (run.exitCode != 0) {
            qWarning("inspect %s: exit %d: %s", qPrintable(fixture), run.exitCode, run.err.constData());
            return codes;
        }
        for (const auto &f : QJsonDocument::fromJson(run.out).object()["findings"].toArray())
            codes << f.toObject()["code"].toString();
        return codes;
    };
    // The transformer export computes its attention reshapes from Shape at run time.
    QCOMPARE(codesOf("transformer_opset17"), QStringList{"int64-shape-chain"});
    // torch leaves an Identity in the control-flow export's If branch.
    QCOMPARE(codesOf("control_flow"), QStringList{"export-leftover"});
    QCOMPARE(codesOf("cnn_bn"), QStringList{}); // exported after eval(): nothing to say
}

QTEST_GUILESS_MAIN(TestExportPitfalls)
#include "tst_ExportPitfalls.moc"
