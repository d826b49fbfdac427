// The CUDA executor against the reference interpreter: every shared kernel case (the CPU executor's
// too), the fixtures after -O2, fallbacks with their transfers, and the observer. Without a GPU the
// executor must refuse with the reason, and the rest skips.
#include "support/KernelCases.h"
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "passes/NumericCheck.h"
#include "passes/Pipeline.h"
#include "runtime/cuda/CudaDevices.h"
#include "runtime/cuda/CudaExecutor.h"
#include "runtime/cuda/DevicePeaks.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/cpu/Calibration.h"
#include "runtime/cpu/CpuExecutor.h"

#include <QtTest>

#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>

using namespace portolan;
using runtime::cuda::CudaExecutor;

namespace {

bool haveGpu()
{
    return runtime::cuda::queryCudaDevices().problem.empty();
}

#define REQUIRE_GPU()                                                                                                    \
    do {                                                                                                                 \
        if (!haveGpu())                                                                                                  \
            QSKIP(qPrintable("no usable GPU: " + QString::fromStdString(runtime::cuda::queryCudaDevices().problem))); \
    } while (false)

std::unique_ptr<CudaExecutor> executorFor(const ir::Model &model)
{
    auto created = CudaExecutor::create(model);
    if (!created)
        qWarning("%s", created.error().format().c_str());
    return created ? std::move(*created) : nullptr;
}

bool matchesReference(const ir::Model &model, CudaExecutor &cuda)
{
    return test::outputsMatchReference(model, [&](const runtime::NamedValues &feeds) { return cuda.run(feeds); });
}

/// `text`'s model with seeded normal initializers of the given names and shapes.
std::unique_ptr<ir::Model> modelWithWeights(const char *text, const std::vector<std::pair<std::string, runtime::Shape>> &weights)
{
    onnx::ModelProto proto = test::parseModelText(text);
    unsigned seed = 1;
    for (const auto &[name, shape] : weights) {
        runtime::Tensor w = runtime::Tensor::zeros(onnx::TensorProto::FLOAT, shape);
        std::mt19937 generator(seed++);
        std::normal_distribution<float> normal(0.f, 0.2f);
        for (std::int64_t i = 0; i < w.size(); ++i)
            w.mutableData<float>()[i] = normal(generator);
        *proto.mutable_graph()->add_initializer() = runtime::tensorToProto(w, name);
    }
    auto loaded = ir::loadModelProto(std::move(proto), "weights", "");
    return loaded ? std::move(loaded->model) : nullptr;
}

/// Calibrates `model` on three seeded batches, runs a fourth on the CPU executor's int8 and on the
/// CUDA executor's (made into `cuda`, its outputs into `onGpu`), and checks that the two agree to
/// 1e-4 while both differ from fp32.
bool int8AgreesOnBoth(const ir::Model &model, std::unique_ptr<CudaExecutor> &cuda, runtime::NamedValues &feeds,
                      runtime::NamedValues &onGpu)
{
    std::vector<runtime::cpu::CalibrationBatch> batches;
    for (std::uint64_t seed : {1, 2, 3})
        batches.push_back({"seed " + std::to_string(seed), *passes::seededFeeds(model, seed, {}, 3)});
    auto table = runtime::cpu::calibrate(model, batches, {});
    auto seeded = passes::seededFeeds(model, 21, {}, 3);
    if (!table || !seeded)
        return false;
    feeds = std::move(*seeded);
    runtime::cpu::CompileOptions cpuOptions;
    cpuOptions.precision.precision = runtime::Precision::Int8;
    cpuOptions.precision.calibration = std::make_shared<const runtime::CalibrationTable>(std::move(*table));
    auto onCpu = runtime::cpu::CpuExecutor(model, cpuOptions).run(feeds);
    auto created = CudaExecutor::create(model, {true, "int8", {}, cpuOptions.precision.calibration});
    if (!onCpu || !created) {
        qWarning("%s", (onCpu ? created.error() : onCpu.error()).format().c_str());
        return false;
    }
    cuda = std::move(*created);
    auto ran = cuda->run(feeds);
    auto fp32 = runtime::Interpreter(model).run(feeds);
    if (!ran || !fp32) {
        qWarning("%s", (ran ? fp32.error() : ran.error()).format().c_str());
        return false;
    }
    onGpu = std::move(*ran);
    const passes::NumericCheck same = passes::compareOutputs(*onCpu, onGpu, 1e-4, 1e-4);
    if (!same.withinTolerance)
        qWarning("int8 on the GPU is off the CPU's: %s by %g", same.worstOutput.c_str(), same.maxAbsError);
    return same.withinTolerance && !passes::compareOutputs(*fp32, onGpu, 1e-4, 1e-4).withinTolerance;
}

/// "name (Op): why; …" for the nodes the last run ran on the CPU.
std::string fallbacks(const CudaExecutor &cuda)
{
    std::string out;
    for (const auto &node : cuda.lastNodes())
        if (node.implementation == "cpu-fallback")
            out += (out.empty() ? "" : "; ") + node.name + " (" + node.opType + "): " + node.whyFallback;
    return out;
}

class Recorder final : public runtime::RunObserver {
public:
    void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
    {
        for (const auto &v : outputs)
            if (v.isTensor())
                seen.emplace_back(node.name, v.tensor);
    }
    std::vector<std::pair<std::string, runtime::Tensor>> seen;
};

/// Four nodes on [16,64] floats (4 KiB a value): a = Sigmoid(x), b = a·x, c = Tanh(b), y = Softmax(c).
std::unique_ptr<ir::Model> elementwiseChain()
{
    return test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[16,64] x) => (float[16,64] y) {
  a = Sigmoid (x)
  b = Mul (a, x)
  c = Tanh (b)
  y = Softmax (c)
})");
}

