// The comparison engine: tensor metrics on hand-made tensors; whole-run comparison of the reference
// against the compiled executor through pass provenance; a deliberately broken node (a LayerNorm
// epsilon, a transposed conv weight) found as the first divergence; A's tensors spilled to disk
// under a tiny memory budget with the same result; and comparing nothing refused.
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"
#include "support/FaultyKernels.h"

#include "compare/Divergence.h"
#include "compare/ImportedRun.h"
#include "compare/KernelCheck.h"
#include "runtime/NumpyFiles.h"
#include "compare/PolygraphyRun.h"
#include "compare/PrecisionBisection.h"
#include "compare/Repro.h"
#include "compare/RunComparison.h"
#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "ir/Topology.h"
#include "passes/NumericCheck.h"
#include "passes/PassManager.h"
#include "passes/Pipeline.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/TestDataSet.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/cpu/CpuKernel.h"
#include "support/TextColumn.h"

#include <QtTest>

#include <random>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>

using namespace portolan;
using runtime::Tensor;

namespace {

Tensor floats(const std::vector<std::int64_t> &shape, const std::vector<float> &values)
{
    return Tensor::fromVector<float>(onnx::TensorProto::FLOAT, shape, values);
}

std::unique_ptr<ir::Model> fixture(const std::string &name)
{
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + name + "/model.onnx");
    return loaded ? std::move(loaded->model) : nullptr;
}

compare::RunSide referenceSide(const ir::Model &model, std::shared_ptr<runtime::Interpreter> &keep)
{
    keep = std::make_shared<runtime::Interpreter>(model);
    auto interpreter = keep;
    return {"reference", &model, [interpreter](const runtime::NamedValues &f, const runtime::RunOptions &o) {
                return interpreter->run(f, o);
            }};
}

/// `model` with `edit` applied to its proto (names kept, so the runs align by name).
std::unique_ptr<ir::Model> edited(const ir::Model &model, const std::function<void(onnx::ModelProto &)> &edit)
{
    onnx::ModelProto proto = ir::toModelProto(model);
    edit(proto);
    auto loaded = ir::loadModelProto(std::move(proto), "edited", model.baseDir);
    return loaded ? std::move(loaded->model) : nullptr;
}

} // namespace

class tst_Compare : public QObject {
    Q_OBJECT
private slots:
    void metricsOfKnownTensors();
    void largeTensorsTakeQuantilesFromAHistogram();
    void sampledQuantilesSeeEveryPhaseOfAPeriod();
    void vectorLanesAgreeWithTheDefinitions();
    void exactQuantilesAreTheNearestRanks();
    void blockedLayoutsCompareAsTheirRowMajorCopies_data();
    void blockedLayoutsCompareAsTheirRowMajorCopies();
    void nansShapesAndTopK();
    void referenceAgainstCompiledThroughProvenance_data();
    void referenceAgainstCompiledThroughProvenance();
    void brokenLayerNormEpsilonIsTheFirstDivergence();
    void transposedConvWeightIsTheTopSuspect();
    void lowPrecisionKernelIsWhereTheErrorStarts();
    void splittingAQuietHalfAmplifiesNothing();
    void attentionMasksStayOutOfTheScale();
    void tableColumnsKeepTheNamesTails();
    void sequenceOutputsCompareElementByElement();
    void tinyBudgetSpillsWithTheSameResult();
    void reproCutsTheNodeAndItsProducers();
    void faultyCompiledKernelIsFoundAndReproduces_data();
    void faultyCompiledKernelIsFoundAndReproduces();
    void bisectionKeepsTheOverflowingNodesAtFp32();
    void importedTensorsCompareAsARun();
    void npzAndPolygraphyRunsImport();
    void comparingNothingIsRefused();
    void progressCountsBothRunsNodes();
};

void tst_Compare::metricsOfKnownTensors()
{
    const auto m = compare::compareTensors(floats({2, 2}, {1, 2, 3, 4}), floats({2, 2}, {1, 2.5f, 3, 4.1f}), {1e-3, 1e-3});
    QVERIFY(m.mismatch.empty());
    QCOMPARE(m.elements, std::int64_t(4));
    QCOMPARE(m.maxAbs, 0.5);
    QVERIFY(std::fabs(m.meanAbs - 0.15) < 1e-6); // (0.5 + 0.1) / 4, 4.1f is not exact
    QCOMPARE(m.maxRel, 0.25);
    QCOMPARE(m.worstIndex, std::int64_t(1));
    QCOMPARE(m.worstAt, (std::vector<std::int64_t>{0, 1}));
    QCOMPARE(m.worstReference, 2.0);
    QCOMPARE(m.worstActual, 2.5);
    QVERIFY(!m.passed);
    QCOMPARE(m.outOfTolerance, std::int64_t(2));
    QCOMPARE(m.neededAtol, 0.5);  // what passes at rtol 1e-3: an element passes by either bound
    QCOMPARE(m.neededRtol, 0.25); // what passes at atol 1e-3
    QVERIFY(std::fabs(m.rmse - std::sqrt((0.25 + 0.01) / 4)) < 1e-6);
    const double dot = 1 + 5 + 9 + 4 * 4.1, na = std::sqrt(30.0), nb = std::sqrt(1 + 6.25 + 9 + 4.1 * 4.1);
    QVERIFY(std::fabs(m.cosine - dot / (na * nb)) < 1e-6);
    QVERIFY(std::fabs(m.snrDb - 10 * std::log10(30 / 0.26)) < 1e-3);
    // the tolerance it asked for passes
    const auto loose = compare::compareTensors(floats({2, 2}, {1, 2, 3, 4}), floats({2, 2}, {1, 2.5f, 3, 4.1f}),
                                               {m.neededAtol + 1e-9, 1e-3});
    QVERIFY(loose.passed);
    const auto same = compare::compareTensors(floats({3}, {0, 0, 0}), floats({3}, {0, 0, 0}), {});
    QVERIFY(same.passed);
    QCOMPARE(same.cosine, 1.0);
    QVERIFY(std::isinf(same.snrDb));
}

