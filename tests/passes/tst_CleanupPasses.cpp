// The cleanup and shape/opset passes: infer-shapes, fold-constants, eliminate-identity,
// eliminate-common-subexpressions, canonicalize, freeze-shapes, convert-opset; and the cleanup
// pipeline on every fixture (numerics hold, a second run changes nothing).
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "ir/Type.h"
#include "passes/ConstantEvaluation.h"
#include "passes/Match.h"
#include "passes/Pipeline.h"
#include "runtime/TensorProtoIO.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <set>

using namespace portolan;

namespace {

const ir::Value &valueNamed(const ir::Model &model, const std::string &name)
{
    static const ir::Value none;
    const auto id = model.lookup(model.mainGraph(), name);
    return id ? model.value(*id) : none;
}

std::string typeOf(const ir::Model &model, const std::string &name)
{
    return ir::typeString(valueNamed(model, name).info.type());
}

/// The pipeline's error text ("" when it succeeded).
std::string pipelineError(const ir::Model &model, const std::string &pipeline)
{
    auto parsed = passes::parsePipeline(pipeline);
    if (!parsed)
        return parsed.error().format();
    auto result = passes::runPipeline(model, *parsed, {});
    return result ? std::string() : result.error().format();
}

const passes::PassResult &only(const passes::CompileResult &result)
{
    return result.passes.at(0);
}

/// A model from ONNX text whose float initializers named in `infinite` hold ±infinity (the text
/// syntax has no literal for it): each value keeps its sign and becomes infinite.
std::unique_ptr<ir::Model> withInfinities(const char *text, const std::set<std::string> &infinite)
{
    onnx::ModelProto proto = test::parseModelText(text);
    for (onnx::TensorProto &t : *proto.mutable_graph()->mutable_initializer())
        if (infinite.contains(t.name()))
            for (float &v : *t.mutable_float_data())
                v = std::copysign(std::numeric_limits<float>::infinity(), v);
    auto loaded = ir::loadModelProto(std::move(proto), "text-model", {});
    if (!loaded) {
        qWarning("%s", loaded.error().format().c_str());
        return nullptr;
    }
    return std::move(loaded->model);
}

/// The names of the main graph's initializers.
std::set<std::string> initializerNames(const ir::Model &model)
{
    std::set<std::string> names;
    for (const ir::ValueId v : model.graph(model.mainGraph()).initializers)
        names.insert(model.value(v).name);
    return names;
}

/// The integer values of input `index` of the node producing `output`.
std::vector<std::int64_t> constantInput(const ir::Model &model, const std::string &output, std::size_t index)
{
    const ir::Node &node = model.node(valueNamed(model, output).producer);
    const auto t = passes::constantValue(model, node.inputs.at(index));
    return t ? passes::integerValues(*t).value_or(std::vector<std::int64_t>{}) : std::vector<std::int64_t>{};
}

/// Whether running `pipeline` on `model` again changes nothing; warns with the first rewrite otherwise.
bool secondRunChangesNothing(const ir::Model &model, const std::string &pipeline)
{
    auto again = test::runChecked(model, pipeline);
    if (!again)
        return false;
    for (const passes::PassResult &pass : again->passes)
        if (pass.changed) {
            const passes::RewriteRecord *first = pass.rewrites.empty() ? nullptr : &pass.rewrites.front();
            const std::string what = first ? first->pattern + " " + first->detail : "types";
            qWarning("%s changed the model again: %s", pass.name.c_str(), what.c_str());
            return false;
        }
    return true;
}

} // namespace

