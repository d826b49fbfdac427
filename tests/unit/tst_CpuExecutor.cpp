// The compiled CPU executor against the reference interpreter: every native kernel on odd shapes,
// strides, groups, broadcasting and each fused activation; the fixtures after -O2; the memory plan;
// the profile cache; and refusals (no fallback, memory cap).
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "passes/NumericCheck.h"
#include "passes/Pipeline.h"
#include "runtime/cpu/CpuExecutor.h"

#include <QtTest>

#include <random>

using namespace portolan;

namespace {

/// "float[2,3] name = {…}" with seeded values in [-1, 1).
std::string weight(const std::string &name, const std::vector<std::int64_t> &shape, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::string dims, values;
    std::int64_t count = 1;
    for (const auto d : shape) {
        dims += (dims.empty() ? "" : ",") + std::to_string(d);
        count *= d;
    }
    for (std::int64_t i = 0; i < count; ++i)
        values += (i ? ", " : "") + std::to_string(dist(gen));
    return "float[" + dims + "] " + name + " = {" + values + "}";
}

struct KernelCase {
    std::string signature;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> weights; ///< seeded values
    std::string scalars; ///< ", float lo = {-0.5}…": weights with given values
    std::string body;
};

std::unique_ptr<ir::Model> caseModel(const KernelCase &c)
{
    std::string weights;
    unsigned seed = 1;
    for (const auto &[name, shape] : c.weights)
        weights += (weights.empty() ? "" : ", ") + weight(name, shape, seed++);
    if (weights.empty() && !c.scalars.empty())
        weights = c.scalars.substr(2);
    else
        weights += c.scalars;
    const std::string header = "<ir_version: 8, opset_import: [\"\" : 17, \"ai.portolan\" : 1]>\ng " + c.signature + "\n";
    return test::modelFromText(header + (weights.empty() ? "" : "<" + weights + ">\n") + "{\n" + c.body + "\n}\n");
}

/// Runs both executors on seeded feeds; true when the compiled outputs match the reference's
/// within `rtol` (and 1e-5 absolute) on at least one element.
bool matchesReference(const ir::Model &model, runtime::cpu::CpuExecutor &cpu, double rtol = 1e-4, std::uint64_t seed = 7,
                      const std::map<std::string, std::vector<std::int64_t>> &shapes = {})
{
    auto feeds = passes::seededFeeds(model, seed, shapes, 3);
    if (!feeds) {
        qWarning("%s", feeds.error().format().c_str());
        return false;
    }
    auto expected = runtime::Interpreter(model).run(*feeds);
    auto actual = cpu.run(*feeds);
    for (const auto *result : {&expected, &actual})
        if (!*result) {
            qWarning("%s", result->error().format().c_str());
            return false;
        }
    const passes::NumericCheck check = passes::compareOutputs(*expected, *actual, 1e-5, rtol);
    if (!check.withinTolerance || check.comparedElements == 0)
        qWarning("output %s: max abs error %g, max rel error %g over %zu elements", check.worstOutput.c_str(),
                 check.maxAbsError, check.maxRelError, check.comparedElements);
    return check.withinTolerance && check.comparedElements > 0;
}

/// "name (Op): why; …" for the nodes the last run ran on reference kernels.
std::string fallbacks(const runtime::cpu::CpuExecutor &cpu)
{
    std::string out;
    for (const auto &node : cpu.lastProfile()->nodes())
        if (node.implementation == "reference")
            out += (out.empty() ? "" : "; ") + node.name + " (" + node.opType + "): " + node.whyFallback;
    return out;
}

} // namespace

class tst_CpuExecutor : public QObject {
    Q_OBJECT
private slots:
    void nativeKernelMatchesReference_data();
    void nativeKernelMatchesReference();
    void fixturesMatchAfterO2_data();
    void fixturesMatchAfterO2();
    void plannerReusesMemory();
    void elementwiseChainRunsInPlace();
    void profilesAreCachedByShape();
    void viewsShareStorage();
    void fallbackViewsOfTheArenaAreCopiedOut();
    void withoutFallbackUnsupportedNodesAreListed();
    void memoryPlanOverTheCapIsRefused();
    void convolutionsShareTheirLayoutAndObserversSeeRowMajor();
    void poolingTakesTheConvolutionsLayout();
    void flopsCountTheProducts();
};