/// Wants the values named in `wanted` only, and reads them during the call.
class PickyReader final : public runtime::RunObserver {
public:
    PickyReader(const ir::Model &model, std::set<std::string> wanted) : m_model(model), m_wanted(std::move(wanted)) {}
    void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
    {
        for (std::size_t k = 0; k < outputs.size(); ++k)
            if (outputs[k].isTensor() && outputs[k].tensor.defined())
                seen.emplace_back(m_model.value(node.outputs[k]).name, outputs[k].tensor.clone());
            else
                ++empty;
    }
    bool keepsOutputs() const override { return false; }
    bool wantsOutput(const ir::Node &node, std::size_t k) const override
    {
        return m_wanted.contains(m_model.value(node.outputs[k]).name);
    }
    std::vector<std::pair<std::string, runtime::Tensor>> seen;
    int empty = 0;

private:
    const ir::Model &m_model;
    std::set<std::string> m_wanted;
};

/// Every value's tensor by name, from the reference interpreter.
class ValueRecorder final : public runtime::RunObserver {
public:
    explicit ValueRecorder(const ir::Model &model) : m_model(model) {}
    void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
    {
        for (std::size_t k = 0; k < outputs.size(); ++k)
            if (outputs[k].isTensor())
                values[m_model.value(node.outputs[k]).name] = outputs[k].tensor;
    }
    std::map<std::string, runtime::Tensor> values;

private:
    const ir::Model &m_model;
};

} // namespace

class tst_CudaExecutor : public QObject {
    Q_OBJECT
private slots:
    void withoutAGpuItRefusesAndSaysWhy()
    {
        auto model = test::modelFromText("<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[2] x) => (float[2] y) { y = Relu (x) }");
        QVERIFY(model);
        auto created = CudaExecutor::create(*model);
        if (haveGpu()) {
            QVERIFY2(created, created ? "" : created.error().format().c_str());
            QVERIFY(!(*created)->deviceName().empty());
            return;
        }
        QVERIFY(!created);
        const std::string message = created.error().format();
        QVERIFY2(message.find("needs a GPU") != std::string::npos, message.c_str());
        const auto peaks = runtime::cuda::measureDevicePeaks("fp32"); // the yardstick of --stats needs the GPU too
        QVERIFY(!peaks);
        QVERIFY2(peaks.error().format().find("needs a GPU") != std::string::npos, peaks.error().format().c_str());
        // refused before the device is even asked
        auto int8 = CudaExecutor::create(*model, {true, "int8", {}, {}});
        QVERIFY(!int8);
        QVERIFY2(int8.error().format().find("needs a calibration table") != std::string::npos, int8.error().format().c_str());
        auto int4 = CudaExecutor::create(*model, {true, "int4", {}, {}});
        QVERIFY(!int4);
        QVERIFY2(int4.error().format().find("fp32, fp16, bf16 or int8, not int4") != std::string::npos, int4.error().format().c_str());
    }

