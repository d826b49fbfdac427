// What the CUDA kernel factories decide, on the CPU (no GPU needed): which fused elementwise bodies
// compile into a program, and why the others, and other nodes, are left to the CPU; and what the
// compiled programs compute, run here by the same interpreter the kernel runs, against the
// reference interpreter.
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "passes/PassManager.h"
#include "passes/Pipeline.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/ElementwiseMath.h"
#include "runtime/cuda/Int8Operands.h"
#include "runtime/cuda/MatrixProduct.h"
#include "runtime/Precision.h"
#include "passes/NumericCheck.h"
#include "runtime/reference/Interpreter.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

using namespace portolan;
using runtime::cuda::CudaKernel;

namespace {

/// Nothing is uploaded and no library is asked by the factories tested here.
class NoDevice final : public runtime::cuda::DeviceSetup {
public:
    void *upload(const runtime::Tensor &) override { return nullptr; }
    void *cublasLt() override { return nullptr; }
    void *cudnn() override { return nullptr; }
    runtime::cuda::Storage storage() const override { return runtime::cuda::Storage::F32; }
    void reserveScratch(std::size_t) override {}
};

struct Decision {
    std::unique_ptr<CudaKernel> kernel;
    std::string whyNot;
};

/// Calls f(binding) for the first node of type `opType` in `model`, bound as the executor binds it:
/// every value's declared shape (the signatures below declare them all) and the initializers' data.
/// False when there is no such node.
template <typename F>
bool withBinding(const ir::Model &model, const std::string &opType, F &&f)
{
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes) {
        const ir::Node &node = model.node(n);
        if (!node.alive || node.opType != opType)
            continue;
        runtime::MemoryBudget budget;
        runtime::NoSubgraphs noSubgraphs("none");
        const int opset = model.opsetVersion(node.domain).value_or(1);
        runtime::KernelContext attributes(model, node, opset, {}, budget, noSubgraphs);
        runtime::NodeBinding binding{model, node, opset, {}, {}, attributes};
        auto bind = [&](ir::ValueId v) {
            runtime::BoundTensor t;
            t.present = v.valid();
            if (t.present) {
                const ir::Value &value = model.value(v);
                t.dataType = value.elementType();
                t.shape = value.shape().staticDims().value_or(runtime::Shape{});
                if (value.isInitializer()) // the constants the executor binds
                    if (auto c = runtime::tensorFromInitializer(value.initializer)) {
                        t.dataType = c->dataType();
                        t.shape = c->shape();
                        t.constant = std::move(*c);
                    }
            }
            return t;
        };
        for (const ir::ValueId v : node.inputs)
            binding.inputs.push_back(bind(v));
        for (const ir::ValueId v : node.outputs)
            binding.outputs.push_back(bind(v));
        f(binding);
        return true;
    }
    return false;
}

/// The factory's decision for the first node of type `opType` in `model`.
Decision decide(const ir::Model &model, const std::string &opType)
{
    Decision d;
    const bool found = withBinding(model, opType, [&](const runtime::NodeBinding &binding) {
        NoDevice device;
        const auto factory = runtime::cuda::findCudaKernel(binding.node.domain, binding.node.opType, binding.opset);
        if (factory)
            d.kernel = factory(binding, device, d.whyNot);
        else
            d.whyNot = "no factory";
    });
    if (!found)
        d.whyNot = "no such node";
    return d;
}

/// Every tensor a run produces, by value name.
class Everything final : public runtime::RunObserver {
public:
    void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
    {
        for (std::size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k)
            if (outputs[k].isTensor())
                seen.emplace_back(m_model->value(node.outputs[k]).name, outputs[k]);
    }
    explicit Everything(const ir::Model &model) : m_model(&model) {}
    runtime::NamedValues seen;

private:
    const ir::Model *m_model;
};