class tst_CleanupPasses : public QObject {
    Q_OBJECT
private slots:
    void inferShapesTypesIntermediates();
    void inferShapesReportsErrorsWithoutFailing();
    void inferShapesTypesBodies();
    void foldConstantsFoldsChainsAndShapes();
    void foldConstantsDeclinesWithReasons();
    void foldConstantsRefusesBadOptions();
    void eliminateIdentityRemovesNoOps();
    void eliminateIdentityNearMisses();
    void commonSubexpressionsMerge();
    void commonSubexpressionsKeepOutputsApart();
    void canonicalizeTransposes();
    void canonicalizeShapeChainsAndComputations();
    void canonicalizeNearMisses();
    void canonicalizeFormsAtOpset17();
    void canonicalizeAxesAttributesBeforeOpset13();
    void canonicalizeFormsNeedKnownRanks();
    void freezeShapesFixesDims();
    void freezeShapesRefusesBadDims();
    void convertOpsetConverts();
    void convertOpsetReplacesNodes();
    void convertOpsetOnFixtures_data();
    void convertOpsetOnFixtures();
    void convertOpsetRefusesBadTargets();
    void cleanupPipelineOnFixtures_data();
    void cleanupPipelineOnFixtures();
};

void tst_CleanupPasses::inferShapesTypesIntermediates()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[?,3] y)
{
    a = Relu(x)
    y = Sigmoid(a)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "infer-shapes");
    QVERIFY(result);
    QVERIFY(only(*result).changed);
    QCOMPARE(typeOf(*result->model, "a"), std::string("float[2,3]"));
    QCOMPARE(typeOf(*result->model, "y"), std::string("float[2,3]")); // the output declaration is refined
    QCOMPARE(only(*result).statistics.at("typed-values"), std::int64_t(2));
    QVERIFY(test::numericsHeld(*result));
    // No-op: everything is typed already.
    auto again = test::runChecked(*result->model, "infer-shapes");
    QVERIFY(again);
    QVERIFY(!only(*again).changed);
}

void tst_CleanupPasses::inferShapesTypesBodies()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2,3] x) => (float[2,3] y)
{
    y = If (c) <then_branch = then_g () => (float[2,3] t) { a = Relu(x) t = Sigmoid(a) },
                else_branch = else_g () => (float[2,3] e) { b = Neg(x) e = Abs(b) }>
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "infer-shapes");
    QVERIFY(result);
    QVERIFY(only(*result).changed);
    const ir::Model &out = *result->model;
    auto bodyType = [&](const std::string &name) {
        for (std::size_t i = 0; i < out.valueCapacity(); ++i) {
            const ir::Value &v = out.value(ir::ValueId(static_cast<std::uint32_t>(i)));
            if (v.name == name && v.graph != out.mainGraph())
                return ir::typeString(v.info.type());
        }
        return std::string("(none)");
    };
    QCOMPARE(bodyType("a"), std::string("float[2,3]"));
    QCOMPARE(bodyType("b"), std::string("float[2,3]"));
    QCOMPARE(only(*result).statistics.at("typed-values"), std::int64_t(2));
    QVERIFY(test::numericsHeld(*result));
}

void tst_CleanupPasses::inferShapesReportsErrorsWithoutFailing()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y)
<float[4] w = {1.0, 2.0, 3.0, 4.0}>
{
    y = Add(x, w)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "infer-shapes");
    QVERIFY(result);
    QVERIFY(only(*result).statistics.at("inference-errors") >= 1);
    QVERIFY2(!test::failureReasons(*result, "infer-shapes").empty(), "the inference error is reported");
}

