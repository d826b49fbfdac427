// Precision policies of the compiled CPU executor: fp16/bf16/int8 drift lands in a plausible band
// on the fixture CNN and transformer (not zero, not garbage); rounding at node boundaries is exact;
// int8 is QDQ with per-channel weights and calibrated per-tensor activations; --keep-fp32 rules by
// name, op and group; calibration tables round-trip, and bad calibration input is refused clearly.
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "passes/NumericCheck.h"
#include "passes/Pipeline.h"
#include "runtime/Half.h"
#include "runtime/cpu/Calibration.h"
#include "runtime/cpu/CpuExecutor.h"

#include <QtTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

using namespace portolan;
using runtime::Precision;

namespace {

std::shared_ptr<ir::Model> optimizedFixture(const std::string &name)
{
    auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + name + "/model.onnx");
    if (!loaded)
        return nullptr;
    auto optimized = passes::runPipeline(*loaded->model, *passes::presetPipeline(2), {});
    return optimized ? optimized->model : nullptr;
}

runtime::PrecisionPolicy policyOf(Precision precision, const std::vector<std::string> &keep = {})
{
    runtime::PrecisionPolicy policy;
    policy.precision = precision;
    for (const std::string &text : keep)
        policy.keepFp32.push_back(*runtime::KeepFp32Rule::parse(text));
    return policy;
}

runtime::NamedValues run(const ir::Model &model, const runtime::PrecisionPolicy &policy, const runtime::NamedValues &feeds,
                         runtime::cpu::CpuExecutor **keep = nullptr)
{
    runtime::cpu::CompileOptions options;
    options.precision = policy;
    static std::vector<std::unique_ptr<runtime::cpu::CpuExecutor>> executors; // outlive the call for profile checks
    executors.push_back(std::make_unique<runtime::cpu::CpuExecutor>(model, options));
    auto out = executors.back()->run(feeds);
    if (!out) {
        qWarning("%s", out.error().format().c_str());
        return {};
    }
    if (keep)
        *keep = executors.back().get();
    return std::move(*out);
}

/// max |a − b| over all outputs, divided by max |a| (the drift relative to the output's scale).
double relativeDrift(const runtime::NamedValues &reference, const runtime::NamedValues &lowered, bool &finite)
{
    double maxError = 0, scale = 0;
    finite = !lowered.empty();
    for (std::size_t k = 0; k < reference.size() && k < lowered.size(); ++k) {
        const auto &a = reference[k].second.tensor, &b = lowered[k].second.tensor;
        for (std::int64_t i = 0; i < a.size(); ++i) {
            const double x = a.data<float>()[i], y = b.data<float>()[i];
            finite = finite && std::isfinite(y);
            maxError = std::max(maxError, std::fabs(x - y));
            scale = std::max(scale, std::fabs(x));
        }
    }
    return scale > 0 ? maxError / scale : maxError;
}

const runtime::cpu::NodeProfile *profileOf(const runtime::cpu::CpuExecutor &cpu, const std::string &opType)
{
    for (const auto &n : cpu.lastPlan()->nodes())
        if (n.opType == opType)
            return &n;
    return nullptr;
}

float fp16(float x)
{
    return runtime::Float16::fromFloat(x).toFloat();
}

} // namespace

class tst_CpuPrecision : public QObject {
    Q_OBJECT
private slots:
    void driftIsInAPlausibleBand_data();
    void driftIsInAPlausibleBand();
    void fp16RoundsAtNodeBoundaries();
    void vectorRoundingMatchesTheScalarConversions();
    void keepFp32RulesByNameOpAndGroup();
    void badKeepRulesAreRefused();
    void int8IsQdqWithPerChannelWeights();
    void int8RecordsPrecisionPerNode();
    void calibrationMethodsAndTableRoundTrip();
    void badCalibrationInputIsRefused();
};

