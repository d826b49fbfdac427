// The pass manager: pipeline text, instrumentation, failure handling and eliminate-dead.
#include "support/PassTestSupport.h"

#include "analysis/ShapeInference.h"
#include "support/TestSupport.h"

#include "passes/Pass.h"
#include "passes/Pipeline.h"
#include "passes/Verifier.h"
#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"

#include <QTest>

using namespace portolan;

class tst_PassManager : public QObject {
    Q_OBJECT
private slots:
    void pipelineTextRoundTrips_data();
    void pipelineTextRoundTrips();
    void unknownPassListsValidOnes();
    void unknownOptionListsValidOnes();
    void malformedPipelinesAreRefused();
    void eliminateDeadRemovesUnreadNodesAndInitializers();
    void eliminateDeadLeavesLiveGraphAlone();
    void rewriterKeepsGraphOutputNames();
    void provenanceComposesAcrossRewrites();
    void rewriteBudgetStopsPatterns();
    void numericFailureIsBisectedToARewrite();
    void malformedNodesAreRefusedBeforeThePasses_data();
    void malformedNodesAreRefusedBeforeThePasses();
    void shapesMidRewriteSkipErasedInitializers();
    void removedNodesNamesAreNotHandedOut();
};

void tst_PassManager::pipelineTextRoundTrips_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("plain") << "infer-shapes,fold-constants,eliminate-dead";
    QTest::newRow("options") << "infer-shapes,fold-constants,fuse-layer-norm{max-epsilon=1e-3},eliminate-dead";
    QTest::newRow("two options") << "lower-precision{to=bf16 keep-fp32=^/head/.*}";
    QTest::newRow("commas in a value") << "freeze-shapes{input=x:1x3x224x224,y:1x8}";
}

void tst_PassManager::pipelineTextRoundTrips()
{
    QFETCH(QString, text);
    auto parsed = passes::parsePipeline(text.toStdString());
    QVERIFY2(parsed, parsed ? "" : parsed.error().format().c_str());
    QCOMPARE(QString::fromStdString(parsed->str()), text);
    auto again = passes::parsePipeline(parsed->str());
    QVERIFY(again);
    QCOMPARE(again->str(), parsed->str());
}

void tst_PassManager::unknownPassListsValidOnes()
{
    auto parsed = passes::parsePipeline("infer-shapes,fuse-everything");
    QVERIFY(!parsed);
    const QString message = QString::fromStdString(parsed.error().format());
    QVERIFY2(message.contains("unknown pass 'fuse-everything'"), qPrintable(message));
    QVERIFY2(message.contains("fuse-layer-norm") && message.contains("eliminate-dead"), qPrintable(message));
}

void tst_PassManager::unknownOptionListsValidOnes()
{
    auto parsed = passes::parsePipeline("fold-constants{size=3}");
    QVERIFY(!parsed);
    const QString message = QString::fromStdString(parsed.error().format());
    QVERIFY2(message.contains("no option 'size'") && message.contains("max-bytes"), qPrintable(message));
    auto none = passes::parsePipeline("eliminate-dead{x=1}");
    QVERIFY(!none);
    QVERIFY(QString::fromStdString(none.error().format()).contains("it takes none"));
}

void tst_PassManager::malformedPipelinesAreRefused()
{
    for (const char *text : {"", ",", "infer-shapes,", "infer-shapes{", "fold-constants{max-bytes}", "a b",
                             "fold-constants{max-bytes=1{}}"}) {
        auto parsed = passes::parsePipeline(text);
        QVERIFY2(!parsed, text);
    }
}

static const char *kDeadModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y)
<float[3] unread = {1.0, 2.0, 3.0}>
{
    y = Relu(x)
    s = Sigmoid(x)
    t = Tanh(s)
}
)";

void tst_PassManager::eliminateDeadRemovesUnreadNodesAndInitializers()
{
    auto loaded = test::loadModelText(kDeadModel);
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "eliminate-dead");
    QVERIFY(result);
    const auto ops = test::opHistogram(*result->model);
    QCOMPARE(ops, (std::map<std::string, int>{{"Relu", 1}}));
    QCOMPARE(result->model->graph(result->model->mainGraph()).initializers.size(), std::size_t(0));
    const passes::PassResult &pass = result->passes.at(0);
    QVERIFY(pass.changed);
    QCOMPARE(pass.statistics.at("removed-nodes"), std::int64_t(2));
    QCOMPARE(pass.statistics.at("removed-initializers"), std::int64_t(1));
    QVERIFY(test::numericsHeld(*result));
    // The input model is untouched.
    QCOMPARE(test::opHistogram(*loaded->model).size(), std::size_t(3));
}