void tst_CleanupPasses::foldConstantsFoldsChainsAndShapes()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y, int64[1] n)
<float[3] w = {1.0, 2.0, 3.0}>
{
    t = Mul(w, w)
    u = Add(t, w)
    y = Add(x, u)
    n = Shape(x)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "fold-constants");
    QVERIFY(result);
    const ir::Model &model = *result->model;
    QCOMPARE(test::opHistogram(model), (std::map<std::string, int>{{"Add", 1}, {"Constant", 1}}));
    QCOMPARE(only(*result).statistics.at("folded-nodes"), std::int64_t(3));
    // The graph outputs keep their names; w is no longer read and went with the fold.
    const ir::Graph &graph = model.graph(model.mainGraph());
    QCOMPARE(model.value(graph.outputs[0]).name, std::string("y"));
    QCOMPARE(model.value(graph.outputs[1]).name, std::string("n"));
    QCOMPARE(graph.initializers.size(), std::size_t(1));
    const auto folded = passes::constantValue(model, graph.initializers[0]);
    QVERIFY(folded);
    QCOMPARE(std::vector<float>(folded->data<float>(), folded->data<float>() + 3), (std::vector<float>{2, 6, 12}));
    QVERIFY(test::numericsHeld(*result));
    auto again = test::runChecked(model, "fold-constants");
    QVERIFY(again);
    QVERIFY(!only(*again).changed);
}

void tst_CleanupPasses::foldConstantsDeclinesWithReasons()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x, float[3] v) => (float[3] y, float[3] d)
<float[3] w = {1.0, 2.0, 3.0}, float[3] v = {1.0, 1.0, 1.0}, int8[3] wq = {1, -2, 3}, float sq = {0.5}>
{
    d = DequantizeLinear(wq, sq)
    t = Mul(w, w)
    p = Add(v, w)
    r = RandomUniformLike(w)
    s = Add(t, p)
    q = Add(s, r)
    y = Add(x, q)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "fold-constants{max-bytes=8}");
    QVERIFY(result);
    QVERIFY(!only(*result).changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "fold-constants"));
    QVERIFY2(reasons.contains("output 't' would take 12 bytes, more than max-bytes (8)"), qPrintable(reasons));
    QVERIFY2(reasons.contains("input 'v' is a graph input with an initializer"), qPrintable(reasons));
    QVERIFY2(reasons.contains("RandomUniformLike is not deterministic"), qPrintable(reasons));
    QVERIFY2(reasons.contains("a quantized weight stays quantized"), qPrintable(reasons));
}

void tst_CleanupPasses::foldConstantsRefusesBadOptions()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y)
{
    y = Relu(x)
}
)");
    QVERIFY(loaded);
    const QString text = QString::fromStdString(pipelineError(*loaded->model, "fold-constants{max-bytes=lots}"));
    QVERIFY2(text.contains("max-bytes"), qPrintable(text));
    const QString negative = QString::fromStdString(pipelineError(*loaded->model, "fold-constants{max-bytes=-1}"));
    QVERIFY2(negative.contains("max-bytes") && negative.contains("negative"), qPrintable(negative));
}

void tst_CleanupPasses::eliminateIdentityRemovesNoOps()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y)
<int64[2] shape = {2, 3}, int64[4] pads = {0, 0, 0, 0}, int64[1] starts = {0}, int64[1] ends = {2},
 int64[1] axes = {0}, int64[2] wide = {1, 3}>
{
    a = Identity(x)
    b = Cast <to = 1> (a)
    c = Transpose <perm = [0, 1]> (b)
    d = Reshape(c, shape)
    e = Dropout(d)
    p = Pad(e, pads)
    s = Slice(p, starts, ends, axes)
    w = Expand(s, wide)
    k = Clip(w)
    y = Relu(k)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "eliminate-identity");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"Relu", 1}}));
    QCOMPARE(only(*result).statistics.at("removed-nodes"), std::int64_t(9));
    QCOMPARE(result->model->graph(result->model->mainGraph()).initializers.size(), std::size_t(0));
    QVERIFY(test::numericsHeld(*result));
}