void tst_CpuPrecision::driftIsInAPlausibleBand_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    // fp16 keeps 11 significant bits (2^-11 ≈ 5e-4 per rounding), bf16 8 (4e-3); int8 ≈ 1/127 per
    // quantized operand, compounded over the layers
    for (const char *fixture : {"cnn_bn", "transformer_opset17"}) {
        QTest::newRow((std::string(fixture) + " fp16").c_str()) << fixture << int(Precision::Fp16) << 1e-5 << 1e-2;
        QTest::newRow((std::string(fixture) + " bf16").c_str()) << fixture << int(Precision::Bf16) << 1e-4 << 8e-2;
        QTest::newRow((std::string(fixture) + " int8").c_str()) << fixture << int(Precision::Int8) << 1e-3 << 0.3;
    }
}

void tst_CpuPrecision::driftIsInAPlausibleBand()
{
    QFETCH(QString, fixture);
    QFETCH(int, precision);
    QFETCH(double, low);
    QFETCH(double, high);
    auto model = optimizedFixture(fixture.toStdString());
    QVERIFY(model);
    auto feeds = passes::seededFeeds(*model, 21, {}, 3);
    QVERIFY(feeds);
    auto policy = policyOf(static_cast<Precision>(precision));
    if (policy.precision == Precision::Int8) {
        // calibrated on other batches of the same distribution than the one measured
        std::vector<runtime::cpu::CalibrationBatch> batches;
        for (std::uint64_t seed : {1, 2, 3})
            batches.push_back({"seed " + std::to_string(seed), *passes::seededFeeds(*model, seed, {}, 3)});
        auto table = runtime::cpu::calibrate(*model, batches, {});
        QVERIFY2(table, table ? "" : table.error().format().c_str());
        policy.calibration = std::make_shared<const runtime::CalibrationTable>(std::move(*table));
    }
    const auto reference = run(*model, policyOf(Precision::Fp32), *feeds);
    runtime::cpu::CpuExecutor *cpu = nullptr;
    const auto lowered = run(*model, policy, *feeds, &cpu);
    bool finite = false;
    const double drift = relativeDrift(reference, lowered, finite);
    qInfo("%s at %s: drift %.3g of the output scale", qPrintable(fixture), runtime::precisionName(policy.precision), drift);
    QVERIFY(finite);
    QVERIFY2(drift > low && drift < high, std::to_string(drift).c_str());
    QVERIFY(cpu);
    for (const auto &n : cpu->lastPlan()->nodes()) // every compute node took the policy, or says why not
        QVERIFY2(n.precision == runtime::precisionName(policy.precision) || !n.whyPrecision.empty(), n.name.c_str());
}

void tst_CpuPrecision::fp16RoundsAtNodeBoundaries()
{
    auto model = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y, float[3] z)
<float one = {1.0}>
{
    t = Abs (x)
    y = Sub (t, one)
    z = Identity (t)
}
)");
    QVERIFY(model);
    const std::vector<float> in{1.0001f, -3.14159265f, 70000.f};
    runtime::NamedValues feeds{{"x", runtime::RuntimeValue::ofTensor(runtime::Tensor::fromVector<float>(onnx::TensorProto::FLOAT, {3}, in))}};
    auto at = [](const runtime::NamedValues &out, int k, int i) { return out[static_cast<std::size_t>(k)].second.tensor.data<float>()[i]; };

    const auto exact = run(*model, policyOf(Precision::Fp32), feeds);
    QVERIFY(std::fabs(at(exact, 0, 0) - 1e-4f) < 1e-6f);
    // all fp16: 1.0001 is stored as 1, so t − 1 is 0; past fp16's 65504 a real store overflows
    runtime::cpu::CpuExecutor *cpu = nullptr;
    const auto half = run(*model, policyOf(Precision::Fp16), feeds, &cpu);
    QCOMPARE(at(half, 0, 0), 0.f);
    QCOMPARE(at(half, 0, 1), fp16(fp16(3.14159265f) - 1.f));
    QVERIFY(std::isinf(at(half, 0, 2)));
    QCOMPARE(at(half, 1, 0), 1.f); // Identity moves data only: z carries t's fp16 values
    QCOMPARE(profileOf(*cpu, "Identity")->precision, std::string("fp16"));
    QCOMPARE(profileOf(*cpu, "Identity")->whyPrecision, std::string("moves data only"));
    // Abs kept at fp32: t is exact, Sub rounds it on the way in (the fp32 → fp16 boundary)
    const auto kept = run(*model, policyOf(Precision::Fp16, {"op:Abs"}), feeds, &cpu);
    QCOMPARE(at(kept, 0, 0), 0.f);
    QCOMPARE(at(kept, 1, 0), 1.0001f);
    QCOMPARE(at(kept, 1, 2), 70000.f);
    QCOMPARE(profileOf(*cpu, "Abs")->precision, std::string("fp32"));
    QCOMPARE(profileOf(*cpu, "Abs")->whyPrecision, std::string("kept by --keep-fp32 'op:Abs'"));
    QCOMPARE(profileOf(*cpu, "Identity")->precision, std::string("fp32"));
    QCOMPARE(profileOf(*cpu, "Sub")->precision, std::string("fp16"));
}