void tst_Compare::largeTensorsTakeQuantilesFromAHistogram()
{
    // 200k elements with errors i·1e-6: the exact median is 0.1, the p99 0.198; the histogram's
    // 1/16-octave bins are within 6.25%
    const std::int64_t n = 200000;
    std::vector<float> ref(static_cast<std::size_t>(n), 1.f), act(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        act[static_cast<std::size_t>(i)] = 1.f + static_cast<float>(i) * 1e-6f;
    const auto m = compare::compareTensors(floats({n}, ref), floats({n}, act), {});
    QVERIFY2(std::fabs(m.medianAbs / 0.1 - 1) < 0.0625, std::to_string(m.medianAbs).c_str());
    QVERIFY2(std::fabs(m.p99Abs / 0.198 - 1) < 0.0625, std::to_string(m.p99Abs).c_str());
    QVERIFY(std::fabs(m.maxAbs - 0.199999) < 1e-4); // the extremes and sums stay exact
    QVERIFY(std::fabs(m.meanAbs - 0.1) < 1e-4);
    QCOMPARE(m.worstIndex, n - 1);
    QCOMPARE(m.referenceScale, 1.0);
    // one NaN sends its block down the general path; the other blocks stay on the fast one
    act[123456] = std::numeric_limits<float>::quiet_NaN();
    const auto withNan = compare::compareTensors(floats({n}, ref), floats({n}, act), {1, 1});
    QCOMPARE(withNan.actualNans, std::int64_t(1));
    QCOMPARE(withNan.worstIndex, std::int64_t(123456));
    QVERIFY(!withNan.passed);
    QVERIFY(std::isinf(withNan.neededAtol));
    QVERIFY(std::fabs(withNan.meanAbs - m.meanAbs) < 1e-5); // the NaN is left out of the sums
}

void tst_Compare::sampledQuantilesSeeEveryPhaseOfAPeriod()
{
    // 40000 elements: the quantiles come from one group of eight in four. Errors of 1e-3 in every
    // fourth group, 1e-6 elsewhere: a sample fixed on one phase would say median 1e-3 (or p99 1e-6);
    // the true median is 1e-6 and the p99 1e-3
    const std::int64_t n = 40000;
    std::vector<float> ref(static_cast<std::size_t>(n), 1.f), act(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        act[static_cast<std::size_t>(i)] = 1.f + ((i / 8) % 4 == 0 ? 1e-3f : 1e-6f);
    const auto m = compare::compareTensors(floats({n}, ref), floats({n}, act), {});
    QVERIFY2(std::fabs(m.medianAbs / 1e-6 - 1) < 0.1, std::to_string(m.medianAbs).c_str());
    QVERIFY2(std::fabs(m.p99Abs / 1e-3 - 1) < 0.1, std::to_string(m.p99Abs).c_str());
    QVERIFY(std::fabs(m.meanAbs - (1e-3 + 3e-6) / 4) < 1e-6); // the sums see every element
}

void tst_Compare::vectorLanesAgreeWithTheDefinitions()
{
    // 100003 elements (a partial last group of lanes), zero references every 7th element, the largest
    // error twice (the first is the worst element), against each metric written out in double
    const std::int64_t n = 100003;
    std::vector<float> ref(static_cast<std::size_t>(n)), act(static_cast<std::size_t>(n));
    std::mt19937 rng(5);
    std::normal_distribution<float> dist(0.f, 1.f);
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] = i % 7 == 0 ? 0.f : dist(rng);
        act[i] = ref[i] + 1e-5f * dist(rng);
    }
    act[4242] = ref[4242] + 0.5f;
    act[90001] = ref[90001] + 0.5f;
    ref[90001] = ref[4242]; // the same error at both
    act[90001] = act[4242];
    const compare::Tolerance tol{1e-5, 1e-4};
    const auto m = compare::compareTensors(floats({n}, ref), floats({n}, act), tol, false, 1e-8);
    double maxAbs = 0, maxRel = 0, sumAbs = 0, neededAtol = 0, neededRtol = 0, dot = 0, rr = 0, aa = 0;
    bool passed = true;
    std::int64_t worst = -1, outOfTolerance = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double x = ref[static_cast<std::size_t>(i)], y = act[static_cast<std::size_t>(i)];
        const double e = std::fabs(y - x), ax = std::fabs(x);
        if (e > maxAbs) {
            maxAbs = e;
            worst = i;
        }
        maxRel = std::max(maxRel, e / std::max(ax, 1e-8));
        sumAbs += e;
        const bool within = e <= tol.atol || e <= tol.rtol * ax; // Polygraphy's rule
        passed = passed && within;
        outOfTolerance += !within;
        if (e > tol.rtol * ax)
            neededAtol = std::max(neededAtol, e);
        if (e > tol.atol)
            neededRtol = std::max(neededRtol, ax > 0 ? e / ax : std::numeric_limits<double>::infinity());
        dot += x * y;
        rr += x * x;
        aa += y * y;
    }
    QCOMPARE(m.maxAbs, maxAbs);
    QCOMPARE(m.maxRel, maxRel);
    QCOMPARE(m.worstIndex, worst);
    QCOMPARE(worst, std::int64_t(4242));
    QCOMPARE(m.passed, passed);
    QCOMPARE(m.outOfTolerance, outOfTolerance);
    QVERIFY(outOfTolerance > 0);
    QCOMPARE(m.neededAtol, neededAtol);
    QCOMPARE(m.neededRtol, neededRtol);
    QVERIFY(std::fabs(m.meanAbs - sumAbs / static_cast<double>(n)) < 1e-12 * sumAbs);
    QVERIFY(std::fabs(m.cosine - dot / std::sqrt(rr * aa)) < 1e-12);
}

void tst_Compare::exactQuantilesAreTheNearestRanks()
{
    // up to 4096 elements the median and p99 are exact: the nearest-rank values of the sorted errors,
    // with exact matches, repeated errors and errors octaves apart among them
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(7), std::int64_t(100), std::int64_t(4096)}) {
        std::vector<float> ref(static_cast<std::size_t>(n)), act(ref.size());
        std::mt19937 rng(static_cast<unsigned>(n));
        std::uniform_int_distribution<int> kind(0, 3);
        std::normal_distribution<float> dist(0.f, 1.f);
        for (std::size_t i = 0; i < ref.size(); ++i) {
            ref[i] = 1.f + std::fabs(dist(rng));
            const int k = kind(rng);
            act[i] = k == 0 ? ref[i] : k == 1 ? ref[i] + 0.25f : ref[i] * (1 + std::ldexp(std::fabs(dist(rng)), -kind(rng) * 6));
        }
        const auto m = compare::compareTensors(floats({n}, ref), floats({n}, act), {});
        std::vector<double> abs, rel;
        for (std::size_t i = 0; i < ref.size(); ++i) {
            const double e = std::fabs(static_cast<double>(act[i]) - ref[i]);
            abs.push_back(static_cast<float>(e));
            rel.push_back(static_cast<float>(e / std::max(std::fabs(static_cast<double>(ref[i])), 1e-8)));
        }
        std::sort(abs.begin(), abs.end());
        std::sort(rel.begin(), rel.end());
        const auto rank = [&](double q) {
            return static_cast<std::size_t>(std::min<double>(static_cast<double>(n - 1), std::ceil(q * static_cast<double>(n)) - 1));
        };
        QCOMPARE(m.medianAbs, abs[rank(0.5)]);
        QCOMPARE(m.p99Abs, abs[rank(0.99)]);
        QCOMPARE(m.medianRel, rel[rank(0.5)]);
        QCOMPARE(m.p99Rel, rel[rank(0.99)]);
    }
}

void tst_Compare::blockedLayoutsCompareAsTheirRowMajorCopies_data()
{
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("block");      // 0: channel-last (nhwc), else nChw<block>c
    QTest::addColumn<int>("spatial");    // H = W
    QTest::newRow("nhwc, 96 channels, 28x28 (sampled quantiles)") << 96 << 0 << 28;
    QTest::newRow("nChw16c, 48 channels, 30x30") << 48 << 16 << 30;
    QTest::newRow("nChw8c, 24 channels, 7x7 (exact quantiles)") << 24 << 8 << 7;
    QTest::newRow("nhwc, 3 channels, 100x100 (rows shorter than a transpose)") << 3 << 0 << 100;
}