    void devicePeaksAreMeasuredOncePerPrecision()
    {
        REQUIRE_GPU();
        const auto fp16 = runtime::cuda::measureDevicePeaks("fp16");
        QVERIFY2(fp16, fp16 ? "" : fp16.error().format().c_str());
        // any GPU this runs on copies faster than 50 GB/s and multiplies faster than 1 TFLOP/s
        QVERIFY2(fp16->copyBytesPerSecond > 50e9, std::to_string(fp16->copyBytesPerSecond).c_str());
        QVERIFY2(fp16->matmulFlopsPerSecond > 1e12, std::to_string(fp16->matmulFlopsPerSecond).c_str());
        // a copy reads and writes the memory: together at most its rate on paper
        QVERIFY2(fp16->memoryBytesPerSecond > 0 && fp16->copyBytesPerSecond <= 1.05 * fp16->memoryBytesPerSecond,
                 (std::to_string(fp16->copyBytesPerSecond) + " of " + std::to_string(fp16->memoryBytesPerSecond)).c_str());
        const auto again = runtime::cuda::measureDevicePeaks("fp16");
        QVERIFY(again);
        QCOMPARE(again->matmulFlopsPerSecond, fp16->matmulFlopsPerSecond); // measured once
        const auto fp32 = runtime::cuda::measureDevicePeaks("fp32");
        QVERIFY(fp32);
        QVERIFY(fp32->matmulFlopsPerSecond < fp16->matmulFlopsPerSecond); // tensor cores at fp16
    }

    void kernelCasesMatchReference_data()
    {
        QTest::addColumn<int>("index");
        const auto &cases = test::kernelCases();
        for (std::size_t i = 0; i < cases.size(); ++i)
            QTest::newRow(cases[i].name) << static_cast<int>(i);
    }
    void kernelCasesMatchReference()
    {
        REQUIRE_GPU();
        QFETCH(int, index);
        auto model = test::kernelCaseModel(test::kernelCases()[static_cast<std::size_t>(index)]);
        QVERIFY(model);
        auto cuda = executorFor(*model);
        QVERIFY(cuda);
        QVERIFY2(matchesReference(*model, *cuda), fallbacks(*cuda).c_str());
    }