void tst_CpuPrecision::vectorRoundingMatchesTheScalarConversions()
{
    // every exponent, ties, subnormals, overflow, infinities and NaNs: random bit patterns plus edges
    std::vector<std::uint32_t> bits{0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0x477fe000u,
                                    0x477ff000u, 0x477fefffu, 0x33800000u, 0x33000000u, 0x387fc000u, 0x3f801000u};
    std::mt19937 gen(3);
    for (int i = 0; i < 200000; ++i)
        bits.push_back(static_cast<std::uint32_t>(gen()));
    std::vector<float> values(bits.size());
    std::memcpy(values.data(), bits.data(), bits.size() * 4);
    for (const Precision p : {Precision::Fp16, Precision::Bf16}) {
        runtime::Tensor t = runtime::Tensor::fromVector<float>(onnx::TensorProto::FLOAT, {std::int64_t(values.size())}, values);
        runtime::roundFloats(t, p);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const float expected = p == Precision::Fp16 ? fp16(values[i]) : runtime::BFloat16::fromFloat(values[i]).toFloat();
            const float actual = t.data<float>()[i];
            QVERIFY2(std::isnan(expected) ? std::isnan(actual) : std::bit_cast<std::uint32_t>(actual) == std::bit_cast<std::uint32_t>(expected),
                     (std::string(runtime::precisionName(p)) + " of bits " + std::to_string(bits[i])).c_str());
        }
    }
}

void tst_CpuPrecision::keepFp32RulesByNameOpAndGroup()
{
    auto model = optimizedFixture("transformer_opset17");
    QVERIFY(model);
    auto feeds = passes::seededFeeds(*model, 5, {}, 3);
    QVERIFY(feeds);
    const auto reference = run(*model, policyOf(Precision::Fp32), *feeds);
    // everything kept: bit-identical to fp32
    runtime::cpu::CpuExecutor *cpu = nullptr;
    const auto allKept = run(*model, policyOf(Precision::Fp16, {"."}), *feeds, &cpu);
    bool finite = false;
    QCOMPARE(relativeDrift(reference, allKept, finite), 0.0);
    // a group: the normalizations stay fp32, the products go to fp16
    run(*model, policyOf(Precision::Fp16, {"group:normalization"}), *feeds, &cpu);
    int normalizations = 0, lowered = 0;
    for (const auto &n : cpu->lastPlan()->nodes()) {
        if (n.opType.find("LayerNormalization") != std::string::npos) {
            ++normalizations;
            QCOMPARE(n.precision, std::string("fp32"));
            QCOMPARE(n.whyPrecision, std::string("kept by --keep-fp32 'group:normalization'"));
        } else if (n.opType == "FusedMatMul" || n.opType == "MatMul") {
            ++lowered;
            QCOMPARE(n.precision, std::string("fp16"));
        }
    }
    QVERIFY(normalizations > 0 && lowered > 0);
    // a name regex picks single nodes
    const std::string first = cpu->lastPlan()->nodes().front().name;
    run(*model, policyOf(Precision::Bf16, {"name:^" + first + "$"}), *feeds, &cpu);
    QCOMPARE(cpu->lastPlan()->nodes().front().precision, std::string("fp32"));
    QCOMPARE(cpu->lastPlan()->nodes().back().precision, std::string("bf16"));
}