void tst_Compare::blockedLayoutsCompareAsTheirRowMajorCopies()
{
    // a compiled run's tensor in its own layout, against the reference in row-major order: the same
    // metrics as its row-major copy gives, the worst element found at its row-major place
    QFETCH(int, channels);
    QFETCH(int, block);
    QFETCH(int, spatial);
    const std::int64_t c = channels, s = std::int64_t(spatial) * spatial, n = 2 * c * s;
    runtime::PhysicalLayout layout; // row-major strides: N c·s, C s, H spatial, W 1
    if (block == 0)
        layout.dims = {{2, c * s}, {spatial, spatial}, {spatial, 1}, {c, s}};
    else
        layout.dims = {{2, c * s}, {c / block, block * s}, {spatial, spatial}, {spatial, 1}, {block, s}};
    QCOMPARE(layout.elementCount(), n);
    std::vector<float> ref(static_cast<std::size_t>(n)), act(ref.size());
    std::mt19937 rng(11);
    std::normal_distribution<float> dist(0.f, 1.f);
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] = i % 5 == 0 ? 0.f : dist(rng);
        act[i] = ref[i] + 1e-4f * dist(rng);
    }
    act[static_cast<std::size_t>(n / 3)] += 0.25f; // the worst element
    const runtime::Shape shape{2, c, spatial, spatial};
    std::vector<float> inLayout(act.size());
    for (std::int64_t k = 0; k < n; ++k)
        inLayout[static_cast<std::size_t>(k)] = act[static_cast<std::size_t>(layout.rowMajorIndexOf(k))];
    const Tensor reference = floats(shape, ref), rowMajor = floats(shape, act), blocked = floats(shape, inLayout);
    QCOMPARE(runtime::rowMajorOf(blocked, layout).data<float>()[n / 3], act[static_cast<std::size_t>(n / 3)]);
    const compare::Tolerance tol{1e-4, 1e-4};
    const auto expected = compare::compareTensors(reference, rowMajor, tol);
    const auto actual = compare::compareTensors(reference, blocked, tol, false, 1e-8, &layout);
    QCOMPARE(actual.elements, n);
    QCOMPARE(actual.maxAbs, expected.maxAbs);
    QCOMPARE(actual.worstIndex, n / 3);
    QCOMPARE(actual.worstAt, expected.worstAt);
    QCOMPARE(actual.worstActual, expected.worstActual);
    QCOMPARE(actual.worstReference, expected.worstReference);
    QCOMPARE(actual.maxRel, expected.maxRel);
    QCOMPARE(actual.passed, expected.passed);
    QCOMPARE(actual.neededAtol, expected.neededAtol);
    QCOMPARE(actual.neededRtol, expected.neededRtol);
    QCOMPARE(actual.referenceScale, expected.referenceScale);
    QVERIFY(std::fabs(actual.meanAbs - expected.meanAbs) < 1e-12 * expected.meanAbs);
    QVERIFY(std::fabs(actual.cosine - expected.cosine) < 1e-12);
    // the sample takes other elements in another order: the quantiles agree within a bin or two
    QVERIFY2(std::fabs(actual.medianAbs / expected.medianAbs - 1) < 0.15, std::to_string(actual.medianAbs).c_str());
    // a NaN is counted where it is, and is the worst element
    inLayout[17] = std::numeric_limits<float>::quiet_NaN();
    const auto withNan = compare::compareTensors(reference, floats(shape, inLayout), tol, false, 1e-8, &layout);
    QCOMPARE(withNan.actualNans, std::int64_t(1));
    QCOMPARE(withNan.worstIndex, layout.rowMajorIndexOf(17));
    // the reader hands out any stretch in the layout's order
    runtime::PhysicalOrderReader reader(ref.data(), layout);
    for (const std::int64_t start : {std::int64_t(0), n / 2 + 5, std::int64_t(3), n - 40}) {
        const float *read = reader.read(start, 40);
        for (std::int64_t k = 0; k < 40; ++k)
            QCOMPARE(read[k], ref[static_cast<std::size_t>(layout.rowMajorIndexOf(start + k))]);
    }
}

void tst_Compare::nansShapesAndTopK()
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto m = compare::compareTensors(floats({4}, {1, nan, 3, 5}), floats({4}, {1, nan, nan, 5.5f}), {1, 1});
    QCOMPARE(m.referenceNans, std::int64_t(1));
    QCOMPARE(m.actualNans, std::int64_t(2));
    QVERIFY(!m.passed); // a NaN where the reference has a number fails at any tolerance
    QCOMPARE(m.worstIndex, std::int64_t(2));
    QVERIFY(std::isinf(m.neededAtol));
    // NaN against NaN at the same place is an exact match, at the tightest tolerance too (a Sqrt of
    // negatives in ONNX's own tests once failed with no error anywhere)
    const auto same = compare::compareTensors(floats({3}, {nan, 2, nan}), floats({3}, {nan, 2, nan}), {0, 0});
    QVERIFY(same.passed);
    QCOMPARE(same.maxAbs, 0.0);
    QCOMPARE(same.maxRel, 0.0);
    QCOMPARE(same.meanRel, 0.0);
    QCOMPARE(same.p99Rel, 0.0);
    const auto shapes = compare::compareTensors(floats({2, 2}, {1, 2, 3, 4}), floats({4}, {1, 2, 3, 4}), {});
    QVERIFY(shapes.mismatch.find("shapes differ: [2,2] vs [4]") != std::string::npos);
    // logits, two rows: the first agrees at top-1, the second only within the top-5
    const auto logits = compare::compareTensors(floats({2, 6}, {0, 9, 1, 2, 3, 4, 8, 1, 2, 3, 4, 5}),
                                                floats({2, 6}, {0, 9, 1, 2, 3, 4, 5, 1, 2, 3, 4, 8}), {}, true);
    QCOMPARE(*logits.top1, 0.5);
    QCOMPARE(*logits.top5, 1.0);
}

void tst_Compare::referenceAgainstCompiledThroughProvenance_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("cnn_bn") << "cnn_bn";
    QTest::newRow("transformer_opset17") << "transformer_opset17";
    QTest::newRow("transformer_opset14") << "transformer_opset14";
}