void tst_PassManager::eliminateDeadLeavesLiveGraphAlone()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y)
{
    s = Sigmoid(x)
    y = Relu(s)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "eliminate-dead");
    QVERIFY(result);
    QVERIFY(!result->passes.at(0).changed);
    QCOMPARE(result->passes.at(0).numerics.skippedReason, std::string("the pass changed nothing"));
}

static const char *kChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y)
{
    a = Relu(x)
    b = Sigmoid(a)
    y = Tanh(b)
}
)";

/// A provenance sized for `model`: every node and value its own origin.
static passes::Provenance provenanceOf(const ir::Model &model)
{
    return passes::Provenance(static_cast<std::uint32_t>(model.nodeCapacity()), static_cast<std::uint32_t>(model.valueCapacity()));
}

void tst_PassManager::rewriterKeepsGraphOutputNames()
{
    auto loaded = test::loadModelText(kChain);
    QVERIFY(loaded);
    ir::Model &model = *loaded->model;
    passes::Provenance provenance = provenanceOf(model);
    passes::Rewriter rw(model, provenance, "test");
    const ir::GraphId g = model.mainGraph();
    const ir::ValueId b = *model.lookup(g, "b");
    const ir::ValueId y = *model.lookup(g, "y");
    const ir::NodeId tanh = model.value(y).producer;
    QVERIFY(rw.begin("replace-tanh"));
    const ir::ValueId fresh = rw.createValue(g, "y");
    QCOMPARE(model.value(fresh).name, std::string("y_1")); // the name is taken: made unique
    const ir::NodeId neg = rw.createNode(g, "Neg", "", {b}, {fresh}, {}, "neg", tanh);
    QVERIFY(rw.canReplace(y, fresh));
    rw.replaceAllUsesWith(y, fresh);
    rw.eraseNode(tanh);
    rw.commit();
    rw.finish();
    QVERIFY(passes::verifyInvariants(model).empty());
    // The interface keeps the name "y", now produced by the Neg node.
    const ir::Graph &graph = model.graph(g);
    QCOMPARE(graph.outputs.size(), std::size_t(1));
    QCOMPARE(model.value(graph.outputs[0]).name, std::string("y"));
    QCOMPARE(model.value(graph.outputs[0]).producer, neg);
    QCOMPARE(provenance.originsOf(neg), std::vector<ir::NodeId>{tanh});
    QCOMPARE(provenance.originalValueOf(fresh), y);
    auto records = rw.takeRecords();
    QCOMPARE(records.size(), std::size_t(1));
    QCOMPARE(records[0].removedNodes, std::vector<ir::NodeId>{tanh});
    QCOMPARE(records[0].createdNodes, std::vector<ir::NodeId>{neg});
    // A graph output cannot become a graph input.
    QVERIFY(!rw.canReplace(graph.outputs[0], *model.lookup(g, "x")));
    auto reloaded = ir::loadModelProto(ir::toModelProto(model), "rewritten", "");
    QVERIFY(reloaded);
}