void tst_CpuExecutor::nativeKernelMatchesReference_data()
{
    QTest::addColumn<QString>("signature");
    QTest::addColumn<QString>("weights"); // name:d0xd1… (seeded) or name=value (a scalar), separated by spaces
    QTest::addColumn<QString>("body");
    auto row = [](const char *name, const char *signature, const char *weights, const char *body) {
        QTest::newRow(name) << signature << weights << body;
    };
    row("FusedConv, pads, bias, Relu", "(float[1,3,7,9] x) => (float[1,5,7,9] y)", "w:5x3x3x3 b:5",
        "y = ai.portolan.FusedConv <pads = [1, 1, 1, 1], activation = \"Relu\"> (x, w, b)");
    row("Conv, stride 2, dilation 2, batch 2, odd sizes", "(float[2,4,11,13] x) => (float[2,6,4,5] y)", "w:6x4x3x3",
        "y = Conv <strides = [2, 2], dilations = [2, 2]> (x, w)");
    row("depthwise Conv, SAME_UPPER", "(float[1,4,8,7] x) => (float[1,4,8,7] y)", "w:4x1x3x3 b:4",
        "y = Conv <group = 4, auto_pad = \"SAME_UPPER\"> (x, w, b)");
    row("grouped Conv, asymmetric pads", "(float[1,6,5,6] x) => (float[1,4,6,6] y)", "w:4x3x2x3",
        "y = Conv <group = 2, pads = [1, 1, 0, 1]> (x, w)");
    row("FusedConv, residual, HardSigmoid", "(float[1,2,5,5] x, float[1,3,5,5] z) => (float[1,3,5,5] y)", "w:3x2x1x1 b:3",
        "y = ai.portolan.FusedConv <activation = \"HardSigmoid\", activation_params = [0.3, 0.4]> (x, w, b, z)");
    row("FusedConv, stride 2, residual, Clip", "(float[1,2,6,6] x, float[1,3,3,3] z) => (float[1,3,3,3] y)", "w:3x2x3x3 b:3",
        "y = ai.portolan.FusedConv <strides = [2, 2], pads = [1, 1, 1, 1], activation = \"Clip\", "
        "activation_params = [-0.5, 0.5]> (x, w, b, z)");
    row("Conv 1-D, LeakyRelu", "(float[1,3,10] x) => (float[1,4,8] y)", "w:4x3x3",
        "y = ai.portolan.FusedConv <activation = \"LeakyRelu\", activation_params = [0.2]> (x, w)");
    row("Conv 3-D, HardSwish", "(float[1,2,4,5,6] x) => (float[1,3,4,5,6] y)", "w:3x2x3x3x3 b:3",
        "y = ai.portolan.FusedConv <pads = [1, 1, 1, 1, 1, 1], activation = \"HardSwish\"> (x, w, b)");
    row("FusedConv, Sigmoid and Tanh", "(float[1,3,6,6] x) => (float[1,2,6,6] y)", "w:2x3x1x1 v:2x2x1x1",
        "t = ai.portolan.FusedConv <activation = \"Sigmoid\"> (x, w)\n y = ai.portolan.FusedConv <activation = \"Tanh\"> (t, v)");
    row("FusedGemm, transA, transB, alpha, beta, C matrix, Gelu", "(float[6,3] a) => (float[3,4] y)", "w:4x6 c:3x4",
        "y = ai.portolan.FusedGemm <transA = 1, transB = 1, alpha = 0.5, beta = 2.0, activation = \"Gelu\"> (a, w, c)");
    row("Gemm, bias row", "(float[5,7] a) => (float[5,3] y)", "w:7x3 c:3", "y = Gemm (a, w, c)");
    row("Gemm, scalar C, beta", "(float[2,7] a) => (float[2,3] y)", "w:7x3 c:1", "y = Gemm <beta = 0.5> (a, w, c)");
    row("Gemm, column C", "(float[4,5] a) => (float[4,3] y)", "w:5x3 c:4x1", "y = Gemm (a, w, c)");
    row("Gemm, C an input", "(float[4,5] a, float[4,3] c) => (float[4,3] y)", "w:5x3", "y = Gemm (a, w, c)");
    row("MatMul, batch broadcast, B an input", "(float[2,1,3,5] a, float[4,5,6] b) => (float[2,4,3,6] y)", "",
        "y = MatMul (a, b)");
    row("FusedMatMul, bias, GeluTanh", "(float[2,7,5] a) => (float[2,7,3] y)", "w:5x3 b:3",
        "y = ai.portolan.FusedMatMul <activation = \"GeluTanh\"> (a, w, b)");
    row("MatMul, vector B", "(float[3,4] a) => (float[3] y)", "w:4", "y = MatMul (a, w)");
    row("MatMul, vector A", "(float[4] a) => (float[2,5] y)", "w:2x4x5", "y = MatMul (a, w)");
    row("MaxPool, ceil_mode, stride 2", "(float[1,2,8,8] x) => (float[1,2,4,4] y)", "",
        "y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1> (x)");
    row("MaxPool, pads", "(float[1,3,7,7] x) => (float[1,3,4,4] y)", "",
        "y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (x)");
    row("AveragePool, pads excluded", "(float[1,2,6,5] x) => (float[1,2,6,5] y)", "",
        "y = AveragePool <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (x)");
    row("AveragePool, pads counted", "(float[1,2,6,5] x) => (float[1,2,3,3] y)", "",
        "y = AveragePool <kernel_shape = [2, 2], strides = [2, 2], pads = [0, 0, 0, 1], count_include_pad = 1> (x)");
    row("AveragePool, ceil_mode", "(float[1,2,7,7] x) => (float[1,2,4,4] y)", "",
        "y = AveragePool <kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 1> (x)");
    row("Add, Sub, Mul, Div, Max, Min with broadcasting", "(float[2,3,4] x, float[3,1] s) => (float[2,3,4] y)", "",
        "a = Add (s, x)\n b = Sub (a, s)\n c = Mul (s, b)\n d = Div (c, s)\n e = Max (d, s)\n y = Min (s, e)");
    row("unary activations and math", "(float[2,3,5] x) => (float[2,3,5] y)", "lo=0.1 hi=0.6",
        "a = Relu (x)\n b = LeakyRelu <alpha = 0.2> (x)\n c = Add (a, b)\n d = Elu (c)\n e = Sigmoid (d)\n f = Tanh (e)\n"
        " g = Exp (f)\n h = Log (g)\n i = Abs (h)\n j = Sqrt (i)\n k = HardSwish (j)\n l = ai.portolan.Gelu (k)\n"
        " m = ai.portolan.Gelu <approximate = \"tanh\"> (l)\n y = Clip (m, lo, hi)");
    row("Attention NSD, mask, causal", "(float[2,3,5,4] q, float[2,3,5,4] k, float[2,3,5,6] v, float[2,1,1,5] m) => (float[2,3,5,6] y)",
        "", "y = ai.portolan.Attention <scale = 0.5, causal = 1> (q, k, v, m)");
    row("Attention SND, Sq != Sk", "(float[2,3,2,4] q, float[2,5,2,4] k, float[2,5,2,3] v) => (float[2,3,2,3] y)", "",
        "y = ai.portolan.Attention <scale = 0.7, layout = \"SND\"> (q, k, v)");
    row("Attention rank 3, causal, Sq < Sk", "(float[4,3,8] q, float[4,6,8] k, float[4,6,8] v) => (float[4,3,8] y)", "",
        "y = ai.portolan.Attention <causal = 1> (q, k, v)");
    row("LayerNormalization, two axes", "(float[2,3,4] x) => (float[2,3,4] y)", "g:3x4 b:3x4",
        "y = LayerNormalization <axis = 1, epsilon = 1e-3> (x, g, b)");
    row("ai.portolan LayerNormalization, no beta", "(float[5,7] x) => (float[5,7] y)", "g:7",
        "y = ai.portolan.LayerNormalization (x, g)");
    row("SkipLayerNormalization, bias, sum", "(float[2,3,8] x, float[2,3,8] s) => (float[2,3,8] y, float[2,3,8] sum)",
        "g:8 b:8 c:8", "y, sum = ai.portolan.SkipLayerNormalization <epsilon = 1e-5> (x, s, g, b, c)");
    row("Transpose, perm and default", "(float[2,3,4,5] x) => (float[3,5,2,4] y, float[5,4,3,2] z)", "",
        "y = Transpose <perm = [1, 3, 0, 2]> (x)\n z = Transpose (x)");
    row("Softmax, last and middle axis", "(float[2,3,7] x) => (float[2,3,7] y, float[2,3,7] z)", "",
        "y = Softmax (x)\n z = Softmax <axis = 1> (x)");
    row("Slice, negative start, two axes", "(float[3,7,5] x) => (float[3,4,2] y)", "s=int64:-5,1 e=int64:6,3 a=int64:1,-1",
        "y = Slice (x, s, e, a)");
    row("Slice, ends past the dim, steps 1", "(float[4,6] x) => (float[2,6] y)", "s=int64:2 e=int64:100 a=int64:0 t=int64:1",
        "y = Slice (x, s, e, a, t)");
    row("Split, uneven, last axis", "(float[2,3,10] x) => (float[2,3,2] y, float[2,3,5] z, float[2,3,3] w)", "n=int64:2,5,3",
        "y, z, w = Split <axis = -1> (x, n)");
    row("Concat, a constant between inputs", "(float[2,3,4] x, float[2,1,4] z) => (float[2,6,4] y)", "c:2x2x4",
        "y = Concat <axis = 1> (x, c, z)");
    row("Gather, negative and repeated indices, axis 1", "(float[3,5,4] x) => (float[3,4,4] y)", "i=int64:0,-1,2,2",
        "y = Gather <axis = 1> (x, i)");
    row("Gather, scalar index (a class token)", "(float[2,5,3] x) => (float[2,3] y)", "i=int64[]:0",
        "y = Gather <axis = 1> (x, i)");
    row("Gather with the indices of a Constant node (evaluated at compile time)", "(float[4,3] x) => (float[2,3] y)", "",
        "i = Constant <value = int64[2] {3, 1}> ()\n y = Gather (x, i)");
    // roi, scales and sizes come from Constant nodes (an omitted input cannot be written in the text format)
    row("Resize nearest ×2, asymmetric floor (PyTorch's interpolate)", "(float[1,2,3,5] x) => (float[1,2,6,10] y)", "",
        "roi = Constant <value = float[0] {}> ()\n sc = Constant <value = float[4] {1.0, 1.0, 2.0, 2.0}> ()\n"
        " y = Resize <mode = \"nearest\", coordinate_transformation_mode = \"asymmetric\", nearest_mode = \"floor\"> (x, roi, sc)");
    row("Resize linear, half_pixel, to sizes", "(float[2,3,4,6] x) => (float[2,3,7,5] y)", "",
        "roi = Constant <value = float[0] {}> ()\n sc = Constant <value = float[0] {}> ()\n"
        " sz = Constant <value = int64[4] {2, 3, 7, 5}> ()\n y = Resize <mode = \"linear\"> (x, roi, sc, sz)");
    row("Resize cubic, align_corners, exclude_outside", "(float[1,1,5,4] x) => (float[1,1,8,9] y)", "",
        "roi = Constant <value = float[0] {}> ()\n sc = Constant <value = float[0] {}> ()\n"
        " sz = Constant <value = int64[4] {1, 1, 8, 9}> ()\n"
        " y = Resize <mode = \"cubic\", coordinate_transformation_mode = \"align_corners\", exclude_outside = 1> (x, roi, sc, sz)");
    row("Resize tf_crop_and_resize, extrapolation", "(float[1,1,4,4] x) => (float[1,1,3,3] y)", "",
        "roi = Constant <value = float[8] {0.0, 0.0, -0.2, 0.1, 1.0, 1.0, 0.9, 1.3}> ()\n sc = Constant <value = float[0] {}> ()\n"
        " sz = Constant <value = int64[4] {1, 1, 3, 3}> ()\n"
        " y = Resize <mode = \"linear\", coordinate_transformation_mode = \"tf_crop_and_resize\", extrapolation_value = 7.5> (x, roi, sc, sz)");
    row("GlobalAveragePool and GlobalMaxPool", "(float[2,3,5,7] x) => (float[2,3,1,1] y, float[2,3,1,1] z)", "",
        "y = GlobalAveragePool (x)\n z = GlobalMaxPool (x)");
}

