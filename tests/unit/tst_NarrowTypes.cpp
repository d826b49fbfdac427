// The narrow element types (float8, float4e2m1, int4/uint4, int2/uint2) in files and at run time:
// packed sub-byte data unpacks to one element a byte and packs back bit for bit, statistics read
// them, Cast honours `saturate`, and a model with an int4 weight saves and re-opens unchanged.
#include "analysis/ModelValidation.h"
#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "ir/TensorValidation.h"
#include "ir/Type.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/TensorStats.h"
#include "runtime/reference/Interpreter.h"
#include "support/TestSupport.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace portolan;
using runtime::RuntimeValue;
using runtime::Tensor;

namespace {

constexpr int kFloat8E4M3FN = 17;
constexpr int kUInt4 = 21;
constexpr int kInt4 = 22;
constexpr int kUInt2 = 25;

onnx::TensorProto packedTensor(int type, std::vector<std::int64_t> dims, std::string raw, const std::string &name = "t")
{
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(type);
    for (auto d : dims)
        t.add_dims(d);
    t.set_raw_data(std::move(raw));
    return t;
}

template <typename T>
std::vector<T> elements(const Tensor &t)
{
    return std::vector<T>(t.data<T>(), t.data<T>() + t.size());
}

/// x (float[n]) → Cast(to) → Cast(float) → z, at `opset`, with Cast's extra attributes.
onnx::ModelProto castThere(int opset, int narrow, std::int64_t n, std::optional<int> saturate)
{
    onnx::ModelProto m;
    m.set_ir_version(10);
    auto *op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    auto *g = m.mutable_graph();
    g->set_name("cast_there_and_back");
    auto io = [n](onnx::ValueInfoProto *v, const char *name) {
        v->set_name(name);
        auto *tt = v->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(onnx::TensorProto::FLOAT);
        tt->mutable_shape()->add_dim()->set_dim_value(n);
    };
    io(g->add_input(), "x");
    io(g->add_output(), "z");
    auto *there = g->add_node();
    there->set_op_type("Cast");
    there->set_name("to_narrow");
    there->add_input("x");
    there->add_output("y");
    auto *to = there->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(narrow);
    if (saturate) {
        auto *s = there->add_attribute();
        s->set_name("saturate");
        s->set_type(onnx::AttributeProto::INT);
        s->set_i(*saturate);
    }
    auto *back = g->add_node();
    back->set_op_type("Cast");
    back->set_name("back");
    back->add_input("y");
    back->add_output("z");
    auto *toFloat = back->add_attribute();
    toFloat->set_name("to");
    toFloat->set_type(onnx::AttributeProto::INT);
    toFloat->set_i(onnx::TensorProto::FLOAT);
    return m;
}

std::vector<float> runCast(onnx::ModelProto model, const std::vector<float> &x)
{
    auto loaded = ir::loadModelProto(std::move(model), "cast.onnx", "");
    if (!loaded)
        qFatal("load: %s", loaded.error().format().c_str());
    runtime::Interpreter interpreter(*loaded->model);
    auto out = interpreter.run({{"x", RuntimeValue::ofTensor(Tensor::fromVector<float>(onnx::TensorProto::FLOAT,
                                                                                         {static_cast<std::int64_t>(x.size())}, x))}});
    if (!out)
        qFatal("run: %s", out.error().format().c_str());
    return elements<float>((*out)[0].second.tensor);
}

} // namespace

class TestNarrowTypes : public QObject {
    Q_OBJECT

private slots:
    void int4RawDataUnpacksAndPacksBack()
    {
        // [-8, 7, -1, 0, 3]: two 4-bit codes a byte, the first in the low nibble, the last byte half used
        const std::string raw{"\x78\x0f\x03", 3};
        const auto proto = packedTensor(kInt4, {5}, raw);
        auto tensor = runtime::tensorFromProto(proto, nullptr, {});
        QVERIFY2(tensor.hasValue(), tensor.hasValue() ? "" : tensor.error().format().c_str());
        QCOMPARE(elements<std::int8_t>(*tensor), (std::vector<std::int8_t>{-8, 7, -1, 0, 3}));
        QCOMPARE(runtime::tensorToProto(*tensor, "t").raw_data(), raw);
    }

