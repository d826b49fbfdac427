// What the CUDA kernel factories decide, on the CPU (no GPU needed): which fused elementwise bodies
// compile into a program, and why the others, and other nodes, are left to the CPU.
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include "passes/PassManager.h"
#include "passes/Pipeline.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/cuda/CudaKernel.h"

#include <QtTest>

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
};

struct Decision {
    std::unique_ptr<CudaKernel> kernel;
    std::string whyNot;
};

/// The factory's decision for the first node of type `opType` in `model`, with every value's
/// declared shape (the signatures below declare them all) and the initializers' data.
Decision decide(const ir::Model &model, const std::string &opType)
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
        NoDevice device;
        Decision d;
        const auto factory = runtime::cuda::findCudaKernel(node.domain, node.opType);
        if (factory)
            d.kernel = factory(binding, device, d.whyNot);
        else
            d.whyNot = "no factory";
        return d;
    }
    return {nullptr, "no such node"};
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