void tst_CpuExecutor::nativeKernelMatchesReference()
{
    QFETCH(QString, signature);
    QFETCH(QString, weights);
    QFETCH(QString, body);
    KernelCase c{signature.toStdString(), {}, {}, body.toStdString()};
    for (const QString &w : weights.split(' ', Qt::SkipEmptyParts)) {
        if (w.contains("=int64[]:")) { // name=int64[]:v: a constant int64 scalar
            c.scalars += ", int64 " + w.section('=', 0, 0).toStdString() + " = {" + w.section(':', 1).toStdString() + "}";
            continue;
        }
        if (w.contains("=int64:")) { // name=int64:v0,v1,…: a constant int64 vector
            const QStringList values = w.section(':', 1).split(',');
            c.scalars += ", int64[" + std::to_string(values.size()) + "] " + w.section('=', 0, 0).toStdString() + " = {" +
                         values.join(", ").toStdString() + "}";
            continue;
        }
        if (w.contains('=')) {
            c.scalars += ", float " + w.section('=', 0, 0).toStdString() + " = {" + w.section('=', 1).toStdString() + "}";
            continue;
        }
        std::vector<std::int64_t> shape;
        for (const QString &d : w.section(':', 1).split('x'))
            shape.push_back(d.toLongLong());
        c.weights.emplace_back(w.section(':', 0, 0).toStdString(), shape);
    }
    auto model = caseModel(c);
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    QVERIFY(matchesReference(*model, cpu));
    for (const auto &node : cpu.lastProfile()->nodes())
        QVERIFY2(node.implementation != "reference", (node.name + ": " + node.whyFallback).c_str());
}