void tst_CleanupPasses::eliminateIdentityNearMisses()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, int64[2] dyn) => (float[?,?] y, float16[2,3] h, float[2,3] i, float[2,3] k)
<float ratio = {0.5}, bool train = {1}, int64[4] pads = {0, 1, 0, 0}, float lo = {0.1}>
{
    k = Clip(x, lo)
    h = Cast <to = 10> (x)
    d = Dropout(x, ratio, train)
    r = Reshape(d, dyn)
    p = Pad(r, pads)
    t = Transpose <perm = [1, 0]> (x)
    y = Relu(p)
    i = Identity(x)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "eliminate-identity");
    QVERIFY(result);
    QVERIFY(!only(*result).changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "eliminate-identity"));
    for (const char *expected : {"Cast changes float to float16", "Dropout in training mode", "the target shape is not a constant",
                                 "are not all zero", "perm [1,0] is not the identity",
                                 "cannot bypass: graph output 'i' would become a graph input or initializer",
                                 "min bounds the values"})
        QVERIFY2(reasons.contains(expected), qPrintable(reasons + " lacks: " + expected));
}

void tst_CleanupPasses::commonSubexpressionsMerge()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y)
<float[3] k1 = {1.0, 2.0, 3.0}, float[3] k2 = {1.0, 2.0, 3.0}>
{
    a = Relu(x)
    b = Relu(x)
    m1 = Mul(a, k1)
    m2 = Mul(b, k2)
    s1 = Softmax <axis = 0> (m1)
    s2 = Softmax <axis = 0> (m2)
    y = Add(s1, s2)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "eliminate-common-subexpressions");
    QVERIFY(result);
    QCOMPARE(test::opHistogram(*result->model), (std::map<std::string, int>{{"Add", 1}, {"Mul", 1}, {"Relu", 1}, {"Softmax", 1}}));
    QCOMPARE(only(*result).statistics.at("merged-nodes"), std::int64_t(3));
    QCOMPARE(only(*result).statistics.at("merged-constants"), std::int64_t(1));
    QCOMPARE(result->model->graph(result->model->mainGraph()).initializers.size(), std::size_t(1));
    QVERIFY(test::numericsHeld(*result));
}

void tst_CleanupPasses::commonSubexpressionsKeepOutputsApart()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y1, float[3] y2, float[3] z)
{
    y1 = Relu(x)
    y2 = Relu(x)
    s = Softmax <axis = 0> (x)
    t = Softmax <axis = -1> (x)
    r1 = RandomUniformLike(x)
    r2 = RandomUniformLike(x)
    u = Add(s, t)
    v = Add(r1, r2)
    z = Add(u, v)
}
)");
    QVERIFY(loaded);
    auto parsed = passes::parsePipeline("eliminate-common-subexpressions");
    QVERIFY(parsed);
    passes::PassManagerOptions options;
    options.verifyEach = true; // random outputs: no numeric check
    auto result = passes::runPipeline(*loaded->model, *parsed, options);
    QVERIFY(result);
    QVERIFY(!only(*result).changed); // different attributes and random ops do not merge
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "eliminate-common-subexpressions"));
    QVERIFY2(reasons.contains("graph outputs 'y2' and 'y1' would merge"), qPrintable(reasons));
}

void tst_CleanupPasses::canonicalizeTransposes()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x) => (float[2,3,4] y, float[4,2,3] z)
{
    t1 = Transpose <perm = [1, 0, 2]> (x)
    t2 = Transpose <perm = [1, 0, 2]> (t1)
    y = Relu(t2)
    u1 = Transpose <perm = [0, 2, 1]> (x)
    z = Transpose <perm = [1, 0, 2]> (u1)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "canonicalize");
    QVERIFY(result);
    const ir::Model &model = *result->model;
    QCOMPARE(test::opHistogram(model), (std::map<std::string, int>{{"Relu", 1}, {"Transpose", 1}}));
    const ir::Node &composed = model.node(valueNamed(model, "z").producer);
    QCOMPARE(passes::attrInts(composed, "perm"), (std::vector<std::int64_t>{2, 0, 1}));
    QCOMPARE(only(*result).statistics.at("rewrites.transpose-pair"), std::int64_t(1));
    QCOMPARE(only(*result).statistics.at("rewrites.transpose-compose"), std::int64_t(1));
    QVERIFY(test::numericsHeld(*result));
}