/// A float tensor of seeded normal values, a few of them far out (what clipping and per-channel
/// scales are for).
runtime::Tensor normalTensor(const runtime::Shape &shape, unsigned seed)
{
    runtime::Tensor t = runtime::Tensor::zeros(onnx::TensorProto::FLOAT, shape);
    std::mt19937 generator(seed);
    std::normal_distribution<float> normal;
    float *x = t.mutableData<float>();
    for (std::int64_t i = 0; i < t.size(); ++i)
        x[i] = normal(generator) * (i % 37 == 0 ? 20.f : 1.f);
    return t;
}

/// The product the first node of `opType` in `model` describes, or its reason.
std::optional<runtime::cuda::MatrixProduct> productOf(const ir::Model &model, const std::string &opType, std::string &whyNot)
{
    std::optional<runtime::cuda::MatrixProduct> p;
    withBinding(model, opType, [&](const runtime::NodeBinding &binding) { p = runtime::cuda::describeProduct(binding, whyNot); });
    return p;
}

/// Runs a FusedElementwise node's compiled program on the CPU, element by element, with the same
/// interpreter the kernel runs (ElementwiseMath.h), on `values` (the node's inputs among them, by name).
std::optional<runtime::Tensor> runProgramOnHost(const ir::Model &model, const runtime::NamedValues &values, std::string &whyNot)
{
    std::optional<runtime::Tensor> out;
    withBinding(model, "FusedElementwise", [&](const runtime::NodeBinding &binding) {
        auto fused = runtime::cuda::compileFusedElementwise(binding, whyNot);
        if (!fused)
            return;
        const auto &p = fused->program;
        std::vector<const float *> inputs;
        for (std::size_t k = 0; k < binding.node.inputs.size(); ++k) {
            const std::string &name = model.value(binding.node.inputs[k]).name;
            const float *data = nullptr;
            for (const auto &[valueName, value] : values)
                if (valueName == name)
                    data = value.tensor.data<float>();
            inputs.push_back(fused->constantInputs[k] ? nullptr : data);
        }
        runtime::Tensor y = runtime::Tensor::zeros(onnx::TensorProto::FLOAT, binding.outputs[0].shape);
        float r[runtime::cuda::ElementwiseProgram::kMaxRegisters] = {};
        for (std::int64_t i = 0; i < p.walk.count; ++i) {
            std::int64_t rest = i, offsets[runtime::cuda::ElementwiseProgram::kMaxInputs] = {};
            for (int d = p.walk.rank - 1; d >= 0; --d) {
                const std::int64_t coordinate = rest % p.walk.dims[d];
                rest /= p.walk.dims[d];
                for (int k = 0; k < p.inputs; ++k)
                    offsets[k] += coordinate * p.walk.strides[k][d];
            }
            for (int k = 0; k < p.inputs; ++k)
                if (inputs[static_cast<std::size_t>(k)])
                    r[k] = inputs[static_cast<std::size_t>(k)][offsets[k]];
            y.mutableData<float>()[i] = runtime::cuda::runProgram(p, r);
        }
        out = std::move(y);
    });
    return out;
}

std::unique_ptr<ir::Model> fused(const std::string &text)
{
    auto model = test::modelFromText(text);
    if (!model)
        return nullptr;
    auto pipeline = passes::parsePipeline("fuse-elementwise,infer-shapes");
    auto result = passes::runPipeline(*model, *pipeline, {});
    return result ? std::make_unique<ir::Model>(*result->model) : nullptr;
}

} // namespace

