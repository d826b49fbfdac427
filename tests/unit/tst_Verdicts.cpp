// What a comparison accepts and how it judges: Polygraphy's element check, quantiles and per-scale
// tolerances; equivalent, drift and bug; rounding depths; and on a 24-layer decoder, fp32 that is
// equivalent, fp16 that drifts without a bug, and a planted kernel bug that fp16's drift does not hide.
#include "support/FaultyKernels.h"
#include "support/TestSupport.h"

#include "compare/KernelCheck.h"
#include "compare/RoundingDepth.h"
#include "compare/RunComparison.h"
#include "ir/ModelLoader.h"
#include "passes/PassManager.h"
#include "passes/Pipeline.h"
#include "runtime/TestDataSet.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/reference/Interpreter.h"
#include "session/Workbench.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace portolan;
using runtime::Tensor;

namespace {

Tensor floats(const std::vector<float> &values)
{
    return Tensor::fromVector<float>(onnx::TensorProto::FLOAT, {static_cast<std::int64_t>(values.size())}, values);
}

const std::string kDecoder = "decoder_deep";
const std::string kFaultyNode = "/layers.12/down_proj/MatMul";

} // namespace

class tst_Verdicts : public QObject {
    Q_OBJECT
private slots:
    void elementsPassByEitherBound()
    {
        // 0.05 within atol; 0.5 past atol but within rtol·1000; 0.5 past both; 0.15 past both though
        // within their sum (numpy's allclose would pass it)
        const auto m = compare::compareTensors(floats({1, 1000, 2, 10}), floats({1.05f, 1000.5f, 2.5f, 10.15f}), {0.1, 0.01});
        QCOMPARE(m.outOfTolerance, std::int64_t(2));
        QVERIFY(!m.passed);
        QVERIFY(std::fabs(m.neededAtol - 0.5) < 1e-6); // the largest error past rtol·|x|
        QVERIFY(std::fabs(m.neededRtol - 0.25) < 1e-6); // the largest e/|x| past atol
        QVERIFY(compare::compareTensors(floats({1, 1000, 2, 10}), floats({1.05f, 1000.5f, 2.5f, 10.15f}), {m.neededAtol, 0.01}).passed);
        QVERIFY(std::fabs(m.psnrDb - 20 * std::log10(1000 / m.rmse)) < 1e-9);
    }

    void aQuantileLetsAFewElementsOut()
    {
        std::vector<float> ref(200, 1.f), act(200, 1.f);
        act[7] = 2.f;
        act[99] = 3.f;
        compare::Tolerance tolerance{1e-3, 1e-3};
        QVERIFY(!compare::compareTensors(floats(ref), floats(act), tolerance).passed);
        tolerance.quantile = 0.99; // two of 200 may be out
        QVERIFY(compare::compareTensors(floats(ref), floats(act), tolerance).passed);
        act[150] = 4.f;
        QVERIFY(!compare::compareTensors(floats(ref), floats(act), tolerance).passed);
        act[150] = 1.f;
        act[7] = std::numeric_limits<float>::quiet_NaN(); // a NaN against a number fails whatever the quantile
        tolerance.quantile = 0.5;
        QVERIFY(!compare::compareTensors(floats(ref), floats(act), tolerance).passed);
    }

    void atolPerScaleFollowsTheMagnitude()
    {
        compare::Tolerance perScale{1e-3, 0, 1, true};
        const auto m = compare::compareTensors(floats({0, -100, 3.4e38f}), floats({0.05f, -100, 3.4e38f}), perScale);
        QCOMPARE(m.appliedAtol, 0.1); // 1e-3 of 100: the finfo-sized mask is not the scale
        QVERIFY(m.passed);
        perScale.atolPerScale = false;
        QVERIFY(!compare::compareTensors(floats({0, -100, 3.4e38f}), floats({0.05f, -100, 3.4e38f}), perScale).passed);
    }

    void judgementTellsEquivalentDriftAndBug()
    {
        std::vector<float> ref(1000), near(1000), far(1000);
        for (std::size_t i = 0; i < ref.size(); ++i) {
            ref[i] = std::sin(static_cast<float>(i) * 0.01f);
            near[i] = ref[i] + (i % 2 ? 1e-3f : -1e-3f);
            far[i] = i % 3 ? ref[i] : -ref[i];
        }
        const compare::Tolerance tight{1e-5, 1e-5};
        QCOMPARE(compare::judge(compare::compareTensors(floats(ref), floats(ref), tight), 0).verdict, compare::Verdict::Equivalent);
        const auto drifting = compare::compareTensors(floats(ref), floats(near), tight);
        const auto drift = compare::judge(drifting, 1e-2);
        QCOMPARE(drift.verdict, compare::Verdict::Drift);
        QVERIFY2(drift.why.find("within the 0.01 rounding explains") != std::string::npos, drift.why.c_str());
        const auto past = compare::judge(drifting, 1e-4);
        QCOMPARE(past.verdict, compare::Verdict::Bug);
        QVERIFY2(past.why.find("past the 0.0001 rounding explains") != std::string::npos, past.why.c_str());
        // within a lax explained error, a third of the signs flipped still fails the cosine criterion
        const auto flipped = compare::judge(compare::compareTensors(floats(ref), floats(far), tight), 10);
        QCOMPARE(flipped.verdict, compare::Verdict::Bug);
        QVERIFY2(flipped.why.find("cosine") != std::string::npos, flipped.why.c_str());
    }