void tst_Compare::referenceAgainstCompiledThroughProvenance()
{
    QFETCH(QString, name);
    auto model = fixture(name.toStdString());
    QVERIFY(model);
    auto optimized = passes::runPipeline(*model, *passes::presetPipeline(2), {});
    QVERIFY(optimized);
    std::shared_ptr<runtime::Interpreter> interpreter;
    const compare::RunSide a = referenceSide(*model, interpreter);
    runtime::cpu::CpuExecutor cpu(*optimized->model);
    const compare::RunSide b{"cpu", optimized->model.get(),
                             [&](const runtime::NamedValues &f, const runtime::RunOptions &o) { return cpu.run(f, o); }};
    const compare::Alignment alignment = compare::alignByProvenance(*model, *optimized->model, optimized->provenance);
    auto feeds = passes::seededFeeds(*model, 3, {}, 3);
    QVERIFY(feeds);
    compare::ComparisonOptions options;
    options.tolerance = {1e-4, 1e-4};
    auto result = compare::compareRuns(a, b, alignment, *feeds, options);
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    // every fused node's output is the original chain's last output: far more than the outputs align
    QVERIFY2(result->tensors.size() > 4, std::to_string(result->tensors.size()).c_str());
    QVERIFY(!result->outputs().empty());
    QVERIFY(result->outputsPassed());
    for (const compare::ComparedTensor &t : result->tensors)
        QVERIFY2(t.metrics.passed && t.metrics.mismatch.empty(), (t.name + " " + t.metrics.mismatch).c_str());
    QCOMPARE(compare::firstDivergence(*result, *optimized->model), nullptr);
}

void tst_Compare::brokenLayerNormEpsilonIsTheFirstDivergence()
{
    // B is the fused encoder with one LayerNorm's epsilon made 0.5: only that node's output can start
    // the divergence; everything after it carries the error
    auto model = fixture("transformer_opset17");
    QVERIFY(model);
    auto optimized = passes::runPipeline(*model, *passes::presetPipeline(2), {});
    QVERIFY(optimized);
    const ir::Model &good = *optimized->model;
    std::string broken;
    auto bad = edited(good, [&](onnx::ModelProto &proto) {
        int seen = 0;
        for (onnx::NodeProto &node : *proto.mutable_graph()->mutable_node())
            if (node.op_type().find("LayerNormalization") != std::string::npos && ++seen == 2) {
                broken = node.name();
                for (onnx::AttributeProto &attr : *node.mutable_attribute())
                    if (attr.name() == "epsilon")
                        attr.set_f(0.5f);
            }
    });
    QVERIFY(bad);
    QVERIFY(!broken.empty());
    std::shared_ptr<runtime::Interpreter> ia, ib;
    const compare::RunSide a = referenceSide(good, ia), b = referenceSide(*bad, ib);
    auto feeds = passes::seededFeeds(good, 1, {}, 3);
    QVERIFY(feeds);
    auto result = compare::compareRuns(a, b, compare::alignByName(good, *bad), *feeds, {});
    QVERIFY(result);
    QVERIFY(!result->outputsPassed());
    const compare::ComparedTensor *first = compare::firstDivergence(*result, *bad);
    QVERIFY(first);
    QCOMPARE(first->node, broken);
    const auto suspects = compare::rankSuspects(*result, *bad, 3);
    QCOMPARE(suspects.front().tensor->node, broken);
    QVERIFY(suspects.front().introduced);
}

void tst_Compare::transposedConvWeightIsTheTopSuspect()
{
    auto model = fixture("cnn_bn");
    QVERIFY(model);
    auto optimized = passes::runPipeline(*model, *passes::presetPipeline(2), {});
    QVERIFY(optimized);
    const ir::Model &good = *optimized->model;
    // the second convolution's weight [Co, Ci, kh, kw] with kh and kw swapped: same shape, wrong numbers
    std::string convNode;
    auto bad = edited(good, [&](onnx::ModelProto &proto) {
        int seen = 0;
        for (const onnx::NodeProto &node : proto.graph().node())
            if (node.op_type().find("Conv") != std::string::npos && ++seen == 2) {
                convNode = node.name();
                for (onnx::TensorProto &w : *proto.mutable_graph()->mutable_initializer())
                    if (w.name() == node.input(1)) {
                        auto t = runtime::tensorFromProto(w);
                        const auto &s = t->shape();
                        Tensor swapped = t->clone();
                        for (std::int64_t o = 0; o < s[0] * s[1]; ++o)
                            for (std::int64_t i = 0; i < s[2]; ++i)
                                for (std::int64_t j = 0; j < s[3]; ++j)
                                    swapped.mutableData<float>()[(o * s[2] + i) * s[3] + j] = t->data<float>()[(o * s[2] + j) * s[3] + i];
                        w = runtime::tensorToProto(swapped, w.name());
                    }
            }
    });
    QVERIFY(bad);
    std::shared_ptr<runtime::Interpreter> ia;
    const compare::RunSide a = referenceSide(good, ia);
    runtime::cpu::CpuExecutor cpu(*bad);
    const compare::RunSide b{"cpu", bad.get(), [&](const runtime::NamedValues &f, const runtime::RunOptions &o) { return cpu.run(f, o); }};
    auto feeds = passes::seededFeeds(good, 2, {}, 3);
    QVERIFY(feeds);
    compare::ComparisonOptions options;
    options.tolerance = {1e-4, 1e-4};
    auto result = compare::compareRuns(a, b, compare::alignByName(good, *bad), *feeds, options);
    QVERIFY(result);
    const auto suspects = compare::rankSuspects(*result, *bad, 3);
    QVERIFY(!suspects.empty());
    QCOMPARE(suspects.front().tensor->node, convNode);
    QVERIFY(suspects.front().introduced);
    QCOMPARE(compare::firstDivergence(*result, *bad)->node, convNode);
    // B's kernel is right on B's inputs: the weights, not the kernel, changed
    auto checks = compare::checkSuspectKernels(b, *feeds, {suspects.front()}, options);
    QVERIFY2(checks, checks ? "" : checks.error().format().c_str());
    QCOMPARE(checks->front().verdict, compare::KernelVerdict::KernelAgrees);
    QVERIFY2(checks->front().explanation.starts_with("introduced by the graph"), checks->front().explanation.c_str());
}

void tst_Compare::attentionMasksStayOutOfTheScale()
{
    // a finfo.min mask is not data: the scale is the largest unmasked magnitude, on the exact path
    // (small tensors) and on the vectorized one (large, all finite) alike
    const float masked = -std::numeric_limits<float>::max();
    for (const std::int64_t n : {std::int64_t(8), std::int64_t(100000)}) {
        std::vector<float> ref(static_cast<std::size_t>(n)), act(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < ref.size(); ++i) {
            ref[i] = i % 4 == 3 ? masked + 1e30f : static_cast<float>(i % 7) - 3.f; // a score added to a mask is a mask
            act[i] = i % 4 == 3 ? ref[i] : ref[i] + 1e-3f;
        }
        const auto m = compare::compareTensors(floats({n}, ref), floats({n}, act), {1, 1});
        QCOMPARE(m.referenceScale, 3.0);
        QVERIFY(m.passed);
    }

    // so a Softmax over masked scores carries its input's error instead of "amplifying" it ×1e38
    auto model = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
        g (float[1,4] scores, float[1,4] mask) => (float[1,4] p) {
            s = Add(scores, mask)
            p = Softmax <axis = -1> (s)
        })");
    QVERIFY(model);
    std::shared_ptr<runtime::Interpreter> ia, ib;
    const compare::RunSide a = referenceSide(*model->model, ia), b = referenceSide(*model->model, ib);
    const compare::RunSide nudged{"nudged", b.model, [&](const runtime::NamedValues &f, const runtime::RunOptions &o) {
                                      runtime::NamedValues moved = f;
                                      moved[0].second = runtime::RuntimeValue::ofTensor(floats({1, 4}, {0.501f, -0.5f, 1.f, 0.f}));
                                      return b.run(moved, o);
                                  }};
    const runtime::NamedValues feeds{{"scores", runtime::RuntimeValue::ofTensor(floats({1, 4}, {0.5f, -0.5f, 1.f, 0.f}))},
                                     {"mask", runtime::RuntimeValue::ofTensor(floats({1, 4}, {0, 0, 0, masked}))}};
    compare::ComparisonOptions options;
    options.tolerance = {1, 1};
    auto result = compare::compareRuns(a, nudged, compare::alignByName(*model->model, *model->model), feeds, options);
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    std::map<std::string, double> amplification;
    for (const compare::Suspect &s : compare::rankSuspects(*result, *model->model, 10))
        amplification[s.tensor->name] = s.amplification;
    QVERIFY(amplification.contains("p"));
    QVERIFY2(amplification["p"] > 0.01 && amplification["p"] < 10, std::to_string(amplification["p"]).c_str());
}