void tst_PassManager::provenanceComposesAcrossRewrites()
{
    auto loaded = test::loadModelText(kChain);
    QVERIFY(loaded);
    ir::Model &model = *loaded->model;
    passes::Provenance provenance = provenanceOf(model);
    const ir::GraphId g = model.mainGraph();
    const ir::NodeId relu = model.value(*model.lookup(g, "a")).producer;
    const ir::NodeId sigmoid = model.value(*model.lookup(g, "b")).producer;
    const ir::NodeId tanh = model.value(*model.lookup(g, "y")).producer;
    // Fuse Relu+Sigmoid into one node, then that node + Tanh into another (two passes).
    ir::NodeId first;
    {
        passes::Rewriter rw(model, provenance, "pass-1");
        QVERIFY(rw.begin("first"));
        const ir::ValueId out = rw.createValue(g, "ab");
        first = rw.createNode(g, "Sigmoid", "", {*model.lookup(g, "x")}, {out}, {}, "ab", relu);
        rw.replaceAllUsesWith(*model.lookup(g, "b"), out);
        rw.eraseNode(sigmoid);
        rw.eraseNode(relu);
        rw.commit();
        rw.finish();
    }
    ir::NodeId second;
    {
        passes::Rewriter rw(model, provenance, "pass-2");
        QVERIFY(rw.begin("second"));
        const ir::ValueId out = rw.createValue(g, "abc");
        second = rw.createNode(g, "Tanh", "", {*model.lookup(g, "x")}, {out}, {}, "abc");
        rw.replaceAllUsesWith(*model.lookup(g, "y"), out);
        rw.eraseNode(tanh);
        rw.eraseNode(first);
        rw.commit();
        rw.finish();
    }
    QCOMPARE(provenance.originsOf(first), (std::vector<ir::NodeId>{relu, sigmoid}));
    QCOMPARE(provenance.originsOf(second), (std::vector<ir::NodeId>{relu, sigmoid, tanh}));
    QVERIFY(passes::verifyInvariants(model).empty());
}

void tst_PassManager::rewriteBudgetStopsPatterns()
{
    auto loaded = test::loadModelText(kChain);
    QVERIFY(loaded);
    passes::Provenance provenance;
    passes::Rewriter rw(*loaded->model, provenance, "test");
    rw.setRewriteBudget(1);
    QVERIFY(rw.begin("one"));
    rw.commit();
    QVERIFY(!rw.begin("two"));
}

void tst_PassManager::malformedNodesAreRefusedBeforeThePasses_data()
{
    // patterns read operands by position: these once crashed -O2 (found by mutating the fixtures)
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("softmax without input") << R"(<ir_version: 8, opset_import: ["" : 17]>
        g (float[2,4] x) => (float[2,4] y) { s = Softmax()  y = Add(x, s) })"
                                          << "node '#0 (Softmax)': Softmax node has 0 input(s); Softmax takes 1";
    QTest::newRow("gemm with one operand") << R"(<ir_version: 8, opset_import: ["" : 17]>
        g (float[2,4] x) => (float[2,4] y) { y = Gemm(x) })"
                                           << "Gemm node has 1 input(s); Gemm takes 2 to 3";
    QTest::newRow("conv with a zero stride") << R"(<ir_version: 8, opset_import: ["" : 17]>
        g (float[1,2,6,6] x) => (float[1,2,4,6] y) <float[2,2,3,3] w = {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}>
        { y = Conv <strides = [0, 1]> (x, w) })"
                                             << "Conv node has strides [0,1]; each must be positive";
    QTest::newRow("required input left empty") << R"(<ir_version: 8, opset_import: ["" : 17]>
        g (float[2,4] x) => (float[2,4] y) { y = Add(x, EMPTY) })"
                                               << "leaves its required input 1 ('B') empty";
}

void tst_PassManager::malformedNodesAreRefusedBeforeThePasses()
{
    QFETCH(QString, text);
    QFETCH(QString, fragment);
    const std::string source = text.toStdString();
    onnx::ModelProto proto = test::parseModelText(source.c_str());
    for (onnx::NodeProto &node : *proto.mutable_graph()->mutable_node())
        for (std::string &input : *node.mutable_input())
            if (input == "EMPTY")
                input.clear(); // the text format cannot spell an empty input
    auto loaded = ir::loadModelProto(std::move(proto), "malformed", ".");
    QVERIFY2(loaded, loaded ? "" : loaded.error().format().c_str());
    // shape inference survives them (a zero stride stopped ONNX's with SIGFPE) and names the stride
    const auto inferred = analysis::inferShapes(*loaded->model);
    if (fragment.contains("strides")) {
        QVERIFY(!inferred.findings.empty());
        QVERIFY2(inferred.findings.front().format().find("Conv node has strides [0,1]; each must be positive") != std::string::npos,
                 inferred.findings.front().format().c_str());
    }
    auto result = passes::runPipeline(*loaded->model, *passes::presetPipeline(2), {});
    QVERIFY(!result);
    QCOMPARE(result.error().primary.code, std::string("malformed-model"));
    QVERIFY2(result.error().format().find(fragment.toStdString()) != std::string::npos, result.error().format().c_str());
}