void tst_CleanupPasses::canonicalizeShapeChainsAndComputations()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,3,1,4] x, float[n,12] v) => (float[1,12] y, float[6,2] z, float[n,12] w)
<int64[2] squeezed = {0, 2}, int64[1] front = {0}, int64[1] one = {1}, int64[1] two = {2}, int64[1] minus = {-1},
 int64[3] split = {-1, 3, 4}, int64[2] flat = {-1, 12}>
{
    a = Squeeze(x, squeezed)
    b = Unsqueeze(a, front)
    y = Flatten <axis = 1> (b)
    s = Shape(a)
    d = Gather(s, one)
    dd = Div(d, two)
    c = Concat <axis = 0> (minus, dd)
    z = Reshape(a, c)
    r = Reshape(v, split)
    w = Reshape(r, flat)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "infer-shapes,canonicalize");
    QVERIFY(result);
    const ir::Model &model = *result->model;
    QCOMPARE(test::opHistogram(model), (std::map<std::string, int>{{"Reshape", 3}, {"Squeeze", 1}}));
    const passes::PassResult &canonicalize = result->passes.at(1);
    QCOMPARE(canonicalize.statistics.at("rewrites.shape-chain"), std::int64_t(1));
    QCOMPARE(canonicalize.statistics.at("rewrites.shape-computation"), std::int64_t(4));
    QCOMPARE(canonicalize.statistics.at("rewrites.reshape-chain"), std::int64_t(1));
    QCOMPARE(model.value(model.node(valueNamed(model, "w").producer).inputs[0]).name, std::string("v"));
    QVERIFY(test::numericsHeld(*result));
}

void tst_CleanupPasses::canonicalizeNearMisses()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,3] x, int64[2] dyn) => (float[3,n] y, float[n,3] z, int64[2] s, float[n,3] w)
{
    t = Transpose <perm = [1, 0]> (x)
    y = Relu(t)
    z = Transpose <perm = [1, 0]> (t)
    s = Shape(x)
    r = Reshape(x, dyn)
    w = Reshape(r, dyn)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "canonicalize");
    QVERIFY(result);
    QVERIFY(!only(*result).changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "canonicalize"));
    for (const char *expected : {"cannot bypass: graph output 'z' would become a graph input or initializer",
                                 "the shape of 'x' ([n,3]) is not static", "the outer target shape is not a constant"})
        QVERIFY2(reasons.contains(expected), qPrintable(reasons + " lacks: " + expected));
}