    void packedInt32DataReadsLikeRawData()
    {
        onnx::TensorProto proto;
        proto.set_data_type(kUInt2);
        proto.add_dims(7);
        for (int byte : {0xE4, 0x1B}) // [0,1,2,3] and [3,2,1]: four 2-bit codes an entry
            proto.add_int32_data(byte);
        auto tensor = runtime::tensorFromProto(proto, nullptr, {});
        QVERIFY2(tensor.hasValue(), tensor.hasValue() ? "" : tensor.error().format().c_str());
        QCOMPARE(elements<std::uint8_t>(*tensor), (std::vector<std::uint8_t>{0, 1, 2, 3, 3, 2, 1}));
        QCOMPARE(runtime::tensorToProto(*tensor, "t").raw_data(), std::string("\xE4\x1B", 2));
    }

    void aPackedSizeMismatchIsNamed()
    {
        // uint4[5] takes 3 bytes; 5 (one a byte) is the mistake of a writer that forgot to pack
        const auto checked = ir::validateTensorProto(packedTensor(kUInt4, {5}, std::string(5, '\0'), "w"));
        QVERIFY(!checked.hasValue());
        QCOMPARE(checked.error().primary.code, std::string("data-size-mismatch"));
        QVERIFY(checked.error().primary.message.find("needs 3 bytes") != std::string::npos);
        QCOMPARE(ir::dataTypeFileBytes(kUInt4, 5), std::optional<std::size_t>(3));
        QCOMPARE(ir::dataTypeName(kInt4), std::string("int4"));
    }

    void statisticsReadFloat8()
    {
        // 1.0, -1.0, NaN, 448 (the largest finite float8e4m3fn)
        auto tensor = runtime::tensorFromProto(packedTensor(kFloat8E4M3FN, {4}, std::string("\x38\xB8\x7F\x7E", 4)), nullptr, {});
        QVERIFY(tensor.hasValue());
        const runtime::TensorStats stats = runtime::tensorStats(*tensor);
        QVERIFY(stats.numeric);
        QCOMPARE(stats.nans, std::int64_t(1));
        QCOMPARE(stats.min, -1.0);
        QCOMPARE(stats.max, 448.0);
        QCOMPARE(runtime::elementAsDouble(*tensor, 3), 448.0);
    }

    void castHonoursSaturate()
    {
        const std::vector<float> x{1.0f, 500.0f, -0.3f, INFINITY};
        const auto saturated = runCast(castThere(19, kFloat8E4M3FN, 4, std::nullopt), x); // saturate defaults to 1
        QCOMPARE(saturated, (std::vector<float>{1.0f, 448.0f, -0.3125f, 448.0f}));
        const auto plain = runCast(castThere(19, kFloat8E4M3FN, 4, 0), x);
        QCOMPARE(plain[0], 1.0f);
        QVERIFY(std::isnan(plain[1])); // past the largest finite value, and E4M3FN has no infinity
        QCOMPARE(plain[2], -0.3125f);
        QVERIFY(std::isnan(plain[3]));
    }

    void castToInt4RoundsHalfToEvenThenWraps()
    {
        const auto z = runCast(castThere(21, kInt4, 5, std::nullopt), {-9.0f, 7.5f, 2.5f, -0.5f, 3.0f});
        QCOMPARE(z, (std::vector<float>{7.0f, -8.0f, 2.0f, 0.0f, 3.0f}));
    }