void tst_CpuExecutor::fixturesMatchAfterO2_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::newRow("cnn_bn") << "cnn_bn/model.onnx";
    QTest::newRow("transformer_opset14") << "transformer_opset14/model.onnx";
    QTest::newRow("transformer_opset17") << "transformer_opset17/model.onnx";
    QTest::newRow("control_flow") << "control_flow/model.onnx";
}

void tst_CpuExecutor::fixturesMatchAfterO2()
{
    QFETCH(QString, fixture);
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + fixture.toStdString());
    QVERIFY2(loaded, loaded ? "" : loaded.error().format().c_str());
    auto pipeline = passes::presetPipeline(2);
    QVERIFY(pipeline);
    auto optimized = passes::runPipeline(*loaded->model, *pipeline, {});
    QVERIFY2(optimized, optimized ? "" : optimized.error().format().c_str());
    runtime::cpu::CpuExecutor cpu(*optimized->model);
    // the reference runs the unoptimized model: compiled and fused together against the oracle
    auto feeds = passes::seededFeeds(*loaded->model, 11, {}, 3);
    QVERIFY(feeds);
    auto expected = runtime::Interpreter(*loaded->model).run(*feeds);
    auto actual = cpu.run(*feeds);
    QVERIFY2(expected, expected ? "" : expected.error().format().c_str());
    QVERIFY2(actual, actual ? "" : actual.error().format().c_str());
    const passes::NumericCheck check = passes::compareOutputs(*expected, *actual, 1e-5, 1e-4);
    QVERIFY2(check.withinTolerance && check.comparedElements > 0,
             (check.worstOutput + ": rel " + std::to_string(check.maxRelError)).c_str());
    if (fixture.startsWith("cnn"))
        QVERIFY2(fallbacks(cpu).empty(), fallbacks(cpu).c_str());
}