void tst_CleanupPasses::canonicalizeFormsAtOpset17()
{
    // lo/hi become -inf/+inf. `last` is shared: ReduceSum reads it against rank 3, Unsqueeze against
    // its output's rank 4, so each gets its own non-negative copy and `last` goes.
    auto model = withInfinities(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x, float[4,5] w) => (float[2,3,8] c, float[2,3,1] r, float[2,3,4,1] u, float[4,3,2] t, float[2,3,4] s,
                                      float[2,3,4] k, float[6,5] m)
<int64[1] last = {-1}, float lo = {-1.0}, float hi = {1.0}>
{
    c = Concat <axis = -1> (x, x)
    r = ReduceSum <keepdims = 1> (x, last)
    u = Unsqueeze(x, last)
    t = Transpose(x)
    s = Softmax <axis = -1> (x)
    k = Clip(x, lo, hi)
    f = Flatten <axis = -1> (x)
    m = Gemm <alpha = 1.0, beta = 1.0, transA = 0> (f, w)
}
)", {"lo", "hi"});
    QVERIFY(model);
    auto result = test::runChecked(*model, "canonicalize");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const ir::Model &out = *result->model;
    auto producer = [&](const std::string &output) -> const ir::Node & {
        return out.node(valueNamed(out, output).producer);
    };
    QCOMPARE(passes::attrInt(producer("c"), "axis", -9), std::int64_t(2));
    QCOMPARE(constantInput(out, "r", 1), (std::vector<std::int64_t>{2}));
    QCOMPARE(constantInput(out, "u", 1), (std::vector<std::int64_t>{3}));
    QCOMPARE(passes::attrInts(producer("t"), "perm"), (std::vector<std::int64_t>{2, 1, 0}));
    QCOMPARE(passes::attrInt(producer("f"), "axis", -9), std::int64_t(2));
    QVERIFY(producer("s").attributes.empty()); // axis -1 is Softmax's default from opset 13
    QVERIFY(producer("r").attributes.empty()); // keepdims = 1 is the default
    QVERIFY(producer("m").attributes.empty());
    QCOMPARE(producer("k").inputs.size(), std::size_t(1));
    QCOMPARE(initializerNames(out), (std::set<std::string>{"last_non_negative", "last_non_negative_1"}));
    const passes::Statistics &stats = only(*result).statistics;
    QCOMPARE(stats.at("rewrites.drop-default-attributes"), std::int64_t(3));
    QCOMPARE(stats.at("rewrites.non-negative-axes"), std::int64_t(4));
    QCOMPARE(stats.at("rewrites.explicit-transpose-perm"), std::int64_t(1));
    QCOMPARE(stats.at("rewrites.drop-infinite-clip-bounds"), std::int64_t(1));
    QVERIFY(secondRunChangesNothing(out, "canonicalize"));
}

void tst_CleanupPasses::canonicalizeAxesAttributesBeforeOpset13()
{
    // Before opset 13 Squeeze and the reductions take `axes` as an attribute (negative from opset 11).
    auto loaded = test::loadModelText(R"(
<ir_version: 6, opset_import: ["" : 11]>
g (float[2,3,1] x) => (float[2,3] q, float[2,1,1] r)
{
    q = Squeeze <axes = [-1]> (x)
    r = ReduceMean <axes = [-2]> (x)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "canonicalize");
    QVERIFY(result);
    QVERIFY(test::numericsHeld(*result));
    const ir::Model &out = *result->model;
    QCOMPARE(passes::attrInts(out.node(valueNamed(out, "q").producer), "axes"), (std::vector<std::int64_t>{2}));
    QCOMPARE(passes::attrInts(out.node(valueNamed(out, "r").producer), "axes"), (std::vector<std::int64_t>{1}));
    QCOMPARE(only(*result).statistics.at("rewrites.non-negative-axes"), std::int64_t(2));
    QVERIFY(secondRunChangesNothing(out, "canonicalize"));
}

void tst_CleanupPasses::canonicalizeFormsNeedKnownRanks()
{
    // r's rank is the unknown length of `dyn`: the negative axis and the implicit perm stay, with the
    // reason. Finite Clip bounds and a non-default axis are already canonical.
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] y, int64[k] dyn) => (float[a,b] c, float[a,b] t, float[2,3] q, float[2,3] s)
<float lo = {-1.0}, float hi = {1.0}>
{
    r = Reshape(y, dyn)
    c = Concat <axis = -1> (r, r)
    t = Transpose(r)
    q = Clip(y, lo, hi)
    s = Softmax <axis = 0> (y)
}
)");
    QVERIFY(loaded);
    auto result = test::runChecked(*loaded->model, "canonicalize");
    QVERIFY(result);
    QVERIFY(!only(*result).changed);
    const QString reasons = QString::fromStdString(test::failureReasons(*result, "canonicalize"));
    QCOMPARE(reasons.count("the rank of 'r' is unknown"), 2); // non-negative-axes and explicit-transpose-perm
}

static const char *kSymbolic = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,3] x) => (float[N,3] y)
<float[3] w = {1.0, 2.0, 3.0}>
{
    a = Mul(x, w)
    y = Sigmoid(a)
}
)";