    void anOpVersionOlderThanATypeRefusesIt()
    {
        // Cast-19 knows float8 but not int4 (Cast-21 added it)
        auto early = ir::loadModelProto(castThere(19, kInt4, 3, std::nullopt), "cast19.onnx", "");
        QVERIFY(early.hasValue());
        const auto refused = analysis::executionGate(*early->model);
        QVERIFY(!refused);
        QVERIFY2(refused.error().primary.message.find("attribute 'to' names int4, which Cast-19 cannot produce") != std::string::npos,
                 refused.error().primary.message.c_str());
        auto later = ir::loadModelProto(castThere(21, kInt4, 3, std::nullopt), "cast21.onnx", "");
        QVERIFY(later.hasValue());
        QVERIFY(analysis::executionGate(*later->model));

        // Relu takes no float8 at any opset
        onnx::ModelProto relu = castThere(19, kFloat8E4M3FN, 4, std::nullopt);
        auto *g = relu.mutable_graph();
        g->mutable_node(0)->set_op_type("Relu");
        g->mutable_node(0)->clear_attribute();
        g->mutable_node(0)->set_input(0, "w");
        g->mutable_input()->Clear();
        *g->add_initializer() = packedTensor(kFloat8E4M3FN, {4}, std::string("\x38\xB8\x7F\x7E", 4), "w");
        auto loaded = ir::loadModelProto(std::move(relu), "relu.onnx", "");
        QVERIFY(loaded.hasValue());
        const auto reluRefused = analysis::executionGate(*loaded->model);
        QVERIFY(!reluRefused);
        QVERIFY2(reluRefused.error().primary.message.find("input 'w' is float8e4m3fn, which Relu-14 does not take as X") != std::string::npos,
                 reluRefused.error().primary.message.c_str());
    }

    void dequantizeWritesOutputDtype()
    {
        // ONNX Runtime 1.30 fails this case (tests/data/conformance/generate.py says why), so it is here
        auto loaded = test::loadModelText(R"(<ir_version: 10, opset_import: ["" : 23]>
            g (int8[3] w) => (float[3] y) {
                s = Constant <value_float = 0.5> ()
                h = DequantizeLinear <output_dtype = 10> (w, s)
                y = Cast <to = 1> (h)
            })");
        QVERIFY2(loaded.hasValue(), loaded.hasValue() ? "" : loaded.error().format().c_str());
        runtime::Interpreter interpreter(*loaded->model);
        auto out = interpreter.run({{"w", RuntimeValue::ofTensor(Tensor::fromVector<std::int8_t>(onnx::TensorProto::INT8, {3}, {1, -2, 3}))}});
        QVERIFY2(out.hasValue(), out.hasValue() ? "" : out.error().format().c_str());
        QCOMPARE(elements<float>((*out)[0].second.tensor), (std::vector<float>{0.5f, -1.0f, 1.5f}));
    }

    void aModelWithAnInt4WeightSavesAndReopensUnchanged()
    {
        onnx::ModelProto m = castThere(21, kInt4, 5, std::nullopt);
        // the weight replaces the graph input: w (int4[5]) → Cast(float) → z
        auto *g = m.mutable_graph();
        g->mutable_node()->DeleteSubrange(0, 1);
        g->mutable_input()->Clear();
        g->mutable_node(0)->set_input(0, "w");
        *g->add_initializer() = packedTensor(kInt4, {5}, std::string("\x78\x0f\x03", 3), "w");
        auto loaded = ir::loadModelProto(std::move(m), "int4.onnx", "");
        QVERIFY2(loaded.hasValue(), loaded.hasValue() ? "" : loaded.error().format().c_str());

        QTemporaryDir dir;
        const std::string path = dir.filePath("int4.onnx").toStdString();
        QVERIFY(ir::saveModelFile(*loaded->model, path));
        auto reopened = ir::loadModelFile(path);
        QVERIFY2(reopened.hasValue(), reopened.hasValue() ? "" : reopened.error().format().c_str());
        auto out = runtime::Interpreter(*reopened->model).run({});
        QVERIFY2(out.hasValue(), out.hasValue() ? "" : out.error().format().c_str());
        QCOMPARE(elements<float>((*out)[0].second.tensor), (std::vector<float>{-8, 7, -1, 0, 3}));
    }
};

QTEST_GUILESS_MAIN(TestNarrowTypes)
#include "tst_NarrowTypes.moc"