void tst_Compare::splittingAQuietHalfAmplifiesNothing()
{
    // B adds 2^-10 everywhere (exact at these magnitudes); Split hands the small-valued half on with
    // the same absolute error, which over that half's scale is 64× the whole's: a copy cannot amplify, an Add of its parts can
    const char *text = R"(<ir_version: 8, opset_import: ["" : 17]>
        g (float[2,2] x, float[2,2] shift) => (float[1,2] big, float[1,2] doubled) {
            y = Add(x, shift)
            big, small = Split <axis = 0> (y)
            doubled = Add(small, small)
        })";
    auto model = test::loadModelText(text);
    QVERIFY(model);
    std::shared_ptr<runtime::Interpreter> ia, ib;
    const compare::RunSide a = referenceSide(*model->model, ia), b = referenceSide(*model->model, ib);
    const compare::RunSide shifted{"shifted", b.model, [&](const runtime::NamedValues &f, const runtime::RunOptions &o) {
                                       runtime::NamedValues moved = f;
                                       moved[1].second = runtime::RuntimeValue::ofTensor(floats({2, 2}, {0x1p-10f, 0x1p-10f, 0x1p-10f, 0x1p-10f}));
                                       return b.run(moved, o);
                                   }};
    const runtime::NamedValues feeds{{"x", runtime::RuntimeValue::ofTensor(floats({2, 2}, {64, -64, 1, -1}))},
                                     {"shift", runtime::RuntimeValue::ofTensor(floats({2, 2}, {0, 0, 0, 0}))}};
    compare::ComparisonOptions options;
    options.tolerance = {1, 1};
    auto result = compare::compareRuns(a, shifted, compare::alignByName(*model->model, *model->model), feeds, options);
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    std::map<std::string, double> amplification;
    for (const compare::Suspect &s : compare::rankSuspects(*result, *model->model, 10))
        amplification[s.tensor->name] = s.amplification;
    QVERIFY(amplification.contains("small") && amplification.contains("doubled"));
    QCOMPARE(amplification["small"], 1.0);
    QCOMPARE(amplification["doubled"], 1.0);
    QCOMPARE(amplification["big"], 1.0);
}

void tst_Compare::sequenceOutputsCompareElementByElement()
{
    // a sequence output is compared tensor by tensor (ONNX's sequence tests once reported "OUT OF
    // TOLERANCE" with nothing compared); B shifts the second row only
    onnx::ModelProto proto = test::parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
        g (float[2,3] x, float[2,3] shift) => (float rows) { y = Add(x, shift)  rows = SplitToSequence <keepdims = 0> (y) })");
    onnx::TypeProto rows; // the text format of ONNX 1.12 cannot spell a sequence type
    rows.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    *proto.mutable_graph()->mutable_output(0)->mutable_type() = rows;
    auto model = ir::loadModelProto(std::move(proto), "sequence-output", ".");
    QVERIFY2(model, model ? "" : model.error().format().c_str());
    std::shared_ptr<runtime::Interpreter> ia, ib;
    const compare::RunSide a = referenceSide(*model->model, ia), b = referenceSide(*model->model, ib);
    const compare::RunSide shifted{"shifted", b.model, [&](const runtime::NamedValues &f, const runtime::RunOptions &o) {
                                       runtime::NamedValues moved = f;
                                       moved[1].second = runtime::RuntimeValue::ofTensor(floats({2, 3}, {0, 0, 0, 0.5f, 0, 0}));
                                       return b.run(moved, o);
                                   }};
    const runtime::NamedValues feeds{{"x", runtime::RuntimeValue::ofTensor(floats({2, 3}, {1, 2, 3, 4, 5, 6}))},
                                     {"shift", runtime::RuntimeValue::ofTensor(floats({2, 3}, {0, 0, 0, 0, 0, 0}))}};
    auto result = compare::compareRuns(a, shifted, compare::alignByName(*model->model, *model->model), feeds, {});
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    const auto outputs = result->outputs();
    QCOMPARE(outputs.size(), std::size_t(2));
    QCOMPARE(outputs[0]->name, std::string("rows[0]"));
    QVERIFY(outputs[0]->metrics.passed);
    QCOMPARE(outputs[1]->name, std::string("rows[1]"));
    QVERIFY(!outputs[1]->metrics.passed);
    QCOMPARE(outputs[1]->metrics.maxAbs, 0.5);
    QVERIFY(!result->outputsPassed());
}

void tst_Compare::tableColumnsKeepTheNamesTails()
{
    // the CLI's suspect and profile tables: names differ at their ends, so a long one loses its head
    QCOMPARE(support::tailColumn("/enc/Gemm", 12), std::string("/enc/Gemm   "));
    QCOMPARE(support::tailColumn("/encoder/layers.10/self_attn/FusedMatMul_2", 20), std::string("…_attn/FusedMatMul_2"));
    QCOMPARE(support::tailColumn("/a/bé", 5), std::string("/a/bé")); // characters, not bytes
    QCOMPARE(support::tailColumn("/a/bcdé", 4), std::string("…cdé"));
    // a fused node's name already says its op; an exporter's does not always
    QCOMPARE(compare::producerWithOp("/enc/norm1/SkipLayerNormalization", "SkipLayerNormalization"),
             std::string("/enc/norm1/SkipLayerNormalization"));
    QCOMPARE(compare::producerWithOp("/enc/Mul_3", "Mul"), std::string("/enc/Mul_3 (Mul)"));
    QCOMPARE(compare::producerWithOp("/enc/PreMul", "Mul"), std::string("/enc/PreMul (Mul)"));
    QCOMPARE(compare::producerWithOp("(Sqrt)", "Sqrt"), std::string("(Sqrt)"));
}