void tst_PassManager::shapesMidRewriteSkipErasedInitializers()
{
    // a pattern may ask for shapes after it erased an initializer in the rewrite still open
    auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
        g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}> { y = Add(x, w) })");
    QVERIFY(loaded);
    ir::Model &model = *loaded->model;
    passes::Provenance provenance = provenanceOf(model);
    passes::Rewriter rw(model, provenance, "test");
    const ir::GraphId g = model.mainGraph();
    const ir::ValueId y = *model.lookup(g, "y");
    const ir::NodeId add = model.value(y).producer;
    QVERIFY(rw.begin("drop-the-add"));
    const ir::ValueId copy = rw.createValue(g, "y");
    rw.createNode(g, "Identity", "", {*model.lookup(g, "x")}, {copy}, {}, "copy", add);
    rw.replaceAllUsesWith(y, copy);
    rw.eraseNode(add);
    rw.eraseInitializer(*model.lookup(g, "w"));
    const auto inferred = analysis::inferShapes(model);
    QVERIFY(inferred.types.contains(model.value(copy).name));
    rw.commit();
    rw.finish();
    QVERIFY(passes::verifyInvariants(model).empty());
}

void tst_PassManager::removedNodesNamesAreNotHandedOut()
{
    // "Tanh_1" is removed by one rewrite; a later node whose hint "Tanh" is taken must not become
    // "Tanh_1", which names another node of the source model. A node recreated in place of the one
    // it replaces keeps that node's name.
    auto loaded = test::loadModelText(kChain);
    QVERIFY(loaded);
    ir::Model &model = *loaded->model;
    const ir::GraphId g = model.mainGraph();
    const ir::ValueId a = *model.lookup(g, "a"), b = *model.lookup(g, "b"), y = *model.lookup(g, "y");
    const ir::NodeId relu = model.value(a).producer, sigmoid = model.value(b).producer, tanh = model.value(y).producer;
    model.node(relu).name = "Tanh_1";
    model.node(sigmoid).name = "Tanh";
    model.node(tanh).name = "T";
    passes::Provenance provenance = provenanceOf(model);
    passes::Rewriter rw(model, provenance, "test");
    auto replace = [&](ir::NodeId old, ir::ValueId out, const std::string &op, const std::string &hint) {
        if (!rw.begin("replace"))
            return ir::NodeId();
        const ir::ValueId fresh = rw.createValue(g, model.value(out).name);
        const ir::NodeId made = rw.createNode(g, op, "", model.node(old).inputs, {fresh}, {}, hint, old);
        rw.replaceAllUsesWith(out, fresh);
        rw.eraseNode(old);
        rw.commit();
        return made;
    };
    replace(relu, a, "Relu", "R");
    const ir::NodeId later = replace(tanh, y, "Tanh", "Tanh");
    const ir::NodeId recreated = replace(sigmoid, b, "Sigmoid", "Tanh");
    rw.finish();
    QVERIFY(later.valid() && recreated.valid());
    QCOMPARE(model.node(later).name, std::string("Tanh_2"));
    QCOMPARE(model.node(recreated).name, std::string("Tanh")); // its hint was held only by the node it replaced
    QVERIFY(passes::verifyInvariants(model).empty());
}

void tst_PassManager::numericFailureIsBisectedToARewrite()
{
    // fp16 storage cannot hold these weights to 1e-7: the check fails and names the first rewrite
    // that alone breaks the tolerance.
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/cnn_bn/model.onnx");
    QVERIFY(loaded);
    passes::PassManagerOptions options;
    options.checkNumerics = true;
    options.atol = 1e-7;
    options.rtol = 0;
    auto result = passes::runPipeline(*loaded->model, *passes::parsePipeline("lower-precision{to=fp16}"), options);
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    const passes::NumericCheck &check = result->passes.at(0).numerics;
    QVERIFY(check.ran);
    QVERIFY(!check.withinTolerance);
    QVERIFY(check.maxAbsError > 1e-7 && check.maxAbsError < 1.0);
    QVERIFY2(QString::fromStdString(check.culpritRewrite).contains("(rewrite "), check.culpritRewrite.c_str());
    QVERIFY(!result->overall.withinTolerance);
}

QTEST_GUILESS_MAIN(tst_PassManager)
#include "tst_PassManager.moc"