class tst_CudaKernelPlans : public QObject {
    Q_OBJECT
private slots:
    void elementwiseChainsBecomeOneProgram()
    {
        auto model = fused(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x, float[8] b) => (float[4,8] y) {
  s = Add (x, b)
  z = Constant <value = float {0.5}> ()
  big = Greater (s, z)
  r = Relu (s)
  t = Tanh (s)
  y = Where (big, r, t)
})");
        QVERIFY(model);
        const Decision d = decide(*model, "FusedElementwise");
        QVERIFY2(d.kernel, d.whyNot.c_str());
        QCOMPARE(d.kernel->implementation(), std::string("cuda:fused-elementwise"));
    }
    void constantInputsOfAChainBecomeInstructions()
    {
        // ReLU6 as the fusion pass leaves it: Clip's bounds are node inputs, constants of the model
        auto model = fused(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x) => (float[4,8] y) <float lo = {0.0}, float hi = {6.0}, int64 two = {2}> {
  a = Mul (x, x)
  c = Clip (a, lo, hi)
  y = Pow (c, two)
})");
        QVERIFY(model);
        const Decision d = decide(*model, "FusedElementwise");
        QVERIFY2(d.kernel, d.whyNot.c_str());
        QVERIFY(d.kernel->readsInput(0)); // x
        int constantsRead = 0;
        for (std::size_t k = 1; k < 4; ++k)
            constantsRead += d.kernel->readsInput(k);
        QCOMPARE(constantsRead, 0); // lo, hi and two are instructions, never uploaded
    }
    void programsComputeWhatTheReferenceDoes_data()
    {
        QTest::addColumn<QString>("body");
        QTest::newRow("broadcast bias, divisions, min") << "s = Add (x, b)\n t = Tanh (s)\n d = Div (t, hi)\n m = Min (d, s)\n"
                                                           " y = Mul (m, s)";
        QTest::newRow("ReLU6 as Clip with constant bounds, squared") << "a = Mul (x, x)\n c = Clip (a, lo, hi)\n y = Pow (c, two)";
        QTest::newRow("where, comparisons and logic") << "p = Greater (x, lo)\n q = Less (x, hi)\n both = And (p, q)\n"
                                                         " e = Exp (x)\n n = Neg (x)\n y = Where (both, e, n)";
        QTest::newRow("activations") << "a = Sigmoid (x)\n c = HardSwish (a)\n d = LeakyRelu <alpha = 0.1> (c)\n"
                                        " e = Elu (d)\n f = Tanh (e)\n g = Sub (f, b)\n h = Abs (g)\n i = Sqrt (h)\n"
                                        " j = Reciprocal (i)\n k = Erf (j)\n y = Max (k, b)";
    }
    void programsComputeWhatTheReferenceDoes()
    {
        QFETCH(QString, body);
        auto model = fused(R"(<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[3,4,8] x, float[8] b) => (float[3,4,8] y) <float lo = {-0.5}, float hi = {6.0}, int64 two = {2}> {
)" + body.toStdString() + "\n}");
        QVERIFY(model);
        auto feeds = passes::seededFeeds(*model, 9, {}, 3);
        QVERIFY(feeds);
        Everything everything(*model); // the fused node's inputs may be other nodes' outputs
        runtime::RunOptions options;
        options.observer = &everything;
        auto expected = runtime::Interpreter(*model).run(*feeds, options);
        QVERIFY2(expected, expected ? "" : expected.error().format().c_str());
        runtime::NamedValues values = *feeds;
        values.insert(values.end(), everything.seen.begin(), everything.seen.end());
        std::string whyNot;
        const auto actual = runProgramOnHost(*model, values, whyNot);
        QVERIFY2(actual, whyNot.empty() ? "the pass made no FusedElementwise node" : whyNot.c_str());
        const runtime::Tensor &y = expected->front().second.tensor;
        QCOMPARE(actual->shape(), y.shape());
        for (std::int64_t i = 0; i < y.size(); ++i) {
            const double e = y.data<float>()[i], a = actual->data<float>()[i];
            QVERIFY2((std::isnan(e) && std::isnan(a)) || std::abs(a - e) <= 1e-5 + 1e-5 * std::abs(e),
                     (std::to_string(i) + ": " + std::to_string(a) + " vs " + std::to_string(e)).c_str());
        }
    }

    void functionsMatchTheReferenceKernels_data()
    {
        QTest::addColumn<QString>("node");
        for (const char *node : {"Relu", "LeakyRelu <alpha = 0.3>", "Elu <alpha = 0.7>", "Sigmoid", "HardSigmoid <alpha = 0.3, beta = 0.4>",
                                 "HardSwish", "Tanh", "ai.portolan.Gelu", "ai.portolan.Gelu <approximate = \"tanh\">", "Exp", "Log",
                                 "Sqrt", "Abs", "Neg", "Erf", "Reciprocal"})
            QTest::newRow(node) << QString(node);
    }
    void functionsMatchTheReferenceKernels()
    {
        // each one-input op on values from -8 to 8 (zero, tiny, negative and NaN included), through the
        // reference kernel and through the function the CUDA kernels apply (ElementwiseMath.h)
        QFETCH(QString, node);
        const std::string op = node.section(' ', 0, 0).toStdString();
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[67] x) => (float[67] y) { y = )" + node.toStdString() + " (x) }");
        QVERIFY(model);
        std::vector<float> xs{0.f, -0.f, 1e-30f, -1e-30f, std::numeric_limits<float>::quiet_NaN()};
        for (int i = -31; i <= 30; ++i)
            xs.push_back(static_cast<float>(i) * 0.26f);
        const auto x = runtime::Tensor::fromVector(onnx::TensorProto::FLOAT, {67}, xs);
        auto expected = runtime::Interpreter(*model).run({{"x", runtime::RuntimeValue::ofTensor(x)}});
        QVERIFY(expected);
        std::optional<runtime::cuda::FunctionSpec> f;
        withBinding(*model, node.section(' ', 0, 0).section('.', -1).toStdString(),
                    [&](const runtime::NodeBinding &b) { f = runtime::cuda::unaryFunction(b.node.opType, b.attributes); });
        QVERIFY2(f, op.c_str());
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const float e = expected->front().second.tensor.data<float>()[i];
            const float a = runtime::cuda::applyFunction(*f, xs[i]);
            QVERIFY2((std::isnan(e) && std::isnan(a)) || (std::isinf(e) && a == e) || std::abs(a - e) <= 2e-6 + 2e-6 * std::abs(e),
                     (op + "(" + std::to_string(xs[i]) + "): " + std::to_string(a) + " vs " + std::to_string(e)).c_str());
        }
    }

    void bodiesWithOtherOpsStayOnTheCpu()
    {
        auto model = fused(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x) => (float[4,8] y) {
  a = Relu (x)
  b = Sign (a)
  y = Abs (b)
})");
        QVERIFY(model);
        const Decision d = decide(*model, "FusedElementwise");
        if (!d.whyNot.empty() && d.whyNot == "no such node")
            QSKIP("fuse-elementwise does not fuse Sign");
        QVERIFY(!d.kernel);
        QVERIFY2(d.whyNot.find("Sign in the body has no CUDA form") != std::string::npos, d.whyNot.c_str());
    }
    void unsupportedShapesSayWhy()
    {
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[1,2,4,300] q, float[1,2,4,300] k, float[1,2,4,300] v, float[2,3,4] x) => (float[1,2,4,300] y, float[2,3,4] s) {
  y = ai.portolan.Attention (q, k, v)
  s = Softmax <axis = 1> (x)
})");
        QVERIFY(model);
        const Decision attention = decide(*model, "Attention");
        QVERIFY(!attention.kernel);
        QVERIFY2(attention.whyNot.find("head dims above 256") != std::string::npos, attention.whyNot.c_str());
        const Decision softmax = decide(*model, "Softmax");
        QVERIFY(!softmax.kernel);
        QVERIFY2(softmax.whyNot.find("not the last") != std::string::npos, softmax.whyNot.c_str());
        // K and V of one head for Q's two: the kernels would read past them
        auto multiQuery = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[1,2,4,32] q, float[1,1,4,32] k, float[1,1,4,32] v) => (float[1,2,4,32] y) {
  y = ai.portolan.Attention (q, k, v)
})");
        QVERIFY(multiQuery);
        const Decision broadcast = decide(*multiQuery, "Attention");
        QVERIFY(!broadcast.kernel);
        QVERIFY2(broadcast.whyNot.find("Q's batch and head dims") != std::string::npos, broadcast.whyNot.c_str());
        auto otherLayout = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[1,2,4,32] q, float[1,2,4,32] k, float[1,2,4,32] v) => (float[1,2,4,32] y) {
  y = ai.portolan.Attention <layout = "BSD"> (q, k, v)
})");
        QVERIFY(otherLayout);
        const Decision layout = decide(*otherLayout, "Attention");
        QVERIFY(!layout.kernel);
        QVERIFY2(layout.whyNot.find("neither NSD nor SND") != std::string::npos, layout.whyNot.c_str());
    }
    void int8OperandsQuantizeAsTheCpuExecutorDoes()
    {
        using runtime::cuda::quantizeToInt8;
        QCOMPARE(int(quantizeToInt8(2.5f, 1.f)), 2); // ties to even, as QuantizeLinear
        QCOMPARE(int(quantizeToInt8(3.5f, 1.f)), 4);
        QCOMPARE(int(quantizeToInt8(-1000.f, 0.5f)), -127); // symmetric: -128 is never used
        QCOMPARE(int(quantizeToInt8(1000.f, 0.5f)), 127);
        QCOMPARE(int(quantizeToInt8(5.f, 0.f)), 0); // a range of zeros
        QCOMPARE(int(quantizeToInt8(std::numeric_limits<float>::quiet_NaN(), 1.f)), 0);

        // a MatMul weight [batch, K, N]: per output channel n over every batch, laid out [batch][N][K]
        const runtime::Tensor weight = normalTensor({3, 8, 12}, 7);
        const auto q = runtime::cuda::quantizeMatrix(weight, true, true);
        QCOMPARE(q.batch, std::int64_t(3));
        QCOMPARE(q.rows, std::int64_t(12));
        QCOMPARE(q.cols, std::int64_t(8));
        QCOMPARE(q.scales.size(), std::size_t(12));
        const runtime::Tensor cpu = runtime::fakeQuantizePerChannel(weight, 2);
        int levels = 0;
        for (std::int64_t b = 0; b < 3; ++b)
            for (std::int64_t n = 0; n < 12; ++n)
                for (std::int64_t k = 0; k < 8; ++k) {
                    const std::int8_t level = q.values[static_cast<std::size_t>((b * 12 + n) * 8 + k)];
                    levels += std::abs(int(level)) == 127;
                    // bitwise: the level times its scale is the CPU executor's quantize-dequantized weight
                    QCOMPARE(float(level) * q.scales[static_cast<std::size_t>(n)], cpu.data<float>()[(b * 8 + k) * 12 + n]);
                }
        QCOMPARE(levels, 12); // each channel's largest |w| maps to ±127, once

        // Gemm's transB weight [N, K] is already K-contiguous; an A operand has one scale
        const runtime::Tensor rows = normalTensor({12, 8}, 8);
        const auto straight = runtime::cuda::quantizeMatrix(rows, false, true);
        const runtime::Tensor cpuRows = runtime::fakeQuantizePerChannel(rows, 0);
        for (std::int64_t i = 0; i < rows.size(); ++i)
            QCOMPARE(float(straight.values[static_cast<std::size_t>(i)]) * straight.scales[static_cast<std::size_t>(i / 8)],
                     cpuRows.data<float>()[i]);
        const auto perTensor = runtime::cuda::quantizeMatrix(rows, false, false);
        const runtime::Tensor cpuTensor = runtime::fakeQuantizePerChannel(rows, 2);
        QCOMPARE(perTensor.scales.size(), std::size_t(1));
        for (std::int64_t i = 0; i < rows.size(); ++i)
            QCOMPARE(float(perTensor.values[static_cast<std::size_t>(i)]) * perTensor.scales[0], cpuTensor.data<float>()[i]);
    }

    void productsAreReadOffTheirNodes()
    {
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17, "ai.portolan" : 1]>
g (float[6,8] a, float[12,8] b, float[12] c, float[2,3,4,8] x, float[8,12] w) => (float[8,12] y, float[2,3,4,12] z) {
  y = ai.portolan.FusedGemm <transA = 1, transB = 1, alpha = 0.5, beta = 2.0, activation = "Relu"> (a, b, c)
  z = MatMul (x, w)
})");
        QVERIFY(model);
        std::string whyNot;
        const auto gemm = productOf(*model, "FusedGemm", whyNot);
        QVERIFY2(gemm, whyNot.c_str());
        QCOMPARE(gemm->m, std::int64_t(8));
        QCOMPARE(gemm->n, std::int64_t(12));
        QCOMPARE(gemm->k, std::int64_t(6));
        QVERIFY(gemm->transA && gemm->transB);
        QCOMPARE(gemm->alpha, 0.5f);
        QCOMPARE(gemm->beta, 2.f);
        QVERIFY(gemm->addend == runtime::cuda::MatrixProduct::Addend::Bias);
        QVERIFY(gemm->activation.kind == runtime::cuda::Function::Relu);
        QVERIFY(!runtime::cuda::fitsInt8Product(*gemm, whyNot)); // K 6
        QVERIFY2(whyNot.find("multiples of 4 (N 12, K 6)") != std::string::npos, whyNot.c_str());

        const auto batched = productOf(*model, "MatMul", whyNot); // [2,3,4,8]·[8,12]: one weight for six batches
        QVERIFY2(batched, whyNot.c_str());
        QCOMPARE(batched->batch, std::int64_t(6));
        QCOMPARE(batched->strideA, std::int64_t(4 * 8));
        QCOMPARE(batched->strideB, std::int64_t(0));
        QCOMPARE(batched->strideC, std::int64_t(4 * 12));
        QVERIFY(batched->addend == runtime::cuda::MatrixProduct::Addend::None);
        QVERIFY2(runtime::cuda::fitsInt8Product(*batched, whyNot), whyNot.c_str());

        // [2,3,…]·[3,…]: B's batch of 3 is neither 1 nor the output's 6
        auto second = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4,6] p, float[3,6,12] v) => (float[2,3,4,12] u) { u = MatMul (p, v) })");
        QVERIFY(second);
        QVERIFY(!productOf(*second, "MatMul", whyNot));
        QVERIFY2(whyNot.find("broadcast partially") != std::string::npos, whyNot.c_str());
    }

    void quantizeLinearRunsOnTheDeviceWhereItCan()
    {
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x) => (uint8[2,3,4] q, float[2,3,4] y)
  <float[3] s = {0.004, 0.01, 0.02}, uint8[3] zp = {128, 120, 140}> {
  q = QuantizeLinear <axis = 1> (x, s, zp)
  y = DequantizeLinear <axis = 1> (q, s, zp)
})");
        QVERIFY(model);
        const Decision quantize = decide(*model, "QuantizeLinear"), dequantize = decide(*model, "DequantizeLinear");
        QVERIFY2(quantize.kernel && dequantize.kernel, (quantize.whyNot + dequantize.whyNot).c_str());
        QCOMPARE(quantize.kernel->implementation(), std::string("cuda:quantize-linear"));
        QCOMPARE(dequantize.kernel->implementation(), std::string("cuda:dequantize-linear"));
        // two scales for three channels: the reference's error, on the CPU
        auto mismatched = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x) => (int8[2,3,4] q) <float[2] s = {0.1, 0.2}, int8[2] zp = {0, 0}> {
  q = QuantizeLinear <axis = 1> (x, s, zp)
})");
        QVERIFY(mismatched);
        const Decision refused = decide(*mismatched, "QuantizeLinear");
        QVERIFY(!refused.kernel);
        QVERIFY2(refused.whyNot.find("one per channel of the axis") != std::string::npos, refused.whyNot.c_str());
    }

    void dataMovementTakesFloatsOnly()
    {
        auto model = test::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,6] x, int64[2,6] i) => (float[2,3] a, float[2,3] b, int64[2,3] c, int64[2,3] d) {
  a, b = Split <axis = 1, num_outputs = 2> (x)
  c, d = Split <axis = 1, num_outputs = 2> (i)
})");
        QVERIFY(model);
        const Decision floats = decide(*model, "Split");
        QVERIFY2(floats.kernel, floats.whyNot.c_str());
        QCOMPARE(floats.kernel->implementation(), std::string("cuda:split"));
        QVERIFY(floats.kernel->readsInput(0));
    }
};

QTEST_GUILESS_MAIN(tst_CudaKernelPlans)
#include "tst_CudaKernelPlans.moc"