void tst_CpuExecutor::plannerReusesMemory()
{
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/cnn_bn/model.onnx");
    QVERIFY(loaded);
    auto optimized = passes::runPipeline(*loaded->model, *passes::presetPipeline(2), {});
    QVERIFY(optimized);
    runtime::cpu::CpuExecutor cpu(*optimized->model);
    QVERIFY(matchesReference(*optimized->model, cpu));
    const auto &plan = cpu.lastProfile()->memoryPlan();
    QVERIFY(plan.arenaBytes > 0);
    QVERIFY(plan.arenaBytes >= plan.livePeakBytes);
    QVERIFY2(plan.arenaBytes < plan.naiveBytes, (std::to_string(plan.arenaBytes) + " vs " + std::to_string(plan.naiveBytes)).c_str());
}

void tst_CpuExecutor::elementwiseChainRunsInPlace()
{
    // t is read again by Add after Relu: Relu cannot overwrite it, Sigmoid and Add can overwrite theirs
    auto model = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] a, float[8,8] b) => (float[4,8] y)
{
    t = MatMul (a, b)
    r = Relu (t)
    s = Sigmoid (r)
    y = Add (s, t)
}
)");
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    QVERIFY(matchesReference(*model, cpu));
    const auto &plan = cpu.lastProfile()->memoryPlan();
    QCOMPARE(plan.naiveBytes, std::size_t(4 * 128));
    QCOMPARE(plan.arenaBytes, std::size_t(2 * 128)); // t, and r (then s, then y, in r's bytes)
}