    void fixturesMatchAfterO2_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const char *f : {"cnn_bn", "transformer_opset14", "transformer_opset17", "control_flow"})
            QTest::newRow(f) << QString(f) + "/model.onnx";
    }
    void fixturesMatchAfterO2()
    {
        REQUIRE_GPU();
        QFETCH(QString, fixture);
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + fixture.toStdString());
        QVERIFY(loaded);
        auto optimized = passes::runPipeline(*loaded->model, *passes::presetPipeline(2), {});
        QVERIFY2(optimized, optimized ? "" : optimized.error().format().c_str());
        auto cuda = executorFor(*optimized->model);
        QVERIFY(cuda);
        auto feeds = passes::seededFeeds(*loaded->model, 11, {}, 3);
        QVERIFY(feeds);
        auto expected = runtime::Interpreter(*loaded->model).run(*feeds);
        auto actual = cuda->run(*feeds);
        QVERIFY2(expected, expected ? "" : expected.error().format().c_str());
        QVERIFY2(actual, actual ? "" : actual.error().format().c_str());
        const passes::NumericCheck check = passes::compareOutputs(*expected, *actual, 1e-5, 1e-4);
        QVERIFY2(check.withinTolerance && check.comparedElements > 0,
                 (check.worstOutput + ": rel " + std::to_string(check.maxRelError) + "; fallbacks: " + fallbacks(*cuda)).c_str());
    }

    void fusedChainsMatchTheReference()
    {
        REQUIRE_GPU();
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[3,5,8] x, float[8] b) => (float[3,5,8] y) {
  s = Add (x, b)
  z = Constant <value = float {0.25}> ()
  big = Greater (s, z)
  r = Relu (s)
  t = Tanh (s)
  w = Where (big, r, t)
  y = Clip (w, z)
})");
        QVERIFY(model);
        auto fused = passes::runPipeline(*model, *passes::parsePipeline("fuse-elementwise,infer-shapes"), {});
        QVERIFY(fused);
        auto cuda = executorFor(*fused->model);
        QVERIFY(cuda);
        auto feeds = passes::seededFeeds(*model, 3, {}, 3);
        QVERIFY(feeds);
        auto expected = runtime::Interpreter(*model).run(*feeds);
        auto actual = cuda->run(*feeds);
        QVERIFY(expected && actual);
        QVERIFY(passes::compareOutputs(*expected, *actual, 1e-5, 1e-4).withinTolerance);
        bool ranFused = false;
        for (const auto &node : cuda->lastNodes())
            ranFused = ranFused || node.implementation == "cuda:fused-elementwise";
        QVERIFY2(ranFused, fallbacks(*cuda).c_str());
    }

    void tiledAttentionMatchesTheReference_data()
    {
        // shapes that leave partial 64-row and 64-key tiles, a mask hiding keys, causal rows that see
        // fewer keys than their tile's last row, both layouts, head dims 32 to 128
        QTest::addColumn<QString>("signature");
        QTest::addColumn<QString>("attributes");
        QTest::addColumn<bool>("masked");
        for (const char *precision : {"fp16", "bf16"}) {
            const std::string p = std::string(" ") + precision;
            QTest::newRow(("NSD d64, mask, causal" + p).c_str())
                << "(float[2,3,100,64] q, float[2,3,100,64] k, float[2,3,100,64] v, float[2,1,1,100] m) => (float[2,3,100,64] y)"
                << "scale = 0.125, causal = 1" << true;
            QTest::newRow(("SND d32, Sq 77 < Sk 130" + p).c_str())
                << "(float[2,77,4,32] q, float[2,130,4,32] k, float[2,130,4,32] v) => (float[2,77,4,32] y)"
                << "scale = 0.2, layout = \"SND\"" << false;
            QTest::newRow(("NSD d128, Sq 70 < Sk 130, causal" + p).c_str())
                << "(float[1,2,70,128] q, float[1,2,130,128] k, float[1,2,130,128] v) => (float[1,2,70,128] y)"
                << "scale = 0.09, causal = 1" << false;
        }
    }
    void tiledAttentionMatchesTheReference()
    {
        REQUIRE_GPU();
        QFETCH(QString, signature);
        QFETCH(QString, attributes);
        QFETCH(bool, masked);
        const std::string precision = QString(QTest::currentDataTag()).endsWith("bf16") ? "bf16" : "fp16";
        auto model = test::modelFromText("<ir_version: 8, opset_import: [\"\" : 17, \"ai.portolan\" : 1]>\ng " +
                                         signature.toStdString() + " { y = ai.portolan.Attention <" + attributes.toStdString() +
                                         "> (q, k, v" + (masked ? ", m" : "") + ") }");
        QVERIFY(model);
        auto created = CudaExecutor::create(*model, {false, precision, {}, {}});
        QVERIFY2(created, created ? "" : created.error().format().c_str());
        auto feeds = passes::seededFeeds(*model, 13, {}, 3);
        QVERIFY(feeds);
        if (masked) { // hide the last 30 keys of the second sequence
            runtime::Tensor &m = (*feeds)[3].second.tensor;
            for (std::int64_t j = 0; j < 100; ++j)
                m.mutableData<float>()[100 + j] = j >= 70 ? -std::numeric_limits<float>::infinity() : 0.f;
        }
        auto expected = runtime::Interpreter(*model).run(*feeds);
        QVERIFY(expected);
        auto actual = (*created)->run(*feeds);
        QVERIFY2(actual, actual ? "" : actual.error().format().c_str());
        QCOMPARE(QString::fromStdString((*created)->lastNodes().front().implementation), QString("cuda:attention-tiled"));
        double scale = 0;
        const runtime::Tensor &y = (*expected)[0].second.tensor;
        for (std::int64_t i = 0; i < y.size(); ++i)
            scale = std::max(scale, std::abs(static_cast<double>(y.data<float>()[i])));
        const double band = precision == "bf16" ? 5e-2 : 1e-2;
        const passes::NumericCheck check = passes::compareOutputs(*expected, *actual, band * scale, 0);
        QVERIFY2(check.withinTolerance && check.comparedElements == static_cast<std::size_t>(y.size()),
                 (std::to_string(check.maxAbsError) + " of " + std::to_string(scale)).c_str());
    }

    void keptNodesComputeAtFp32()
    {
        REQUIRE_GPU();
        // bf16 storage with LayerNormalization kept: it computes on fp32 (its input converted on the
        // device), the products on bf16; with every node kept, the run is fp32 through and through
        // (feeds and weights go up as fp32 twins) and matches the fp32 run
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[64,256] x, float[256,256] w, float[256] s, float[256] b) => (float[64,256] y) {
  h = MatMul (x, w)
  n = LayerNormalization (h, s, b)
  y = Relu (n)
})");
        QVERIFY(model);
        auto feeds = passes::seededFeeds(*model, 17, {}, 3);
        QVERIFY(feeds);
        auto reference = runtime::Interpreter(*model).run(*feeds);
        QVERIFY(reference);
        auto layerNorm = runtime::KeepFp32Rule::parse("op:LayerNormalization");
        auto everything = runtime::KeepFp32Rule::parse(".*");
        QVERIFY(layerNorm && everything);
        auto kept = CudaExecutor::create(*model, {false, "bf16", {*layerNorm}, {}});
        QVERIFY2(kept, kept ? "" : kept.error().format().c_str());
        auto y = (*kept)->run(*feeds);
        QVERIFY2(y, y ? "" : y.error().format().c_str());
        for (const auto &node : (*kept)->lastNodes()) {
            const bool isNorm = node.opType == "LayerNormalization";
            QCOMPARE(QString::fromStdString(node.precision), QString(isNorm ? "fp32" : "bf16"));
            QVERIFY(!isNorm || node.whyPrecision.find("kept by --keep-fp32") != std::string::npos);
        }
        QVERIFY(passes::compareOutputs(*reference, *y, 5e-2, 5e-2).withinTolerance);
        auto all = CudaExecutor::create(*model, {false, "bf16", {*everything}, {}});
        QVERIFY(all);
        auto fp32 = CudaExecutor::create(*model, {false, "fp32", {}, {}});
        QVERIFY(fp32);
        auto yAll = (*all)->run(*feeds), y32 = (*fp32)->run(*feeds);
        QVERIFY2(yAll && y32, yAll ? "" : yAll.error().format().c_str());
        const passes::NumericCheck same = passes::compareOutputs(*y32, *yAll, 1e-6, 1e-6);
        QVERIFY2(same.withinTolerance, std::to_string(same.maxAbsError).c_str());
        for (const auto &node : (*all)->lastNodes())
            QCOMPARE(QString::fromStdString(node.precision), QString("fp32"));
    }

    void int8MatchesTheCpuExecutorsInt8()
    {
        REQUIRE_GPU();
        // MatMul by a weight and by an activation (quantized and transposed on the device) run on
        // cuBLASLt's int8 kernels; a Gemm with K 6 and a Conv keep their fp32 math on int8 operands.
        // All quantized as the CPU executor quantizes, from the same table: the two differ by
        // accumulation order only, and both differ from fp32.
        auto model = modelWithWeights(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[64,256] x, float[2,4,16,32] q, float[2,4,32,16] k, float[64,6] v, float[1,6,8,8] img)
  => (float[64,256] y, float[2,4,16,16] s, float[64,12] o, float[1,4,8,8] c) {
  h = MatMul (x, w)
  y = Relu (h)
  s = MatMul (q, k)
  o = Gemm <transB = 1, alpha = 0.5> (v, wo, bo)
  c = Conv <pads = [1, 1, 1, 1]> (img, cw, cb)
})",
                                      {{"w", {256, 256}}, {"wo", {12, 6}}, {"bo", {12}}, {"cw", {4, 6, 3, 3}}, {"cb", {4}}});
        QVERIFY(model);
        std::unique_ptr<CudaExecutor> cuda;
        runtime::NamedValues feeds, onGpu;
        QVERIFY(int8AgreesOnBoth(*model, cuda, feeds, onGpu));
        std::map<std::string, runtime::cuda::CudaNodeProfile> byOp; // the second MatMul as "MatMul2"
        for (const auto &node : cuda->lastNodes())
            byOp[node.opType + (byOp.contains(node.opType) ? "2" : "")] = node;
        for (const char *op : {"MatMul", "MatMul2"}) {
            QCOMPARE(QString::fromStdString(byOp[op].implementation), QString("cublaslt:int8-matmul"));
            QCOMPARE(QString::fromStdString(byOp[op].precision), QString("int8"));
        }
        for (const char *op : {"Gemm", "Conv"}) {
            QVERIFY2(byOp[op].implementation.ends_with("+int8-operands"), byOp[op].implementation.c_str());
            QCOMPARE(QString::fromStdString(byOp[op].precision), QString("int8"));
            QVERIFY(!byOp[op].whyPrecision.empty());
        }
        QVERIFY2(byOp["Gemm"].whyPrecision.find("multiples of 4") != std::string::npos, byOp["Gemm"].whyPrecision.c_str());
        QCOMPARE(QString::fromStdString(byOp["Relu"].precision), QString("fp32"));
        // a second run replays one CUDA Graph: the quantizers' scratch is at fixed addresses
        auto again = cuda->run(feeds);
        QVERIFY2(again && cuda->lastRunWasGraph(), cuda->whyNoGraph().c_str());
        QVERIFY(passes::compareOutputs(onGpu, *again, 0, 0).withinTolerance);

        // a product no GPU kernel takes (a 1-D weight) runs on the CPU, its operands quantized there
        auto vector = modelWithWeights(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[64,256] x) => (float[64] y) { y = MatMul (x, wv) })",
                                       {{"wv", {256}}});
        QVERIFY(vector);
        QVERIFY(int8AgreesOnBoth(*vector, cuda, feeds, onGpu));
        const auto node = cuda->lastNodes().front();
        QCOMPARE(QString::fromStdString(node.implementation), QString("cpu-fallback"));
        QCOMPARE(QString::fromStdString(node.precision), QString("int8"));
        QVERIFY2(node.whyPrecision.find("quantized on the host") != std::string::npos, node.whyPrecision.c_str());
    }

    void halfPrecisionsDriftWithinTheirBand_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<double>("band");
        for (const char *f : {"cnn_bn", "transformer_opset17"}) {
            QTest::newRow((std::string(f) + " fp16").c_str()) << QString(f) << "fp16" << 1e-2;
            QTest::newRow((std::string(f) + " bf16").c_str()) << QString(f) << "bf16" << 5e-2;
        }
    }
    void halfPrecisionsDriftWithinTheirBand()
    {
        REQUIRE_GPU();
        QFETCH(QString, fixture);
        QFETCH(QString, precision);
        QFETCH(double, band);
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/" + fixture.toStdString() + "/model.onnx");
        QVERIFY(loaded);
        auto optimized = passes::runPipeline(*loaded->model, *passes::presetPipeline(2), {});
        QVERIFY(optimized);
        auto created = CudaExecutor::create(*optimized->model, {true, precision.toStdString(), {}, {}});
        QVERIFY2(created, created ? "" : created.error().format().c_str());
        auto feeds = passes::seededFeeds(*loaded->model, 11, {}, 3);
        QVERIFY(feeds);
        auto expected = runtime::Interpreter(*loaded->model).run(*feeds);
        auto actual = (*created)->run(*feeds);
        QVERIFY2(actual, actual ? "" : actual.error().format().c_str());
        // drift = max |y − y_ref| / max |y_ref|: rounded (not zero), and within the precision's band
        const passes::NumericCheck check = passes::compareOutputs(*expected, *actual, 0, 0);
        double scale = 0;
        for (const auto &[name, value] : *expected)
            for (std::int64_t i = 0; i < value.tensor.size(); ++i)
                scale = std::max(scale, std::abs(static_cast<double>(value.tensor.data<float>()[i])));
        const double drift = check.maxAbsError / scale;
        qInfo("%s at %s on the GPU: drift %.3g of the output scale", qPrintable(fixture), qPrintable(precision), drift);
        QVERIFY2(drift > 0 && drift < band, std::to_string(drift).c_str());
        QVERIFY2(fallbacks(**created).find("FusedConv") == std::string::npos, fallbacks(**created).c_str());
    }

    void repeatedRunsReplayOneCudaGraph()
    {
        REQUIRE_GPU();
        auto loaded = ir::loadModelFile(test::fixturesDir() + "/cnn_bn/model.onnx");
        QVERIFY(loaded);
        auto optimized = passes::runPipeline(*loaded->model, *passes::presetPipeline(2), {});
        QVERIFY(optimized);
        auto cuda = executorFor(*optimized->model);
        QVERIFY(cuda);
        auto feeds = passes::seededFeeds(*loaded->model, 4, {}, 3);
        QVERIFY(feeds);
        auto first = cuda->run(*feeds);
        QVERIFY2(first, first ? "" : first.error().format().c_str());
        if (!fallbacks(*cuda).empty())
            QSKIP(qPrintable("a node runs on the CPU, so no graph: " + QString::fromStdString(fallbacks(*cuda))));
        QVERIFY(!cuda->lastRunWasGraph()); // the first run goes step by step
        for (int i = 0; i < 2; ++i) {      // the second captures and launches, the third replays
            auto again = cuda->run(*feeds);
            QVERIFY2(again, again ? "" : again.error().format().c_str());
            QVERIFY2(cuda->lastRunWasGraph(), cuda->whyNoGraph().c_str());
            QVERIFY(passes::compareOutputs(*first, *again, 0, 0).withinTolerance); // bit for bit the same
        }
        Recorder recorder; // an observer needs every node's tensors: step by step again
        runtime::RunOptions options;
        options.observer = &recorder;
        QVERIFY(cuda->run(*feeds, options));
        QVERIFY(!cuda->lastRunWasGraph());
    }

    void fallbacksMoveDataAndSayWhy()
    {
        REQUIRE_GPU();
        // Sin has no CUDA kernel: Relu's output comes down for it, and its output goes up for Tanh
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x) => (float[4,8] y) {
  r = Relu (x)
  t = Sin (r)
  y = Tanh (t)
})");
        QVERIFY(model);
        auto cuda = executorFor(*model);
        QVERIFY(cuda);
        QVERIFY(matchesReference(*model, *cuda));
        QVERIFY2(fallbacks(*cuda).find("no CUDA kernel for Sin") != std::string::npos, fallbacks(*cuda).c_str());
        const auto transfers = cuda->lastTransfers();
        QCOMPARE(transfers.uploads, std::uint64_t(2));   // x, then t
        QCOMPARE(transfers.downloads, std::uint64_t(2)); // r for Sin, then y
        QCOMPARE(transfers.uploadBytes, std::uint64_t(2 * 32 * sizeof(float)));
    }

    void quantizeDequantizePairsRunOnTheDevice()
    {
        REQUIRE_GPU();
        // a QDQ model's activation pairs: int8 per tensor, uint8 per channel and saturating, an int32
        // dequantized; all on the device, as the reference computes them
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x, int32[3] acc) => (float[2,3,4] y, float[2,3,4] z, float[3] b)
  <float s = {0.05}, int8 zp = {3}, float[3] sc = {0.004, 0.01, 0.02}, uint8[3] zc = {128, 120, 140}, float sb = {0.5}> {
  q = QuantizeLinear (x, s, zp)
  y = DequantizeLinear (q, s, zp)
  qc = QuantizeLinear <axis = 1> (x, sc, zc)
  z = DequantizeLinear <axis = 1> (qc, sc, zc)
  b = DequantizeLinear (acc, sb)
})");
        QVERIFY(model);
        auto cuda = executorFor(*model);
        QVERIFY(cuda);
        QVERIFY(matchesReference(*model, *cuda));
        QVERIFY2(fallbacks(*cuda).empty(), fallbacks(*cuda).c_str());
    }

    void constantInputNodesAreFoldedOncePerProfile()
    {
        REQUIRE_GPU();
        // a quantized weight's DequantizeLinear (which fold-constants keeps, as the QDQ form targets
        // read) is computed once at compile time and uploaded once, not on the CPU at every run
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4] x) => (float[2,4] y) <int8[4,4] wq = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16}, float s = {0.05}> {
  w = DequantizeLinear (wq, s)
  y = MatMul (x, w)
})");
        QVERIFY(model);
        auto cuda = executorFor(*model);
        QVERIFY(cuda);
        QVERIFY(matchesReference(*model, *cuda));
        QCOMPARE(QString::fromStdString(cuda->lastNodes().front().implementation), QString("folded"));
        QVERIFY2(fallbacks(*cuda).empty(), fallbacks(*cuda).c_str());
        QCOMPARE(cuda->lastTransfers().uploads, std::uint64_t(1)); // x; the weight went up with the profile
        QCOMPARE(cuda->lastTransfers().downloads, std::uint64_t(1));
    }

    void observerSeesEveryNodeAndProfilingTimesThem()
    {
        REQUIRE_GPU();
        auto model = elementwiseChain();
        QVERIFY(model);
        auto cuda = executorFor(*model);
        QVERIFY(cuda);
        cuda->setProfiling(true);
        auto feeds = passes::seededFeeds(*model, 5, {}, 3);
        QVERIFY(feeds);
        Recorder recorder;
        runtime::RunOptions options;
        options.observer = &recorder;
        auto out = cuda->run(*feeds, options);
        QVERIFY2(out, out ? "" : out.error().format().c_str());
        QCOMPARE(recorder.seen.size(), std::size_t(4));
        auto reference = runtime::Interpreter(*model).run(*feeds);
        QVERIFY(reference);
        const passes::NumericCheck check = passes::compareOutputs(*reference, {{"y", runtime::RuntimeValue::ofTensor(recorder.seen.back().second)}},
                                                                  1e-5, 1e-4);
        QVERIFY(check.withinTolerance && check.comparedElements > 0);
        for (const auto &node : cuda->lastNodes()) {
            QCOMPARE(node.runs, std::uint64_t(1));
            QVERIFY(node.milliseconds > 0);
        }
    }

    void observedTensorsComeDownOnlyWhenWantedInBatches()
    {
        REQUIRE_GPU();
        // four 4 KiB values; the observer wants two. With a 12 KiB batch both wait in the pinned
        // staging; with 1 KiB each is downloaded alone. Either way: the same bytes, the reference's
        // values, and only the wanted ones come down (plus y, the output)
        auto model = elementwiseChain();
        QVERIFY(model);
        auto cuda = executorFor(*model);
        QVERIFY(cuda);
        auto feeds = passes::seededFeeds(*model, 5, {}, 3);
        QVERIFY(feeds);
        ValueRecorder reference(*model);
        runtime::RunOptions all;
        all.observer = &reference;
        QVERIFY(runtime::Interpreter(*model).run(*feeds, all));
        std::vector<std::vector<std::pair<std::string, runtime::Tensor>>> picked;
        for (const std::size_t budget : {std::size_t(12) << 10, std::size_t(1) << 10}) {
            PickyReader reader(*model, {"a", "c"});
            runtime::RunOptions options;
            options.observer = &reader;
            options.observerBatchBytes = budget;
            auto out = cuda->run(*feeds, options);
            QVERIFY2(out, out ? "" : out.error().format().c_str());
            QCOMPARE(reader.seen.size(), std::size_t(2));
            QCOMPARE(reader.empty, 2);
            QCOMPARE(cuda->lastTransfers().downloads, std::uint64_t(3));
            for (const auto &[name, tensor] : reader.seen) {
                const passes::NumericCheck check = passes::compareOutputs({{name, runtime::RuntimeValue::ofTensor(reference.values.at(name))}},
                                                                          {{name, runtime::RuntimeValue::ofTensor(tensor)}}, 1e-5, 1e-4);
                QVERIFY2(check.withinTolerance && check.comparedElements == 1024, name.c_str());
            }
            picked.push_back(std::move(reader.seen));
        }
        for (std::size_t i = 0; i < 2; ++i)
            QVERIFY(std::memcmp(picked[0][i].second.rawData(), picked[1][i].second.rawData(), picked[0][i].second.byteSize()) == 0);
    }
};

QTEST_GUILESS_MAIN(tst_CudaExecutor)
#include "tst_CudaExecutor.moc"
