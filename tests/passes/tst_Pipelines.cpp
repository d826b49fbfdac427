// Whole pipelines on the fixture models: -O1/-O2 keep the numbers, are idempotent, record provenance
// that points at original nodes, and leave the fused ops the targets expect.
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "passes/Pipeline.h"

#include <QTest>

using namespace portolan;

class tst_Pipelines : public QObject {
    Q_OBJECT
private slots:
    void presetsKeepNumericsOnEveryFixture_data();
    void presetsKeepNumericsOnEveryFixture();
    void secondO2ChangesNothing_data() { presetsKeepNumericsOnEveryFixture_data(); }
    void secondO2ChangesNothing();
    void secondO3ChangesNothing_data() { presetsKeepNumericsOnEveryFixture_data(); }
    void secondO3ChangesNothing();
    void o2FusesTheTransformerEncoder();
    void o2FusesTheConvolutionNetwork();
    void standardOnlyCreatesNoPortolanOps();
    void snapshotsFollowEachPass();
};

static std::unique_ptr<ir::Model> loadFixture(const std::string &name)
{
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + name + "/model.onnx");
    if (!loaded)
        return nullptr;
    return std::move(loaded->model);
}

namespace {

/// Runs `pipeline` on `model`, then again on its output: the second run must change nothing.
void secondRunChangesNothing(const ir::Model &model, const passes::Pipeline &pipeline, const std::string &label)
{
    auto first = passes::runPipeline(model, pipeline, {});
    QVERIFY2(first, first ? "" : first.error().format().c_str());
    auto second = passes::runPipeline(*first->model, pipeline, {});
    QVERIFY(second);
    for (const passes::PassResult &p : second->passes)
        QVERIFY2(!p.changed, (p.invocation + " changed the " + label + " output again").c_str());
    QCOMPARE(ir::serializeModel(*second->model), ir::serializeModel(*first->model));
}

} // namespace

void tst_Pipelines::presetsKeepNumericsOnEveryFixture_data()
{
    QTest::addColumn<QString>("fixture");
    for (const std::string &name : test::fixtureNames())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void tst_Pipelines::presetsKeepNumericsOnEveryFixture()
{
    QFETCH(QString, fixture);
    auto model = loadFixture(fixture.toStdString());
    QVERIFY(model);
    for (int level : {1, 2}) {
        auto preset = passes::presetPipeline(level);
        QVERIFY(preset);
        auto result = test::runChecked(*model, preset->str());
        QVERIFY(result);
        bool changed = false;
        for (const passes::PassResult &p : result->passes)
            changed = changed || p.changed;
        // An already clean model may leave -O1 nothing to do; whatever changed must keep the numbers.
        if (changed || level == 2)
            QVERIFY2(test::numericsHeld(*result), qPrintable(QString("-O%1").arg(level)));
        // Every created node stands for original nodes of the input.
        const ir::Model &out = *result->model;
        for (const ir::NodeId n : out.graph(out.mainGraph()).nodes) {
            if (!out.node(n).alive || result->provenance.isOriginal(n))
                continue;
            const auto origins = result->provenance.originsOf(n);
            QVERIFY2(!origins.empty(), out.node(n).name.c_str());
            for (const ir::NodeId o : origins)
                QVERIFY(o.index < model->nodeCapacity());
        }
        // The result saves and loads back.
        auto reloaded = ir::loadModelProto(ir::toModelProto(out), "optimized", model->baseDir); // external data stays where it was
        QVERIFY2(reloaded, reloaded ? "" : reloaded.error().format().c_str());
    }
}

void tst_Pipelines::secondO2ChangesNothing()
{
    QFETCH(QString, fixture);
    auto model = loadFixture(fixture.toStdString());
    QVERIFY(model);
    auto preset = passes::presetPipeline(2);
    QVERIFY(preset);
    secondRunChangesNothing(*model, *preset, "-O2");
}

void tst_Pipelines::secondO3ChangesNothing()
{
    // a lowered model stays as it is: its Casts, int8 weights and their DequantizeLinear are kept
    QFETCH(QString, fixture);
    auto model = loadFixture(fixture.toStdString());
    QVERIFY(model);
    for (const char *precision : {"fp16", "bf16", "int8"}) {
        auto preset = passes::presetPipeline(3, precision);
        QVERIFY(preset);
        secondRunChangesNothing(*model, *preset, std::string("-O3 ") + precision);
        if (QTest::currentTestFailed())
            return;
    }
}

void tst_Pipelines::o2FusesTheTransformerEncoder()
{
    for (const char *name : {"transformer_opset14", "transformer_opset17"}) {
        auto model = loadFixture(name);
        QVERIFY(model);
        auto preset = passes::presetPipeline(2);
        auto result = test::runChecked(*model, preset->str());
        QVERIFY(result);
        QVERIFY(test::numericsHeld(*result));
        const auto ops = test::opHistogram(*result->model);
        for (const char *gone : {"Softmax", "ReduceMean", "Sqrt", "Erf", "Pow"})
            QVERIFY2(!ops.contains(gone), qPrintable(QString("%1: %2 left after -O2").arg(name, gone)));
    }
}

void tst_Pipelines::o2FusesTheConvolutionNetwork()
{
    auto model = loadFixture("cnn_bn");
    QVERIFY(model);
    auto result = test::runChecked(*model, passes::presetPipeline(2)->str());
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const auto ops = test::opHistogram(*result->model);
    for (const char *gone : {"BatchNormalization", "Relu", "Conv"})
        QVERIFY2(!ops.contains(gone), gone);
    QVERIFY(ops.contains("ai.portolan::FusedConv"));
}

void tst_Pipelines::standardOnlyCreatesNoPortolanOps()
{
    for (const std::string &name : test::fixtureNames()) {
        auto model = loadFixture(name);
        QVERIFY(model);
        passes::PassManagerOptions options;
        options.standardOnly = true;
        auto result = test::runChecked(*model, passes::presetPipeline(2)->str(), options);
        QVERIFY(result);
        for (const auto &[op, count] : test::opHistogram(*result->model))
            QVERIFY2(op.find("::") == std::string::npos, (name + ": " + op).c_str());
        QVERIFY(!result->model->opsetVersion("ai.portolan"));
    }
}

void tst_Pipelines::snapshotsFollowEachPass()
{
    auto model = loadFixture("cnn_bn");
    QVERIFY(model);
    passes::PassManagerOptions options;
    options.snapshots = true;
    auto result = passes::runPipeline(*model, *passes::parsePipeline("fuse-conv-bn,eliminate-dead"), options);
    QVERIFY(result);
    QCOMPARE(result->passes.size(), std::size_t(2));
    const auto afterFold = test::opHistogram(*result->passes[0].snapshot);
    QVERIFY(!afterFold.contains("BatchNormalization"));
    QCOMPARE(ir::serializeModel(*result->passes[1].snapshot), ir::serializeModel(*result->model));
}

QTEST_GUILESS_MAIN(tst_Pipelines)
#include "tst_Pipelines.moc"