void tst_Compare::lowPrecisionKernelIsWhereTheErrorStarts()
{
    // fp16 against a tolerance only fp32 meets: the first convolution's own kernel (at fp16) differs
    // from the reference kernel on the very same inputs
    auto model = fixture("cnn_bn");
    QVERIFY(model);
    auto optimized = passes::runPipeline(*model, *passes::presetPipeline(2), {});
    QVERIFY(optimized);
    std::shared_ptr<runtime::Interpreter> ia;
    const compare::RunSide a = referenceSide(*model, ia);
    runtime::cpu::CompileOptions half;
    half.precision.precision = runtime::Precision::Fp16;
    runtime::cpu::CpuExecutor cpu(*optimized->model, half);
    const compare::RunSide b{"cpu:fp16", optimized->model.get(),
                             [&](const runtime::NamedValues &f, const runtime::RunOptions &o) { return cpu.run(f, o); }};
    auto feeds = passes::seededFeeds(*model, 5, {}, 3);
    QVERIFY(feeds);
    compare::ComparisonOptions options;
    options.tolerance = {1e-6, 1e-6};
    auto result = compare::compareRuns(a, b, compare::alignByProvenance(*model, *optimized->model, optimized->provenance),
                                       *feeds, options);
    QVERIFY(result);
    QVERIFY(!result->outputsPassed());
    const compare::ComparedTensor *first = compare::firstDivergence(*result, *optimized->model);
    QVERIFY(first);
    QCOMPARE(first->opType, std::string("FusedConv"));
    const auto suspects = compare::rankSuspects(*result, *optimized->model, 1);
    auto checks = compare::checkSuspectKernels(b, *feeds, suspects, options);
    QVERIFY(checks);
    QCOMPARE(checks->front().verdict, compare::KernelVerdict::KernelDiffers);
    QVERIFY(checks->front().kernelError > 1e-5 && checks->front().kernelError < 1e-2);
    QVERIFY2(checks->front().explanation.starts_with("introduced here"), checks->front().explanation.c_str());
}

void tst_Compare::tinyBudgetSpillsWithTheSameResult()
{
    auto model = fixture("transformer_opset17");
    QVERIFY(model);
    std::shared_ptr<runtime::Interpreter> ia, ib;
    const compare::RunSide a = referenceSide(*model, ia), b = referenceSide(*model, ib);
    auto feeds = passes::seededFeeds(*model, 4, {}, 3);
    QVERIFY(feeds);
    compare::ComparisonOptions roomy, tight;
    tight.memoryBudget = 1; // every tensor goes to disk
    auto inMemory = compare::compareRuns(a, b, compare::alignByName(*model, *model), *feeds, roomy);
    auto spilled = compare::compareRuns(a, b, compare::alignByName(*model, *model), *feeds, tight);
    QVERIFY(inMemory && spilled);
    QCOMPARE(inMemory->spilledBytes, std::size_t(0));
    QVERIFY(spilled->spilledBytes > 0);
    QVERIFY(spilled->peakHeldBytes <= 1);
    QCOMPARE(spilled->tensors.size(), inMemory->tensors.size());
    for (std::size_t i = 0; i < spilled->tensors.size(); ++i) {
        QCOMPARE(spilled->tensors[i].metrics.maxAbs, 0.0); // the same run twice: identical
        QCOMPARE(spilled->tensors[i].metrics.elements, inMemory->tensors[i].metrics.elements);
    }
}

void tst_Compare::reproCutsTheNodeAndItsProducers()
{
    auto model = fixture("transformer_opset17");
    QVERIFY(model);
    auto optimized = passes::runPipeline(*model, *passes::presetPipeline(2), {});
    QVERIFY(optimized);
    const ir::Model &m = *optimized->model;
    runtime::cpu::CpuExecutor cpu(m);
    const compare::RunSide b{"cpu", &m, [&](const runtime::NamedValues &f, const runtime::RunOptions &o) { return cpu.run(f, o); }};
    ir::NodeId attention;
    for (const ir::NodeId n : m.graph(m.mainGraph()).nodes)
        if (m.node(n).alive && m.node(n).opType == "Attention" && !attention.valid())
            attention = n;
    QVERIFY(attention.valid());
    auto feeds = passes::seededFeeds(*model, 6, {}, 3);
    QVERIFY(feeds);
    auto alone = compare::extractRepro(b, *feeds, {attention, 0, {1e-4, 1e-4}});
    QVERIFY2(alone, alone ? "" : alone.error().format().c_str());
    QCOMPARE(alone->model.graph().node_size(), 1);
    QCOMPARE(alone->inputs.size(), std::size_t(alone->model.graph().input_size()));
    QVERIFY(alone->inputs.size() >= 3); // q, k, v at least, as the compiled run produced them
    // two levels of producers: the head reshapes and the Q/K/V projections come along, with their weights
    auto deeper = compare::extractRepro(b, *feeds, {attention, 2, {1e-4, 1e-4}});
    QVERIFY(deeper);
    QVERIFY(deeper->model.graph().node_size() > 1);
    QVERIFY(deeper->model.graph().initializer_size() > 0); // the projection weights, embedded
    for (const auto *repro : {&*alone, &*deeper})
        for (const compare::TensorMetrics &metrics : repro->metrics)
            QVERIFY(metrics.passed); // fp32 compiled: the repro matches its reference outputs
    QVERIFY(!compare::extractRepro(b, *feeds, {ir::NodeId(), 0, {}}));
}

void tst_Compare::faultyCompiledKernelIsFoundAndReproduces_data()
{
    QTest::addColumn<QString>("fixtureName");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("fault");
    QTest::newRow("layer norm epsilon") << "transformer_opset17" << "LayerNormalization" << "epsilon";
    QTest::newRow("conv weight transposed") << "cnn_bn" << "Conv" << "transposed-weight";
}