void tst_CpuExecutor::profilesAreCachedByShape()
{
    auto model = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,6] a) => (float[N,3] y)
<float[6,3] w = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8}>
{
    t = MatMul (a, w)
    y = Softsign (t)
}
)");
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    QVERIFY(matchesReference(*model, cpu, 1e-4, 1, {{"a", {2, 6}}}));
    QVERIFY(matchesReference(*model, cpu, 1e-4, 2, {{"a", {2, 6}}}));
    QVERIFY(matchesReference(*model, cpu, 1e-4, 3, {{"a", {5, 6}}}));
    QCOMPARE(cpu.stats().profilesCompiled, std::size_t(2));
    QCOMPARE(cpu.stats().cacheHits, std::size_t(1));
    QVERIFY2(fallbacks(cpu).find("(Softsign): no native kernel for Softsign") != std::string::npos, fallbacks(cpu).c_str());
}

void tst_CpuExecutor::viewsShareStorage()
{
    auto model = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x) => (float[2,12] y, float[6,4] z)
<float[12,12] w = {1,0,0,0,0,0,0,0,0,0,0,0, 0,1,0,0,0,0,0,0,0,0,0,0, 0,0,1,0,0,0,0,0,0,0,0,0, 0,0,0,1,0,0,0,0,0,0,0,0, 0,0,0,0,1,0,0,0,0,0,0,0, 0,0,0,0,0,1,0,0,0,0,0,0, 0,0,0,0,0,0,1,0,0,0,0,0, 0,0,0,0,0,0,0,1,0,0,0,0, 0,0,0,0,0,0,0,0,1,0,0,0, 0,0,0,0,0,0,0,0,0,1,0,0, 0,0,0,0,0,0,0,0,0,0,1,0, 0,0,0,0,0,0,0,0,0,0,0,2}, int64[2] s = {6, 4}>
{
    f = Flatten (x)
    y = MatMul (f, w)
    z = Reshape (y, s)
}
)");
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    QVERIFY(matchesReference(*model, cpu));
    const auto &nodes = cpu.lastProfile()->nodes();
    QCOMPARE(nodes.front().implementation, std::string("view"));
    QCOMPARE(nodes.back().implementation, std::string("view"));
}

void tst_CpuExecutor::fallbackViewsOfTheArenaAreCopiedOut()
{
    // The Reshape's target shape is an input, so it runs on the reference kernel, which answers with
    // a view of `a`; the plan hands `a`'s bytes to `z` once the Reshape has read them, so the view
    // must not stay in the arena (it once did: y came back equal to z)
    auto model = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3,32] x, int64[2] s) => (float[96,1] y, float[3,32] z)
{
    a = Relu (x)
    y = Reshape (a, s)
    b = Neg (x)
    z = Sigmoid (b)
}
)");
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    std::vector<float> x(96);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(i) * 0.02f - 1.f;
    const runtime::NamedValues feeds{
        {"x", runtime::RuntimeValue::ofTensor(runtime::Tensor::fromVector<float>(onnx::TensorProto::FLOAT, {3, 32}, x))},
        {"s", runtime::RuntimeValue::ofTensor(runtime::Tensor::fromVector<std::int64_t>(onnx::TensorProto::INT64, {2}, {96, 1}))}};
    auto expected = runtime::Interpreter(*model).run(feeds);
    auto actual = cpu.run(feeds);
    QVERIFY(expected && actual);
    QCOMPARE(cpu.lastProfile()->nodes()[1].implementation, std::string("reference"));
    const passes::NumericCheck check = passes::compareOutputs(*expected, *actual, 1e-6, 1e-6);
    QVERIFY2(check.withinTolerance, check.worstOutput.c_str());
}

