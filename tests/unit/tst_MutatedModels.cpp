// Fixtures with seeded structural mutations (an attribute at an extreme, another op type, an input
// dropped or added, an initializer's dims or int64 values changed) through everything a user's bad
// model meets: load, the checker, shape inference, -O2, the reference interpreter and the compiled
// CPU executor. Each step may refuse the model, none may crash, hang or allocate without bound. The
// mutations that once crashed (a Softmax with no input, a zero Conv stride, shapes asked for while
// a rewrite had erased an initializer) came from this kind of run.
#include "support/TestSupport.h"

#include "analysis/ModelChecker.h"
#include "analysis/ShapeInference.h"
#include "ir/ModelLoader.h"
#include "passes/NumericCheck.h"
#include "passes/PassManager.h"
#include "passes/Pipeline.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/reference/Interpreter.h"

#include <QtTest>

#include <cstring>
#include <iterator>
#include <fstream>
#include <random>
#include <sstream>

using namespace portolan;

namespace {

constexpr int kMutants = 400;
constexpr std::size_t kRunMemory = std::size_t(256) << 20; // a mutated dim must not take the machine's memory

onnx::ModelProto readFixture(const std::string &name)
{
    std::ifstream in(test::fixturesDir() + "/" + name + "/model.onnx", std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    onnx::ModelProto proto;
    proto.ParseFromString(bytes.str());
    return proto;
}

template <typename Range>
auto &pick(std::mt19937_64 &random, Range &range)
{
    return range[static_cast<int>(random() % static_cast<std::uint64_t>(std::size(range)))];
}

/// One mutation of `graph`'s nodes or initializers; what it did, for the failure message.
std::string mutate(onnx::GraphProto &graph, std::mt19937_64 &random)
{
    static const char *ops[] = {"Relu", "Add", "MatMul", "Gemm", "Conv", "Reshape", "Transpose", "Softmax", "Concat",
                                "Slice", "Gather", "ReduceMean", "Split", "Squeeze", "Unsqueeze", "Expand", "Where",
                                "MaxPool", "Pad", "Tile", "LayerNormalization", "Resize", "TopK"};
    static const std::int64_t extremes[] = {-1, 0, 1, 2, 7, -100, std::int64_t(1) << 31, std::int64_t(1) << 40};
    onnx::NodeProto &node = pick(random, *graph.mutable_node());
    switch (random() % 7) {
    case 0:
        if (node.attribute_size() > 0) {
            onnx::AttributeProto &a = pick(random, *node.mutable_attribute());
            if (a.type() == onnx::AttributeProto::INT)
                a.set_i(pick(random, extremes));
            else if (a.type() == onnx::AttributeProto::INTS && a.ints_size() > 0)
                a.set_ints(static_cast<int>(random() % static_cast<std::uint64_t>(a.ints_size())), pick(random, extremes));
            else if (a.type() == onnx::AttributeProto::FLOAT)
                a.set_f(random() % 2 ? 0.f : -1e30f);
            return node.name() + ": attribute " + a.name() + " changed";
        }
        return "nothing";
    case 1:
        node.set_op_type(pick(random, ops));
        return node.name() + ": op type now " + node.op_type();
    case 2:
        if (node.input_size() > 0) {
            node.mutable_input()->erase(node.mutable_input()->begin() + static_cast<int>(random() % node.input_size()));
            return node.name() + ": an input dropped";
        }
        return "nothing";
    case 3:
        if (graph.initializer_size() > 0) {
            node.add_input(pick(random, *graph.mutable_initializer()).name());
            return node.name() + ": an input added";
        }
        return "nothing";
    case 4:
        if (graph.initializer_size() > 0) {
            onnx::TensorProto &t = pick(random, *graph.mutable_initializer());
            if (t.dims_size() > 0)
                t.set_dims(static_cast<int>(random() % t.dims_size()), pick(random, extremes) & 0xfffff);
            return t.name() + ": dims changed";
        }
        return "nothing";
    case 5:
        if (node.input_size() > 1) {
            std::swap(*node.mutable_input(0), *node.mutable_input(node.input_size() - 1));
            return node.name() + ": inputs swapped";
        }
        return "nothing";
    default:
        for (onnx::NodeProto &constant : *graph.mutable_node()) // an int64 constant: a shape, axes, indices
            for (onnx::AttributeProto &a : *constant.mutable_attribute())
                if (constant.op_type() == "Constant" && a.name() == "value" && a.t().data_type() == onnx::TensorProto::INT64 &&
                    a.t().raw_data().size() >= 8 && random() % 3 == 0) {
                    std::string raw = a.t().raw_data();
                    const std::int64_t v = pick(random, extremes);
                    std::memcpy(raw.data() + 8 * (random() % (raw.size() / 8)), &v, 8);
                    a.mutable_t()->set_raw_data(raw);
                    return constant.name() + ": an int64 value changed";
                }
        return "nothing";
    }
}

} // namespace

class TestMutatedModels : public QObject {
    Q_OBJECT

private slots:
    void mutantsAreRefusedOrRunNeverCrash()
    {
        const std::vector<std::string> fixtures{"cnn_bn", "transformer_opset17", "control_flow"};
        std::vector<onnx::ModelProto> originals;
        for (const std::string &name : fixtures)
            originals.push_back(readFixture(name));
        std::mt19937_64 random(20261206);
        int loaded = 0, optimized = 0, ran = 0;
        for (int i = 0; i < kMutants; ++i) {
            onnx::ModelProto proto = pick(random, originals);
            std::string what;
            for (int m = 0, count = 1 + static_cast<int>(random() % 3); m < count; ++m)
                what += mutate(*proto.mutable_graph(), random) + "; ";
            qDebug("mutant %d: %s", i, what.c_str()); // the last line before a crash names the culprit
            auto model = ir::loadModelProto(std::move(proto), "mutant " + std::to_string(i), test::fixturesDir());
            if (!model)
                continue;
            ++loaded;
            analysis::checkModel(*model->model);
            analysis::inferShapes(*model->model);
            auto feeds = passes::seededFeeds(*model->model, 1, {{"input", {1, 8, 32}}}, 3);
            runtime::RunOptions options;
            options.maxMemoryBytes = kRunMemory;
            if (feeds && runtime::Interpreter(*model->model).run(*feeds, options))
                ++ran;
            auto compiled = passes::runPipeline(*model->model, *passes::presetPipeline(2), {});
            if (!compiled)
                continue;
            ++optimized;
            runtime::cpu::CpuExecutor cpu(*compiled->model);
            if (feeds)
                (void)cpu.run(*feeds, options);
        }
        qInfo("%d mutants: %d loaded, %d ran on the reference, %d compiled at -O2", kMutants, loaded, ran, optimized);
        QVERIFY(loaded > kMutants / 2); // the mutations are mostly loadable: the later steps were reached
        QVERIFY(ran > 0 && optimized > 0);
    }
};

QTEST_GUILESS_MAIN(TestMutatedModels)
#include "tst_MutatedModels.moc"