void tst_CpuPrecision::badKeepRulesAreRefused()
{
    auto group = runtime::KeepFp32Rule::parse("group:norms");
    QVERIFY(!group);
    QVERIFY2(group.error().format().find("no such group; the groups are activation, attention, conv") != std::string::npos,
             group.error().format().c_str());
    auto regex = runtime::KeepFp32Rule::parse("conv[");
    QVERIFY(!regex);
    QVERIFY(regex.error().format().find("not a regular expression") != std::string::npos);
    QVERIFY(!runtime::KeepFp32Rule::parse("op:"));
    QVERIFY(!runtime::parsePrecision("fp8"));
}

void tst_CpuPrecision::int8IsQdqWithPerChannelWeights()
{
    // y = MatMul(x, W): W quantized per column (N axis) by max|W_col| / 127, x per tensor by the calibrated scale
    auto model = test::modelFromText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,2] y)
<float[3,2] w = {0.5, -0.01, 0.25, 0.02, -0.1, 0.013}>
{
    y = MatMul (x, w)
}
)");
    QVERIFY(model);
    const std::vector<float> x{0.3f, -0.7f, 1.9f, 0.05f, 1.2f, -0.4f}, w{0.5f, -0.01f, 0.25f, 0.02f, -0.1f, 0.013f};
    runtime::NamedValues feeds{{"x", runtime::RuntimeValue::ofTensor(runtime::Tensor::fromVector<float>(onnx::TensorProto::FLOAT, {2, 3}, x))}};
    runtime::CalibrationTable table;
    table.ranges["x"] = {1.9, 1.5}; // clips x at 1.5
    auto policy = policyOf(Precision::Int8);
    policy.calibration = std::make_shared<const runtime::CalibrationTable>(table);
    const auto y = run(*model, policy, feeds);
    QCOMPARE(y.size(), std::size_t(1));
    const float sx = 1.5f / 127;
    const float sw[2] = {0.5f / 127, 0.02f / 127};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            double expected = 0;
            for (int k = 0; k < 3; ++k) {
                const double qx = std::clamp(std::nearbyint(x[i * 3 + k] / sx), -127.f, 127.f) * sx;
                const double qw = std::nearbyint(w[k * 2 + j] / sw[j]) * sw[j];
                expected += qx * qw;
            }
            QVERIFY2(std::fabs(y[0].second.tensor.data<float>()[i * 2 + j] - expected) < 1e-6,
                     (std::to_string(y[0].second.tensor.data<float>()[i * 2 + j]) + " vs " + std::to_string(expected)).c_str());
        }
    // x[0][2] = 1.9 was clipped to 1.5: the product differs from fp32 by more than rounding
    QVERIFY(std::fabs(y[0].second.tensor.data<float>()[0] - (0.3 * 0.5 - 0.7 * 0.25 + 1.9 * -0.1)) > 0.03);
}

void tst_CpuPrecision::int8RecordsPrecisionPerNode()
{
    auto model = optimizedFixture("cnn_bn");
    QVERIFY(model);
    auto batches = runtime::cpu::randomCalibrationBatches(*model, 2, 9, {});
    QVERIFY(batches);
    auto table = runtime::cpu::calibrate(*model, *batches, {});
    QVERIFY(table);
    auto policy = policyOf(Precision::Int8, {"/layer3/"});
    policy.calibration = std::make_shared<const runtime::CalibrationTable>(*table);
    runtime::cpu::CpuExecutor *cpu = nullptr;
    QVERIFY(!run(*model, policy, (*batches)[0].feeds, &cpu).empty());
    int int8 = 0;
    for (const auto &n : cpu->lastPlan()->nodes()) {
        if (n.name.find("/layer3/") != std::string::npos) {
            QCOMPARE(n.precision, std::string("fp32"));
        } else if (n.opType == "FusedConv" || n.opType == "Gemm") {
            QCOMPARE(n.precision, std::string("int8"));
            ++int8;
        } else {
            QCOMPARE(n.precision, std::string("fp32"));
            QVERIFY(!n.whyPrecision.empty());
        }
    }
    QVERIFY(int8 >= 3);
}