void tst_CpuExecutor::withoutFallbackUnsupportedNodesAreListed()
{
    auto model = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,6] a) => (float[2,6] y)
{
    t = Softsign (a)
    y = Erf (t)
}
)");
    QVERIFY(model);
    runtime::cpu::CompileOptions options;
    options.allowFallback = false;
    runtime::cpu::CpuExecutor cpu(*model, options);
    const auto st = cpu.checkSupported();
    QVERIFY(!st);
    const std::string message = st.error().format();
    QVERIFY2(message.find("Softsign") != std::string::npos && message.find("Erf") != std::string::npos, message.c_str());
    QVERIFY2(message.find("fallback") != std::string::npos, message.c_str());
    auto feeds = passes::seededFeeds(*model, 1, {}, 3);
    QVERIFY(feeds);
    QVERIFY(!cpu.run(*feeds));
}

void tst_CpuExecutor::memoryPlanOverTheCapIsRefused()
{
    auto model = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[64,64] a, float[64,64] b) => (float[64,64] y)
{
    t = MatMul (a, b)
    y = MatMul (t, b)
}
)");
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    auto feeds = passes::seededFeeds(*model, 1, {}, 3);
    QVERIFY(feeds);
    runtime::RunOptions options;
    options.maxMemoryBytes = 1024;
    auto result = cpu.run(*feeds, options);
    QVERIFY(!result);
    QVERIFY2(result.error().format().find("memory plan") != std::string::npos, result.error().format().c_str());
}

namespace {

/// Keeps a copy of every node output, by value name.
class Capture final : public runtime::RunObserver {
public:
    explicit Capture(const ir::Model &model) : m_model(model) {}
    void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
    {
        for (std::size_t k = 0; k < outputs.size(); ++k)
            if (node.outputs[k].valid() && outputs[k].isTensor())
                values[m_model.value(node.outputs[k]).name] = outputs[k].tensor.clone();
    }
    std::map<std::string, runtime::Tensor> values;

private:
    const ir::Model &m_model;
};

} // namespace

void tst_CpuExecutor::convolutionsShareTheirLayoutAndObserversSeeRowMajor()
{
    // MobileNet's inverted residual: expand 1×1, depthwise 3×3, project 1×1, with odd channel counts
    auto model = caseModel({"(float[1,24,10,10] x) => (float[1,24,10,10] y)",
                            {{"we", {72, 24, 1, 1}}, {"wd", {72, 1, 3, 3}}, {"wp", {24, 72, 1, 1}}},
                            "",
                            R"(    e = Conv <kernel_shape = [1, 1]> (x, we)
    d = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1], group = 72> (e, wd)
    p = Conv <kernel_shape = [1, 1]> (d, wp)
    y = Relu (p))"});
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    auto feeds = passes::seededFeeds(*model, 4, {}, 3);
    QVERIFY(feeds);
    Capture compiled(*model), reference(*model);
    runtime::RunOptions options;
    options.observer = &compiled;
    QVERIFY(cpu.run(*feeds, options));
    options.observer = &reference;
    QVERIFY(runtime::Interpreter(*model).run(*feeds, options));
    // e and d go from convolution to convolution in oneDNN's own layout (x86 convolutions never pick
    // row-major NCHW at these channel counts), yet every observed value is row-major
    QCOMPARE(cpu.lastProfile()->blockedValues(), std::size_t(2));
    QCOMPARE(compiled.values.size(), reference.values.size());
    for (const auto &[name, expected] : reference.values) {
        const runtime::Tensor &actual = compiled.values.at(name);
        QCOMPARE(actual.shape(), expected.shape());
        for (std::int64_t i = 0; i < expected.size(); ++i)
            QVERIFY2(std::fabs(actual.data<float>()[i] - expected.data<float>()[i]) <= 1e-4 * (1 + std::fabs(expected.data<float>()[i])),
                     (name + " at " + std::to_string(i)).c_str());
    }
    // fp16 rounds the whole blocked buffer (padding included) and stays near fp32
    runtime::cpu::CompileOptions half;
    half.precision.precision = runtime::cpu::Precision::Fp16;
    runtime::cpu::CpuExecutor lowered(*model, half);
    auto y16 = lowered.run(*feeds);
    QVERIFY(y16);
    QCOMPARE(lowered.lastProfile()->blockedValues(), std::size_t(2));
    const runtime::Tensor &expected = reference.values.at("y"), &actual = (*y16)[0].second.tensor;
    double worst = 0, scale = 0; // the drift relative to the output's scale
    for (std::int64_t i = 0; i < expected.size(); ++i) {
        worst = std::max(worst, std::fabs(double(actual.data<float>()[i]) - expected.data<float>()[i]));
        scale = std::max(scale, std::fabs(double(expected.data<float>()[i])));
    }
    QVERIFY2(worst > 0 && worst < 1e-2 * scale, (std::to_string(worst) + " of " + std::to_string(scale)).c_str());
}