    void roundingDepthsCountOnlyOpsThatRound()
    {
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + kDecoder + "/model.onnx");
        QVERIFY(loaded);
        const ir::Model &model = *loaded->model;
        const auto depths = compare::roundingDepths(model);
        const auto depthOf = [&](const std::string &name) {
            for (const auto &[value, depth] : depths)
                if (model.value(value).name == name)
                    return depth;
            return -1;
        };
        QCOMPARE(depthOf("/embed/Gather_output_0"), 0); // a lookup copies
        QCOMPARE(depthOf("/layers.0/input_norm/Pow_output_0"), 1);
        bool sawCopy = false;
        for (const ir::NodeId n : model.graph(model.mainGraph()).nodes)
            if (const ir::Node &node = model.node(n); node.opType == "Transpose") {
                QCOMPARE(depths.at(node.outputs[0]), depths.at(node.inputs[0]));
                sawCopy = true;
            }
        QVERIFY(sawCopy);
        QVERIFY2(depthOf("logits") > 24 * 10, std::to_string(depthOf("logits")).c_str());
    }

    void deepDecoderIsEquivalentAtFp32AndDriftsAtFp16()
    {
        session::Workbench workbench;
        QVERIFY(workbench.open(test::fixturesDir() + "/" + kDecoder + "/model.onnx"));
        session::ComparisonRequest request;
        request.feeds.testDataDir = test::fixturesDir() + "/" + kDecoder + "/test_data_set_0";
        auto fp32 = workbench.compare(request);
        QVERIFY2(fp32, fp32 ? "" : fp32.error().format().c_str());
        QVERIFY((*fp32)->result.tensors.size() > 1000);
        QVERIFY((*fp32)->result.outputsPassed());
        for (const compare::ComparedTensor &t : (*fp32)->result.tensors)
            QVERIFY2(t.verdict == compare::Verdict::Equivalent, (t.name + ": " + t.verdictWhy).c_str());

        request.b.precision = "fp16";
        auto fp16 = workbench.compare(request);
        QVERIFY2(fp16, fp16 ? "" : fp16.error().format().c_str());
        const session::ComparisonOutcome &o = **fp16;
        QVERIFY(!o.result.outputsPassed());
        QCOMPARE(o.result.outputsVerdict(), compare::Verdict::Drift);
        std::size_t drifting = 0;
        for (const compare::ComparedTensor &t : o.result.tensors) {
            QVERIFY2(t.verdict != compare::Verdict::Bug, (t.name + ": " + t.verdictWhy).c_str());
            drifting += t.verdict == compare::Verdict::Drift;
        }
        QVERIFY(drifting > 100);
        QVERIFY(!o.firstDivergence);
        QVERIFY(!o.kernelChecks.empty()); // each suspect out of tolerance was re-run alone, and only rounds
        for (const compare::KernelCheck &check : o.kernelChecks)
            QVERIFY2(check.verdict != compare::KernelVerdict::KernelDiffers, (check.tensor->node + ": " + check.explanation).c_str());
    }

    void aKernelBugIsFoundUnderFp16Drift()
    {
        // fp16 everywhere, and one MatMul's weight 2% off in its kernel: small beside fp16's drift
        // at that depth, yet the node alone differs from the reference kernel past fp16's rounding
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + kDecoder + "/model.onnx");
        QVERIFY(loaded);
        const ir::Model &model = *loaded->model;
        auto optimized = passes::runPipeline(model, *passes::presetPipeline(2), {});
        QVERIFY(optimized);
        const ir::Model &compiled = *optimized->model;
        runtime::cpu::CompileOptions options;
        options.precision.precision = runtime::Precision::Fp16;
        bool planted = false;
        options.kernelOverride = [&](const runtime::cpu::NodeBinding &binding, std::string &whyNot) {
            if (binding.node.name != kFaultyNode)
                return std::unique_ptr<runtime::cpu::CpuKernel>();
            planted = true;
            return test::faultyKernel(binding, "scaled-weight", whyNot);
        };
        auto cpu = std::make_shared<runtime::cpu::CpuExecutor>(compiled, options);
        auto reference = std::make_shared<runtime::Interpreter>(model);
        const compare::RunSide a = compare::RunSide::of("reference", model, reference);
        const compare::RunSide b = compare::RunSide::of("cpu:fp16", compiled, cpu);
        auto feeds = runtime::readTestDataInputs(model, test::fixturesDir() + "/" + kDecoder + "/test_data_set_0");
        QVERIFY2(feeds, feeds ? "" : feeds.error().format().c_str());
        compare::ComparisonOptions comparison;
        comparison.precision = compare::PrecisionModel::of("fp16");
        auto result = compare::compareRuns(a, b, compare::alignByProvenance(model, compiled, optimized->provenance), *feeds,
                                           comparison);
        QVERIFY2(result, result ? "" : result.error().format().c_str());
        QVERIFY(planted);
        const compare::ComparedTensor *faulty = nullptr;
        for (const compare::ComparedTensor &t : result->tensors)
            if (t.node == kFaultyNode)
                faulty = &t;
        QVERIFY(faulty);
        QCOMPARE(faulty->verdict, compare::Verdict::Drift); // by its size alone, fp16 would explain it
        auto judged = compare::judgeSuspects(*result, b, *feeds, comparison, 10, true);
        QVERIFY2(judged, judged ? "" : judged.error().format().c_str());
        QCOMPARE(faulty->verdict, compare::Verdict::Bug);
        const compare::ComparedTensor *first = compare::firstDivergence(*result, compiled);
        QVERIFY(first);
        QCOMPARE(first->node, kFaultyNode);
        QCOMPARE(judged->suspects.front().tensor, faulty);
        QVERIFY(judged->suspects.front().introduced);
        for (const compare::KernelCheck &check : judged->checks)
            QCOMPARE(check.verdict == compare::KernelVerdict::KernelDiffers, check.tensor == faulty);
    }
};

QTEST_GUILESS_MAIN(tst_Verdicts)
#include "tst_Verdicts.moc"