void tst_Compare::faultyCompiledKernelIsFoundAndReproduces()
{
    // The model is right; the compiled executor's kernel of one node is not. Comparison names that
    // node first, re-running it on the reference kernel says its kernel is at fault, and a repro cut
    // around the last node with all its producers shrinks back to that node and fails
    // with B's executor run on it alone.
    QFETCH(QString, fixtureName);
    QFETCH(QString, op);
    QFETCH(QString, fault);
    auto model = fixture(fixtureName.toStdString());
    QVERIFY(model);
    auto optimized = passes::runPipeline(*model, *passes::presetPipeline(2), {});
    QVERIFY(optimized);
    const ir::Model &m = *optimized->model;
    std::string faulty;
    int seen = 0;
    const auto order = ir::topologicalOrder(m, m.mainGraph());
    QVERIFY(order);
    for (const ir::NodeId n : *order)
        if (m.node(n).opType.find(op.toStdString()) != std::string::npos && ++seen == 2)
            faulty = m.node(n).name;
    QVERIFY(!faulty.empty());
    runtime::cpu::CompileOptions options;
    options.kernelOverride = [&](const runtime::cpu::NodeBinding &binding, std::string &whyNot) {
        return binding.node.name == faulty ? test::faultyKernel(binding, fault.toStdString(), whyNot) : nullptr;
    };
    runtime::cpu::CpuExecutor cpu(m, options);
    const compare::RunSide b{"cpu", &m, [&](const runtime::NamedValues &f, const runtime::RunOptions &o) { return cpu.run(f, o); },
                             [&](const ir::Model &other, const runtime::NamedValues &f) {
                                 return runtime::cpu::CpuExecutor(other, options).run(f);
                             }};
    std::shared_ptr<runtime::Interpreter> ia;
    const compare::RunSide a = referenceSide(*model, ia);
    auto feeds = passes::seededFeeds(*model, 11, {}, 3);
    QVERIFY(feeds);
    compare::ComparisonOptions compareOptions;
    compareOptions.tolerance = {1e-4, 1e-4};
    auto result = compare::compareRuns(a, b, compare::alignByProvenance(*model, m, optimized->provenance), *feeds, compareOptions);
    QVERIFY(result);
    QVERIFY(!result->outputsPassed());
    const compare::ComparedTensor *first = compare::firstDivergence(*result, m);
    QVERIFY(first);
    QCOMPARE(first->node, faulty);
    const auto suspects = compare::rankSuspects(*result, m, 3);
    QCOMPARE(suspects.front().tensor->node, faulty);
    auto checks = compare::checkSuspectKernels(b, *feeds, {suspects.front()}, compareOptions);
    QVERIFY(checks);
    QCOMPARE(checks->front().verdict, compare::KernelVerdict::KernelDiffers);

    // the repro: the graph's last node and all its producers, shrunk to the faulty node
    const ir::NodeId last = m.value(m.graph(m.mainGraph()).outputs.front()).producer;
    const int everyLevel = static_cast<int>(order->size());
    auto repro = compare::extractRepro(b, *feeds, {last, everyLevel, *compareOptions.tolerance});
    QVERIFY2(repro, repro ? "" : repro.error().format().c_str());
    QVERIFY(repro->standalone);
    QVERIFY(repro->reproduces());
    QVERIFY2(repro->nodesBeforeShrink > 3, std::to_string(repro->nodesBeforeShrink).c_str());
    QVERIFY(repro->shrinkChecks > 0);
    std::vector<std::string> kept;
    for (const onnx::NodeProto &node : repro->model.graph().node())
        if (node.op_type() != "Constant")
            kept.push_back(node.name());
    std::string keptNames;
    for (const std::string &k : kept)
        keptNames += k + " ";
    QVERIFY2(kept == std::vector<std::string>{faulty}, (keptNames + "instead of " + faulty).c_str());
    // without shrinking the whole cut is kept, and fails as well
    auto whole = compare::extractRepro(b, *feeds, {last, everyLevel, *compareOptions.tolerance, false});
    QVERIFY(whole && whole->reproduces());
    QCOMPARE(whole->shrinkChecks, std::size_t(0));
    QVERIFY(static_cast<std::size_t>(whole->model.graph().node_size()) >= whole->nodesBeforeShrink);
}

void tst_Compare::bisectionKeepsTheOverflowingNodesAtFp32()
{
    // u = t·t reaches 90000, past fp16's 65504: the square and the division that reads it must stay
    // at fp32 (a kept producer alone does not help: its reader rounds u to fp16 on the way in)
    auto parsed = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x) => (float[4,8] y)
<float c = {300.0}, float d = {90000.0}>
{
    t = Mul (x, c)
    u = Mul (t, t)
    v = Div (u, d)
    y = Relu (v)
}
)");
    QVERIFY(parsed);
    auto model = edited(*parsed, [](onnx::ModelProto &proto) {
        const char *names[] = {"scale", "square", "divide", "relu"};
        for (int i = 0; i < proto.graph().node_size(); ++i)
            proto.mutable_graph()->mutable_node(i)->set_name(names[i]);
    });
    QVERIFY(model);
    auto feeds = passes::seededFeeds(*model, 9, {}, 3);
    QVERIFY(feeds);
    auto expected = runtime::Interpreter(*model).run(*feeds);
    QVERIFY(expected);
    runtime::PrecisionPolicy policy;
    policy.precision = runtime::Precision::Fp16;
    auto result = compare::bisectPrecision(*model, policy, *feeds, *expected, {1e-2, 1e-2});
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    QVERIFY(!result->neededNothing);
    QCOMPARE(result->candidates, std::size_t(4));
    QCOMPARE(result->keepFp32, (std::vector<std::string>{"square", "divide"}));
    QVERIFY(result->worstError < 1e-2);
    // at bf16 (fp32's range) nothing overflows: nothing to keep
    policy.precision = runtime::Precision::Bf16;
    auto bf16 = compare::bisectPrecision(*model, policy, *feeds, *expected, {5e-2, 5e-2});
    QVERIFY(bf16);
    QVERIFY(bf16->neededNothing);
    // outputs no precision meets (expected values off by 10%) are not the precision's fault
    policy.precision = runtime::Precision::Fp16;
    runtime::NamedValues wrong = *expected;
    for (auto &[name, value] : wrong)
        for (std::int64_t i = 0; i < value.tensor.size(); ++i)
            value.tensor.mutableData<float>()[i] = value.tensor.data<float>()[i] * 1.1f + 1.f;
    auto impossible = compare::bisectPrecision(*model, policy, *feeds, wrong, {1e-2, 1e-2});
    QVERIFY(!impossible);
    QVERIFY2(impossible.error().format().find("does not come from the precision") != std::string::npos,
             impossible.error().format().c_str());
}

void tst_Compare::importedTensorsCompareAsARun()
{
    // another runtime's dump: every intermediate as .pb, but one as .npy under a file-safe name
    // (which no tensor has: .npy files are named by their file name), and a stray file
    auto model = fixture("cnn_bn");
    QVERIFY(model);
    auto feeds = passes::seededFeeds(*model, 3, {}, 3);
    QVERIFY(feeds);
    struct Keep final : runtime::RunObserver {
        const ir::Model *model;
        std::vector<std::pair<std::string, Tensor>> seen;
        void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
        {
            for (std::size_t k = 0; k < outputs.size(); ++k)
                if (node.outputs[k].valid())
                    seen.emplace_back(model->value(node.outputs[k]).name, outputs[k].tensor.clone());
        }
    } keep;
    keep.model = model.get();
    runtime::RunOptions options;
    options.observer = &keep;
    QVERIFY(runtime::Interpreter(*model).run(*feeds, options));
    QTemporaryDir dir;
    for (std::size_t i = 0; i < keep.seen.size(); ++i) {
        auto &[name, tensor] = keep.seen[i];
        if (i == 2) {
            // a name with '/' is no file name: spelled %-escaped, as the external executor writes it
            QVERIFY(runtime::writeNpyFile(tensor, dir.filePath(QString::fromStdString(runtime::percentEncoded(name)) + ".npy").toStdString()));
            continue;
        }
        QVERIFY(runtime::writeValueFile(runtime::RuntimeValue::ofTensor(tensor), name,
                                        dir.filePath(QString("t%1.pb").arg(i)).toStdString(), false));
    }
    QVERIFY(runtime::writeValueFile(runtime::RuntimeValue::ofTensor(floats({1}, {1})), "no_such_tensor",
                                    dir.filePath("stray.pb").toStdString(), false));
    auto imported = compare::readImportedRun(dir.path().toStdString(), *model);
    QVERIFY2(imported, imported ? "" : imported.error().format().c_str());
    QCOMPARE(imported->unknownNames.size(), std::size_t(1)); // the stray file
    std::shared_ptr<runtime::Interpreter> ia;
    const compare::RunSide a = referenceSide(*model, ia);
    const compare::RunSide b = compare::importedSide(*model, std::make_shared<const compare::ImportedRun>(std::move(*imported)));
    auto result = compare::compareRuns(a, b, compare::alignByName(*model, *model), *feeds, {});
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    QCOMPARE(result->tensors.size(), keep.seen.size());
    for (const compare::ComparedTensor &t : result->tensors)
        QVERIFY2(t.metrics.maxAbs == 0, t.name.c_str());
    // a .npy named as the tensor is
    const std::string npyPath = dir.filePath("exact.npy").toStdString();
    QVERIFY(runtime::writeNpyFile(keep.seen[0].second, npyPath));
    auto npy = runtime::readNpyFile(npyPath);
    QVERIFY(npy);
    QCOMPARE(npy->shape(), keep.seen[0].second.shape());
    QCOMPARE(compare::compareTensors(keep.seen[0].second, *npy, {0, 0}).maxAbs, 0.0);
    QVERIFY(!runtime::readNpyFile(dir.filePath("t0.pb").toStdString()));
    QVERIFY(!compare::readImportedRun("/nonexistent", *model));
}