void tst_CpuPrecision::calibrationMethodsAndTableRoundTrip()
{
    auto model = optimizedFixture("cnn_bn");
    QVERIFY(model);
    auto batches = runtime::cpu::randomCalibrationBatches(*model, 3, 4, {});
    QVERIFY(batches);
    runtime::CalibrationSettings minmax;
    minmax.method = runtime::CalibrationMethod::MinMax;
    auto byMinMax = runtime::cpu::calibrate(*model, *batches, minmax);
    auto byPercentile = runtime::cpu::calibrate(*model, *batches, *runtime::CalibrationSettings::parse("percentile:99"));
    QVERIFY(byMinMax && byPercentile);
    QCOMPARE(byMinMax->ranges.size(), runtime::cpu::quantizedActivations(*model).size());
    QVERIFY(byMinMax->ranges.contains("input"));
    // random inputs are uniform in [-1, 1): the input's max |x| is just under 1, its 99th percentile near 0.99
    QVERIFY(byMinMax->ranges["input"].threshold > 0.99 && byMinMax->ranges["input"].threshold < 1);
    QVERIFY(std::fabs(byPercentile->ranges["input"].threshold - 0.99) < 0.01);
    for (const auto &[name, range] : byPercentile->ranges)
        QVERIFY2(range.threshold <= range.absMax && range.threshold > 0, name.c_str());

    const std::string path = QDir::tempPath().toStdString() + "/tst_CpuPrecision_calibration.txt";
    QVERIFY(byPercentile->save(path));
    auto loaded = runtime::CalibrationTable::load(path);
    QVERIFY2(loaded, loaded ? "" : loaded.error().format().c_str());
    QCOMPARE(loaded->toText(), byPercentile->toText());
    QCOMPARE(loaded->settings.describe(), std::string("percentile:99"));
    QCOMPARE(loaded->batches, 3);
    std::filesystem::remove(path);
}

void tst_CpuPrecision::badCalibrationInputIsRefused()
{
    auto model = optimizedFixture("cnn_bn");
    QVERIFY(model);
    // a batch of the wrong shape: the error names the batch and the input
    runtime::NamedValues wrong{{"input", runtime::RuntimeValue::ofTensor(runtime::Tensor::zeros(onnx::TensorProto::FLOAT, {1, 3, 5, 5}))}};
    auto table = runtime::cpu::calibrate(*model, {{"batch-7", wrong}}, {});
    QVERIFY(!table);
    QVERIFY2(table.error().format().find("calibration batch batch-7") != std::string::npos &&
                 table.error().format().find("input") != std::string::npos,
             table.error().format().c_str());
    QVERIFY(!runtime::cpu::calibrate(*model, {}, {}));
    // a table that lacks a tensor the graph quantizes: the compile names it and the node
    auto policy = policyOf(Precision::Int8);
    policy.calibration = std::make_shared<const runtime::CalibrationTable>();
    runtime::cpu::CompileOptions options;
    options.precision = policy;
    runtime::cpu::CpuExecutor cpu(*model, options);
    auto feeds = passes::seededFeeds(*model, 1, {}, 3);
    auto out = cpu.run(*feeds);
    QVERIFY(!out);
    QVERIFY2(out.error().format().find("int8 needs the range of 'input'") != std::string::npos, out.error().format().c_str());
    // malformed tables name the file and the line
    auto bad = runtime::CalibrationTable::fromText("portolan-calibration 1\nmethod minmax\n0.5 nope x\n", "t.txt");
    QVERIFY(!bad);
    QVERIFY2(bad.error().format().find("t.txt:3") != std::string::npos, bad.error().format().c_str());
    QVERIFY(!runtime::CalibrationTable::fromText("something else\n", "t.txt"));
    QVERIFY(!runtime::CalibrationSettings::parse("percentile:120"));
    auto missing = runtime::cpu::readCalibrationBatches(*model, "/nonexistent/dir");
    QVERIFY(!missing);
}

QTEST_GUILESS_MAIN(tst_CpuPrecision)
#include "tst_CpuPrecision.moc"