void tst_CleanupPasses::freezeShapesFixesDims()
{
    auto loaded = test::loadModelText(kSymbolic);
    QVERIFY(loaded);
    // The numeric check feeds the frozen dims by itself (the frozen model refuses others).
    for (const char *pipeline : {"freeze-shapes{input=2x3}", "freeze-shapes{input=x:2x3}"}) {
        auto result = test::runChecked(*loaded->model, pipeline);
        QVERIFY(result);
        QCOMPARE(typeOf(*result->model, "x"), std::string("float[2,3]"));
        QCOMPARE(typeOf(*result->model, "a"), std::string("float[2,3]"));
        QCOMPARE(typeOf(*result->model, "y"), std::string("float[2,3]"));
        QVERIFY(test::numericsHeld(*result));
    }
}

void tst_CleanupPasses::freezeShapesRefusesBadDims()
{
    auto loaded = test::loadModelText(kSymbolic);
    QVERIFY(loaded);
    const std::vector<std::pair<std::string, std::string>> cases{
        {"freeze-shapes{input=2x4}", "input 'x' dim 1 is 3, not 4"},
        {"freeze-shapes{input=2x3x4}", "input 'x' has rank 2, but 3 dims were given"},
        {"freeze-shapes{input=2xa}", "option 'input'"},
        {"freeze-shapes", "option 'input'"},
        {"freeze-shapes{input=z:2x3}", "'z', which is not a graph input"},
    };
    for (const auto &[pipeline, expected] : cases) {
        const QString error = QString::fromStdString(pipelineError(*loaded->model, pipeline));
        QVERIFY2(error.contains(QString::fromStdString(expected)), qPrintable(QString::fromStdString(pipeline) + ": " + error));
    }
}

void tst_CleanupPasses::convertOpsetConverts()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 12]>
g (float[1,3] x) => (float[3] y)
{
    s = Squeeze <axes = [0]> (x)
    y = Relu(s)
}
)");
    QVERIFY(loaded);
    const ir::NodeId squeeze = valueNamed(*loaded->model, "s").producer;
    auto result = test::runChecked(*loaded->model, "convert-opset{target=13}");
    QVERIFY(result);
    const ir::Model &model = *result->model;
    QCOMPARE(passes::standardOpset(model), 13);
    // The Squeeze is the same node, now reading its axes.
    QCOMPARE(valueNamed(model, "s").producer, squeeze);
    QCOMPARE(model.node(squeeze).inputs.size(), std::size_t(2));
    QVERIFY(!model.node(squeeze).attribute("axes"));
    QVERIFY(test::numericsHeld(*result));
    // Same opset: nothing to do.
    auto same = test::runChecked(model, "convert-opset{target=13}");
    QVERIFY(same);
    QVERIFY(!only(*same).changed);
}

void tst_CleanupPasses::convertOpsetReplacesNodes()
{
    // Upsample-9 becomes a new Resize node (the adapter replaces it); the output keeps its name.
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 9]>
g (float[1,1,2,2] x) => (float[1,1,4,4] y)
<float[4] scales = {1.0, 1.0, 2.0, 2.0}>
{
    y = Upsample <mode = "nearest"> (x, scales)
}
)");
    QVERIFY(loaded);
    const ir::NodeId upsample = valueNamed(*loaded->model, "y").producer;
    auto result = test::runChecked(*loaded->model, "convert-opset{target=10}");
    QVERIFY(result);
    const ir::Model &model = *result->model;
    QCOMPARE(test::opHistogram(model), (std::map<std::string, int>{{"Resize", 1}}));
    const ir::NodeId resize = valueNamed(model, "y").producer;
    QVERIFY(model.value(model.graph(model.mainGraph()).outputs[0]).producer == resize);
    QCOMPARE(result->provenance.originsOf(resize), std::vector<ir::NodeId>{upsample});
    QVERIFY(test::numericsHeld(*result));
}