void tst_CpuExecutor::poolingTakesTheConvolutionsLayout()
{
    // ResNet's stem: convolution, max pooling, convolution; then a global average before a Flatten
    auto model = caseModel({"(float[1,3,17,17] x) => (float[1,32] y)",
                            {{"w1", {16, 3, 3, 3}}, {"w2", {32, 16, 1, 1}}},
                            "",
                            R"(    c = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (x, w1)
    p = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (c)
    d = Conv <kernel_shape = [1, 1]> (p, w2)
    g = GlobalAveragePool (d)
    y = Flatten (g))"});
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    Capture compiled(*model), reference(*model);
    auto feeds = passes::seededFeeds(*model, 8, {}, 3);
    QVERIFY(feeds);
    runtime::RunOptions options;
    options.observer = &compiled;
    QVERIFY(cpu.run(*feeds, options));
    options.observer = &reference;
    QVERIFY(runtime::Interpreter(*model).run(*feeds, options));
    // c reaches the max pooling and d the global average in the convolution's layout, p the second
    // convolution; g, which a view reads, goes back to row-major
    QCOMPARE(cpu.lastProfile()->blockedValues(), std::size_t(3));
    for (const auto &[name, expected] : reference.values) {
        const runtime::Tensor &actual = compiled.values.at(name);
        for (std::int64_t i = 0; i < expected.size(); ++i)
            QVERIFY2(std::fabs(actual.data<float>()[i] - expected.data<float>()[i]) <= 1e-4 * (1 + std::fabs(expected.data<float>()[i])),
                     (name + " at " + std::to_string(i)).c_str());
    }
}

void tst_CpuExecutor::flopsCountTheProducts()
{
    auto model = caseModel({"(float[1,3,8,8] x, float[2,5,6] a, float[6,2] g) => (float[1,4,8,8] y, float[2,5,7] m, float[2,3] h)",
                            {{"w", {4, 3, 3, 3}}, {"b", {6, 7}}, {"c", {6, 3}}},
                            "",
                            R"(    t = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (x, w)
    y = Relu (t)
    m = MatMul (a, b)
    h = Gemm <transA = 1> (g, c))"});
    QVERIFY(model);
    runtime::cpu::CpuExecutor cpu(*model);
    QVERIFY(matchesReference(*model, cpu));
    std::map<std::string, std::int64_t> byOp;
    for (const auto &n : cpu.lastProfile()->nodes())
        byOp[n.opType] = n.flops;
    QCOMPARE(byOp["Conv"], std::int64_t(2 * 4 * 8 * 8 * 3 * 3 * 3)); // every output sums C·kh·kw products
    QCOMPARE(byOp["Relu"], std::int64_t(0));
    QCOMPARE(byOp["MatMul"], std::int64_t(2 * 2 * 5 * 7 * 6));
    QCOMPARE(byOp["Gemm"], std::int64_t(2 * 2 * 3 * 6)); // K is A's first dim under transA
    QCOMPARE(cpu.lastProfile()->flops(), byOp["Conv"] + byOp["MatMul"] + byOp["Gemm"]);
}

QTEST_GUILESS_MAIN(tst_CpuExecutor)
#include "tst_CpuExecutor.moc"