void tst_Compare::npzAndPolygraphyRunsImport()
{
    // tests/data/imports (generate_imports.py): the transformer's reference tensors on its
    // test_data_set_0 as NumPy archives and as Polygraphy run results with two runners
    auto model = fixture("transformer_opset17");
    QVERIFY(model);
    const std::string imports = test::fixturesDir() + "/../imports/";
    auto feeds = runtime::readTestDataInputs(*model, test::fixturesDir() + "/transformer_opset17/test_data_set_0");
    QVERIFY2(feeds, feeds ? "" : feeds.error().format().c_str());
    std::shared_ptr<runtime::Interpreter> ia;
    const compare::RunSide a = referenceSide(*model, ia);
    auto compareWith = [&](const std::string &source) -> support::Expected<compare::ComparisonResult> {
        auto imported = compare::readImportedRun(source, *model);
        if (!imported)
            return imported.takeError();
        if (!imported->unknownNames.empty())
            return support::makeError("unknown", imported->unknownNames.front());
        const compare::RunSide b = compare::importedSide(*model, std::make_shared<const compare::ImportedRun>(std::move(*imported)));
        return compare::compareRuns(a, b, compare::alignByName(*model, *model), *feeds, {});
    };
    // every float tensor, deflated: all compared, all exact (the archive holds what the reference computes)
    auto deflated = compareWith(imports + "reference.npz");
    QVERIFY2(deflated, deflated ? "" : deflated.error().format().c_str());
    QCOMPARE(deflated->tensors.size(), std::size_t(74));
    for (const compare::ComparedTensor &t : deflated->tensors)
        QVERIFY2(t.metrics.maxAbs == 0, t.name.c_str());
    auto stored = compareWith(imports + "outputs_stored.npz");
    QVERIFY(stored && stored->tensors.size() == 1 && stored->outputsPassed());
    // Polygraphy: two runners, so one must be named; a prefix is enough
    auto ambiguous = compare::readPolygraphyRunResults(imports + "polygraphy.json", "");
    QVERIFY(!ambiguous);
    QVERIFY2(ambiguous.error().format().find("onnxrt-runner-N0, trt-runner-N0") != std::string::npos, ambiguous.error().format().c_str());
    auto onnxrt = compareWith(imports + "polygraphy.json#onnxrt");
    QVERIFY2(onnxrt, onnxrt ? "" : onnxrt.error().format().c_str());
    QVERIFY(onnxrt->outputsPassed());
    auto trt = compareWith(imports + "polygraphy.json#trt-runner-N0");
    QVERIFY(trt);
    QVERIFY(!trt->outputsPassed());
    const compare::TensorMetrics &m = trt->outputs().front()->metrics;
    QCOMPARE(m.worstAt, (std::vector<std::int64_t>{0, 5, 7}));
    QVERIFY(std::fabs(m.maxAbs - 0.5) < 1e-6);
    // outputs only: the failing output's inputs were never seen, so nothing is called its start
    QCOMPARE(compare::firstDivergence(*trt, *model), nullptr);
    QVERIFY(compare::rankSuspects(*trt, *model, 1).front().inputsUnseen);
    QVERIFY(!compare::readPolygraphyRunResults(imports + "polygraphy.json", "tensorrt"));
    // damaged files are refused with their name
    QTemporaryDir dir;
    std::ifstream whole(imports + "reference.npz", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
    const std::string truncated = dir.filePath("truncated.npz").toStdString();
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    auto broken = runtime::readNpzFile(truncated);
    QVERIFY(!broken);
    QVERIFY2(broken.error().format().find("truncated.npz") != std::string::npos, broken.error().format().c_str());
    const std::string notJson = dir.filePath("results.json").toStdString();
    std::ofstream(notJson) << "{\"lst\": [[\"r\", [{\"outputs\": {\"y\": {\"array\": \"!!\"}}}]]]}";
    QVERIFY(!compare::readPolygraphyRunResults(notJson, ""));
    std::ofstream(notJson, std::ios::trunc) << "not json";
    QVERIFY(!compare::readPolygraphyRunResults(notJson, ""));
}

void tst_Compare::comparingNothingIsRefused()
{
    auto model = fixture("cnn_bn");
    QVERIFY(model);
    std::shared_ptr<runtime::Interpreter> ia, ib;
    const compare::RunSide a = referenceSide(*model, ia), b = referenceSide(*model, ib);
    auto feeds = passes::seededFeeds(*model, 4, {}, 3);
    auto result = compare::compareRuns(a, b, {}, *feeds, {});
    QVERIFY(!result);
    QVERIFY2(result.error().format().find("no tensor") != std::string::npos, result.error().format().c_str());
}

void tst_Compare::progressCountsBothRunsNodes()
{
    // the same model on both sides: when B starts, A's half is done; when the comparison returns, all
    auto model = fixture("cnn_bn");
    QVERIFY(model);
    auto feeds = passes::seededFeeds(*model, 3, {}, 3);
    QVERIFY(feeds);
    std::atomic<int> progress{-1};
    std::vector<int> seenByB; // progress when B starts
    std::shared_ptr<runtime::Interpreter> ia, ib;
    const compare::RunSide a = referenceSide(*model, ia);
    compare::RunSide b = referenceSide(*model, ib);
    const auto runB = b.run;
    b.run = [&, runB](const runtime::NamedValues &f, const runtime::RunOptions &o) {
        seenByB.push_back(progress.load());
        return runB(f, o);
    };
    compare::ComparisonOptions options;
    options.progress = &progress;
    auto result = compare::compareRuns(a, b, compare::alignByName(*model, *model), *feeds, options);
    QVERIFY2(result, result ? "" : result.error().format().c_str());
    QCOMPARE(seenByB, std::vector<int>{500});
    QCOMPARE(progress.load(), 1000);
}

QTEST_GUILESS_MAIN(tst_Compare)
#include "tst_Compare.moc"
