// The reference interpreter's contract: outputs, observers, release of intermediates, and clear errors
// for bad runs (missing kernels listed at once, wrong feeds, terabyte allocations, endless loops).
#include "support/TestSupport.h"

#include "runtime/reference/AttributeGuard.h"
#include "runtime/reference/Interpreter.h"

#include <QtTest>

#include <cmath>

using namespace portolan;
using runtime::RuntimeValue;
using runtime::Tensor;

namespace {

RuntimeValue floats(runtime::Shape shape, std::vector<float> values)
{
    return RuntimeValue::ofTensor(Tensor::fromVector(onnx::TensorProto::FLOAT, std::move(shape), values));
}

struct Recorder final : runtime::RunObserver {
    std::vector<std::string> ops;
    std::size_t outputs = 0;
    void nodeFinished(const ir::Node &node, std::span<const RuntimeValue> values) override
    {
        ops.push_back(node.opType);
        outputs += values.size();
    }
};

} // namespace

class TestInterpreter : public QObject {
    Q_OBJECT

private slots:
    void runsAndObservesEveryNode()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[3] x) => (float[3] z) { a = Relu(x)  b = Neg(a)  z = Add(a, b) })");
        QVERIFY(loaded.hasValue());
        runtime::Interpreter interpreter(*loaded->model);
        Recorder recorder;
        runtime::RunOptions options;
        options.observer = &recorder;
        auto out = interpreter.run({{"x", floats({3}, {-1.0f, 2.0f, NAN})}}, options);
        QVERIFY2(out.hasValue(), out.hasValue() ? "" : out.error().format().c_str());
        QCOMPARE(recorder.ops, (std::vector<std::string>{"Relu", "Neg", "Add"}));
        const float *z = (*out)[0].second.tensor.data<float>();
        QCOMPARE(z[0], 0.0f);
        QCOMPARE(z[1], 0.0f);
        QVERIFY(std::isnan(z[2])); // NaN propagates, nothing crashes
        QCOMPARE(interpreter.lastStats().nodesRun, std::size_t(3));
    }

    void missingKernelsAreListedTogether()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17, "com.vendor" : 1]>
            g (float[3] x) => (float[3] z) { a = com.vendor.FancyOp(x)  b = com.vendor.OtherOp(a)  z = Relu(b) })");
        QVERIFY(loaded.hasValue());
        const auto st = runtime::Interpreter(*loaded->model).checkSupported();
        QVERIFY(!st.isOk());
        const std::string message = st.error().primary.message;
        QVERIFY2(message.find("FancyOp") != std::string::npos && message.find("OtherOp") != std::string::npos,
                 message.c_str());
        QVERIFY(message.find("2 op(s)") != std::string::npos);
    }

    void badFeedsAreNamed_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("wrong dtype") << "x" << int(onnx::TensorProto::INT64) << "expects float";
        QTest::newRow("unknown input") << "y" << int(onnx::TensorProto::FLOAT) << "no value given for input(s): x";
    }

    void badFeedsAreNamed()
    {
        QFETCH(QString, name);
        QFETCH(int, dtype);
        QFETCH(QString, fragment);
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[3] x) => (float[3] z) { z = Relu(x) })");
        QVERIFY(loaded.hasValue());
        runtime::Interpreter interpreter(*loaded->model);
        auto out = interpreter.run({{name.toStdString(), RuntimeValue::ofTensor(Tensor::zeros(dtype, {3}))}});
        QVERIFY(!out.hasValue());
        QVERIFY2(out.error().format().find(fragment.toStdString()) != std::string::npos, out.error().format().c_str());
    }

    void wrongShapeIsRefused()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[3] x) => (float[3] z) { z = Relu(x) })");
        QVERIFY(loaded.hasValue());
        auto out = runtime::Interpreter(*loaded->model).run({{"x", floats({2}, {1, 2})}});
        QVERIFY(!out.hasValue());
        QVERIFY2(out.error().format().find("expects shape [3]") != std::string::npos, out.error().format().c_str());
    }

    void terabyteTensorsStopBeforeAllocating()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (int64[3] shape) => (float[?,?,?] z) { z = ConstantOfShape(shape) })");
        QVERIFY(loaded.hasValue());
        runtime::Interpreter interpreter(*loaded->model);
        runtime::RunOptions options;
        options.maxMemoryBytes = std::size_t(1) << 30;
        auto out = interpreter.run({{"shape", RuntimeValue::ofTensor(Tensor::fromVector<std::int64_t>(
                                                  onnx::TensorProto::INT64, {3}, {100000, 100000, 1000}))}},
                                   options);
        QVERIFY(!out.hasValue());
        const std::string message = out.error().format();
        QVERIFY2(message.find("over the memory cap") != std::string::npos, message.c_str());
        QVERIFY2(message.find("ConstantOfShape") != std::string::npos, message.c_str());
    }

    void endlessLoopsHitTheIterationCap()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (int64 m, bool c, float[1] x) => (float[1] y) {
                y = Loop(m, c, x) <body = b (int64 i, bool cond, float[1] v) => (bool cond_out, float[1] w) {
                    cond_out = Identity(cond)
                    w = Neg(v)
                }>
            })");
        QVERIFY2(loaded.hasValue(), loaded.hasValue() ? "" : loaded.error().format().c_str());
        runtime::Interpreter interpreter(*loaded->model);
        runtime::RunOptions options;
        options.maxLoopIterations = 1000;
        // a trip count of 10^15 with a condition that stays true: as good as endless
        auto out = interpreter.run({{"m", RuntimeValue::ofTensor(Tensor::fromVector<std::int64_t>(onnx::TensorProto::INT64, {}, {1000000000000000}))},
                                    {"c", RuntimeValue::ofTensor(Tensor::fromVector<std::uint8_t>(onnx::TensorProto::BOOL, {}, {1}))},
                                    {"x", floats({1}, {1})}},
                                   options);
        QVERIFY(!out.hasValue());
        QVERIFY2(out.error().format().find("1000") != std::string::npos, out.error().format().c_str());
    }

    void cancellationStopsTheRun()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[3] x) => (float[3] z) { z = Relu(x) })");
        QVERIFY(loaded.hasValue());
        std::atomic<bool> cancel{true};
        runtime::RunOptions options;
        options.cancel = &cancel;
        auto out = runtime::Interpreter(*loaded->model).run({{"x", floats({3}, {1, 2, 3})}}, options);
        QVERIFY(!out.hasValue());
        QCOMPARE(out.error().primary.code, std::string("cancelled"));
    }

    void largeFreedBuffersAreReused()
    {
        // a freed buffer of 256 KiB or more comes back for the next tensor of its size, already paged in
        runtime::releaseCachedBuffers();
        const void *first = nullptr;
        {
            Tensor big = Tensor::uninitialized(onnx::TensorProto::FLOAT, {1 << 17}); // 512 KiB
            first = big.rawData();
        }
        QCOMPARE(runtime::cachedBufferBytes(), std::size_t(512) << 10);
        Tensor again = Tensor::zeros(onnx::TensorProto::FLOAT, {1 << 17});
        QCOMPARE(static_cast<const void *>(again.rawData()), first);
        QCOMPARE(runtime::cachedBufferBytes(), std::size_t(0));
        QCOMPARE(again.data<float>()[12345], 0.0f); // zeros() zeroes a reused buffer too
        Tensor small = Tensor::uninitialized(onnx::TensorProto::FLOAT, {16}); // small ones are not kept
        small = Tensor();
        QCOMPARE(runtime::cachedBufferBytes(), std::size_t(0));
        again = Tensor();
        runtime::releaseCachedBuffers();
        QCOMPARE(runtime::cachedBufferBytes(), std::size_t(0));
    }

    void intermediatesAreReleased()
    {
        // a chain of 200 ops on 1 MiB tensors: the peak must stay a few tensors, not 200
        std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[262144] x) => (float[262144] t200) {\n";
        std::string previous = "x";
        for (int i = 1; i <= 200; ++i) {
            text += "  t" + std::to_string(i) + " = Neg(" + previous + ")\n";
            previous = "t" + std::to_string(i);
        }
        text += "}";
        auto loaded = test::loadModelText(text.c_str());
        QVERIFY(loaded.hasValue());
        runtime::Interpreter interpreter(*loaded->model);
        auto out = interpreter.run({{"x", RuntimeValue::ofTensor(Tensor::zeros(onnx::TensorProto::FLOAT, {262144}))}});
        QVERIFY(out.hasValue());
        QVERIFY2(interpreter.lastStats().peakBytes <= 3u << 20,
                 qPrintable(QString::number(interpreter.lastStats().peakBytes)));
    }

    // The guard behind "no kernel ignores an attribute": an attribute no lookup read is an error
    // unless it holds its schema default.
    void anAttributeNoLookupReadIsNamedUnlessDefault()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[1,2,4,4] x, float[2,1,3,3] w) => (float[1,2,2,2] y, float[1,2,2,2] z) {
                y = Conv <group = 2> (x, w)
                z = Conv <group = 1> (x, w)
            })");
        QVERIFY(loaded.hasValue());
        const ir::Model &model = *loaded->model;
        const ir::Graph &main = model.graph(model.mainGraph());
        runtime::MemoryBudget budget;
        runtime::NoSubgraphs noSubgraphs("none");
        const ir::Node &grouped = model.node(main.nodes[0]);
        runtime::KernelContext unread(model, grouped, 17, {}, budget, noSubgraphs);
        QCOMPARE(runtime::ignoredAttribute(unread), std::optional<std::string>("group = 2"));
        const auto status = runtime::checkAttributesHonoured(unread, "a test kernel");
        QVERIFY(!status);
        QVERIFY2(status.error().primary.message.find("attribute group = 2 is not implemented by a test kernel for Conv-11") !=
                     std::string::npos, status.error().primary.message.c_str());
        runtime::KernelContext read(model, grouped, 17, {}, budget, noSubgraphs);
        QCOMPARE(read.attrInt("group", 1), std::int64_t(2));
        QVERIFY(!runtime::ignoredAttribute(read));
        const ir::Node &plain = model.node(main.nodes[1]); // group = 1 is Conv's default: ignoring it changes nothing
        runtime::KernelContext defaulted(model, plain, 17, {}, budget, noSubgraphs);
        QVERIFY(!runtime::ignoredAttribute(defaulted));
    }

    // Opsets 1-6 broadcast B into A from `axis` only with broadcast=1; an axis that does not place B
    // inside A, or unequal shapes without broadcast, is an error and never numpy's rule instead.
    void legacyBroadcastFollowsAxisOrRefuses()
    {
        auto run = [](const char *attributes, runtime::Shape shapeB) {
            std::string dimsB;
            for (const std::int64_t d : shapeB)
                dimsB += (dimsB.empty() ? "" : ",") + std::to_string(d);
            const std::string text = R"(<ir_version: 3, opset_import: ["" : 6]>
                g (float[2,3] a, float[)" + dimsB + "] b) => (float[2,3] y) { y = Add " + attributes + "(a, b) }";
            auto loaded = test::loadModelText(text.c_str());
            if (!loaded)
                return support::Expected<runtime::NamedValues>(loaded.takeError());
            std::vector<float> valuesB(static_cast<std::size_t>(runtime::elementCount(shapeB)));
            for (std::size_t i = 0; i < valuesB.size(); ++i)
                valuesB[i] = float(10 * (i + 1));
            return runtime::Interpreter(*loaded->model)
                .run({{"a", floats({2, 3}, {0, 1, 2, 3, 4, 5})}, {"b", floats(shapeB, valuesB)}});
        };
        auto firstOutput = [](const auto &out) { return out.value().front().second.tensor.template data<float>(); };

        const auto alongRows = run("<broadcast = 1, axis = 0>", {2}); // B = [10, 20] runs down the rows
        QVERIFY2(alongRows.hasValue(), alongRows ? "" : alongRows.error().format().c_str());
        QCOMPARE(firstOutput(alongRows)[2], 12.0f);
        QCOMPARE(firstOutput(alongRows)[3], 23.0f);
        const auto trailing = run("<broadcast = 1>", {3}); // the default axis lines B up with the last dims
        QVERIFY(trailing.hasValue());
        QCOMPARE(firstOutput(trailing)[4], 24.0f);

        const auto outside = run("<broadcast = 1, axis = 1>", {2});
        QVERIFY(!outside.hasValue());
        QVERIFY2(outside.error().format().find("B's dim 0 (2) does not match A's dim 1 (3)") != std::string::npos,
                 outside.error().format().c_str());
        const auto pastEnd = run("<broadcast = 1, axis = 2>", {3});
        QVERIFY(!pastEnd.hasValue());
        QVERIFY2(pastEnd.error().format().find("axis 2 does not place B") != std::string::npos,
                 pastEnd.error().format().c_str());
        const auto equalRankShifted = run("<broadcast = 1, axis = 1>", {1, 3});
        QVERIFY(!equalRankShifted.hasValue());
        const auto noBroadcast = run("", {3}); // broadcast defaults to 0 before opset 7
        QVERIFY(!noBroadcast.hasValue());
        QVERIFY2(noBroadcast.error().format().find("broadcast=0 requires both inputs to have one shape") !=
                     std::string::npos,
                 noBroadcast.error().format().c_str());
    }
};

QTEST_GUILESS_MAIN(TestInterpreter)
#include "tst_Interpreter.moc"