void tst_CleanupPasses::convertOpsetOnFixtures_data()
{
    QTest::addColumn<QString>("name");
    for (const char *name : {"cnn_bn", "control_flow", "external_data", "transformer_opset14"})
        QTest::newRow(name) << name;
}

void tst_CleanupPasses::convertOpsetOnFixtures()
{
    QFETCH(QString, name);
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + name.toStdString() + "/model.onnx");
    QVERIFY2(loaded, loaded ? "" : loaded.error().format().c_str());
    const std::size_t nodes = loaded->model->liveNodeCount();
    auto result = test::runChecked(*loaded->model, "convert-opset{target=17}");
    QVERIFY(result);
    QCOMPARE(passes::standardOpset(*result->model), 17);
    QVERIFY(result->model->liveNodeCount() >= nodes);
    QVERIFY(test::numericsHeld(*result));
}

void tst_CleanupPasses::convertOpsetRefusesBadTargets()
{
    auto loaded = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x, float[3] w, float[3] b) => (float[2,3] y)
{
    y = LayerNormalization(x, w, b)
}
)");
    QVERIFY(loaded);
    const QString range = QString::fromStdString(pipelineError(*loaded->model, "convert-opset{target=99}"));
    QVERIFY2(range.contains("option 'target' (99)"), qPrintable(range));
    const QString text = QString::fromStdString(pipelineError(*loaded->model, "convert-opset{target=new}"));
    QVERIFY2(text.contains("target"), qPrintable(text));
    const QString down = QString::fromStdString(pipelineError(*loaded->model, "convert-opset{target=16}"));
    QVERIFY2(down.contains("cannot convert from opset 17 to 16"), qPrintable(down));
    // The converter rewrites the Squeeze inside the If: the rewriter cannot rebuild subgraphs.
    auto branched = test::loadModelText(R"(
<ir_version: 8, opset_import: ["" : 12]>
g (bool c, float[1,3] x) => (float[3] y)
{
    y = If(c) <then_branch = t () => (float[3] a) { a = Squeeze <axes = [0]> (x) },
               else_branch = e () => (float[3] b) { b = Squeeze <axes = [0]> (x) }>
}
)");
    QVERIFY(branched);
    const QString sub = QString::fromStdString(pipelineError(*branched->model, "convert-opset{target=13}"));
    QVERIFY2(sub.contains("changes subgraph") && sub.contains("not supported"), qPrintable(sub));
}

void tst_CleanupPasses::cleanupPipelineOnFixtures_data()
{
    QTest::addColumn<QString>("name");
    for (const std::string &name : test::fixtureNames())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void tst_CleanupPasses::cleanupPipelineOnFixtures()
{
    QFETCH(QString, name);
    const char *pipeline = "infer-shapes,fold-constants,eliminate-identity,canonicalize,eliminate-common-subexpressions,"
                           "eliminate-dead";
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + name.toStdString() + "/model.onnx");
    QVERIFY2(loaded, loaded ? "" : loaded.error().format().c_str());
    auto first = test::runChecked(*loaded->model, pipeline);
    QVERIFY(first);
    bool changed = false;
    for (const passes::PassResult &pass : first->passes) {
        changed = changed || pass.changed;
    }
    if (changed)
        QVERIFY(test::numericsHeld(*first));
    else
        QCOMPARE(first->overall.skippedReason, std::string("no pass changed the model"));
    auto second = test::runChecked(*first->model, pipeline);
    QVERIFY(second);
    for (const passes::PassResult &pass : second->passes)
        QVERIFY2(!pass.changed, qPrintable(QString::fromStdString(pass.name + " changed the model again: " +
                                                                  (pass.rewrites.empty() ? std::string("types")
                                                                                         : pass.rewrites.front().pattern + " " +
                                                                                               pass.rewrites.front().detail))));
}

QTEST_GUILESS_MAIN(tst_CleanupPasses)
#include "tst_CleanupPasses.moc"
