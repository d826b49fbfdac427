// Integer arithmetic with no undefined behaviour (docs/integer-semantics.md): the helpers, and the
// reference kernels on the models of the hostile corpus that would trap on x86.
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"
#include "runtime/reference/Interpreter.h"
#include "support/IntegerArithmetic.h"

#include <QtTest>

#include <cstdint>
#include <limits>

using namespace portolan;

namespace {

constexpr std::int32_t kMin32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kMin64 = std::numeric_limits<std::int64_t>::min();

// The helpers are constexpr: a trap or undefined behaviour would not compile here.
static_assert(support::integerDivide(kMin32, -1) == kMin32);
static_assert(support::integerDivide(7, 0) == 0);
static_assert(support::integerDivide(-7, 2) == -3);
static_assert(support::truncatedRemainder(kMin64, std::int64_t(-1)) == 0);
static_assert(support::truncatedRemainder(-7, 3) == -1);
static_assert(support::flooredRemainder(-7, 3) == 2);
static_assert(support::flooredRemainder(7, -3) == -2);
static_assert(support::flooredRemainder(7, 0) == 0);
static_assert(support::wrappingAdd(std::numeric_limits<std::int32_t>::max(), 1) == kMin32);
static_assert(support::wrappingMul(std::uint16_t(65535), std::uint16_t(65535)) == std::uint16_t(1));
static_assert(support::wrappingNeg(kMin64) == kMin64);
static_assert(support::wrappingAbs(kMin64) == kMin64);
static_assert(support::shiftBits(std::uint32_t(1), std::uint32_t(32), true) == 0);
static_assert(support::shiftBits(std::uint8_t(0x81), std::uint8_t(1), true) == 0x02);

template <typename T>
std::vector<T> runConstantModel(const char *file)
{
    auto loaded = ir::loadModelFile(PORTOLAN_SOURCE_DIR "/tests/data/hostile/" + std::string(file));
    if (!loaded)
        qFatal("%s: %s", file, loaded.error().format().c_str());
    runtime::Interpreter interpreter(*loaded->model);
    auto outputs = interpreter.run({});
    if (!outputs)
        qFatal("%s: %s", file, outputs.error().format().c_str());
    const runtime::Tensor &y = outputs->front().second.tensor;
    return {y.data<T>(), y.data<T>() + y.size()};
}

} // namespace

class TestIntegerArithmetic : public QObject {
    Q_OBJECT

private slots:
    void divisionNeverTraps()
    {
        QCOMPARE(runConstantModel<std::int32_t>("div_int32_by_zero.onnx"), (std::vector<std::int32_t>{0, 0, 0}));
        QCOMPARE(runConstantModel<std::int32_t>("div_int32_min_by_minus_one.onnx"), (std::vector<std::int32_t>{kMin32, -5}));
        QCOMPARE(runConstantModel<std::int64_t>("div_int64_min_by_minus_one.onnx"), (std::vector<std::int64_t>{kMin64, -5}));
    }

    void modulusNeverTraps()
    {
        QCOMPARE(runConstantModel<std::int32_t>("mod_int32_by_zero.onnx"), (std::vector<std::int32_t>{0, 0}));
        QCOMPARE(runConstantModel<std::int32_t>("fmod_int32_by_zero.onnx"), (std::vector<std::int32_t>{0, 0}));
        QCOMPARE(runConstantModel<std::int64_t>("mod_int64_min_by_minus_one.onnx"), (std::vector<std::int64_t>{0}));
        QCOMPARE(runConstantModel<std::int32_t>("fmod_int32_min_by_minus_one.onnx"), (std::vector<std::int32_t>{0}));
    }

    void overflowWraps()
    {
        QCOMPARE(runConstantModel<std::int32_t>("add_int32_overflow.onnx"),
                 (std::vector<std::int32_t>{kMin32, std::numeric_limits<std::int32_t>::max()}));
        QCOMPARE(runConstantModel<std::int64_t>("mul_int64_overflow.onnx"), (std::vector<std::int64_t>{-2, kMin64}));
        QCOMPARE(runConstantModel<std::int64_t>("neg_int64_min.onnx"), (std::vector<std::int64_t>{kMin64, -3}));
        QCOMPARE(runConstantModel<std::int64_t>("abs_int64_min.onnx"), (std::vector<std::int64_t>{kMin64, 3}));
        QCOMPARE(runConstantModel<std::uint32_t>("bitshift_past_width.onnx"), (std::vector<std::uint32_t>{0, 0}));
    }

    void outOfRangeCastsSaturate()
    {
        const auto y = runConstantModel<std::int32_t>("cast_float_out_of_range.onnx");
        QCOMPARE(y, (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::max(), kMin32, kMin32,
                                               std::numeric_limits<std::int32_t>::max()}));
    }

    // Integer reductions wrap too (fuzz_run_graph found ReduceProd's int64 product overflowing).
    void reductionsWrap()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 18]>
            g (int64[3] x) => (int64 p, int64 s, int64 q, int64 l) {
                p = ReduceProd <keepdims = 0> (x)
                s = ReduceSum <keepdims = 0> (x)
                q = ReduceSumSquare <keepdims = 0> (x)
                l = ReduceL1 <keepdims = 0> (x)
            })");
        QVERIFY(loaded.hasValue());
        const std::vector<std::int64_t> x{kMin64 + 91, kMin64, 3};
        auto out = runtime::Interpreter(*loaded->model)
                       .run({{"x", runtime::RuntimeValue::ofTensor(runtime::Tensor::fromVector(onnx::TensorProto::INT64, {3}, x))}});
        QVERIFY2(out.hasValue(), out ? "" : out.error().format().c_str());
        auto scalar = [&](std::size_t k) { return (*out)[k].second.tensor.data<std::int64_t>()[0]; };
        std::uint64_t product = 1, sum = 0, squares = 0, absolutes = 0; // unsigned: the wrapped values, defined
        for (const std::int64_t v : x) {
            product *= static_cast<std::uint64_t>(v);
            sum += static_cast<std::uint64_t>(v);
            squares += static_cast<std::uint64_t>(v) * static_cast<std::uint64_t>(v);
            absolutes += v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
        }
        QCOMPARE(scalar(0), static_cast<std::int64_t>(product));
        QCOMPARE(scalar(1), static_cast<std::int64_t>(sum));
        QCOMPARE(scalar(2), static_cast<std::int64_t>(squares));
        QCOMPARE(scalar(3), static_cast<std::int64_t>(absolutes));
    }

    // Integer matrix products wrap (fuzz_run_graph found an int64 MatMul overflowing). x86 wraps
    // signed overflow too, so the values alone cannot fail without the fix: the sanitizer build
    // (scripts/sanitize.sh) is what catches a product or a sum computed in signed arithmetic.
    void matMulWraps()
    {
        auto loaded = test::loadModelText(R"(<ir_version: 8, opset_import: ["" : 18]>
            g (int64[2,2] a, int64[2,1] b) => (int64[2,1] y) {
                y = MatMul (a, b)
            })");
        QVERIFY(loaded.hasValue());
        const std::vector<std::int64_t> a{kMin64 + 5, 3, std::numeric_limits<std::int64_t>::max(), 2}, b{7, kMin64};
        auto tensor = [](runtime::Shape shape, const std::vector<std::int64_t> &v) {
            return runtime::RuntimeValue::ofTensor(runtime::Tensor::fromVector(onnx::TensorProto::INT64, std::move(shape), v));
        };
        auto out = runtime::Interpreter(*loaded->model).run({{"a", tensor({2, 2}, a)}, {"b", tensor({2, 1}, b)}});
        QVERIFY2(out.hasValue(), out ? "" : out.error().format().c_str());
        const std::int64_t *y = out->front().second.tensor.data<std::int64_t>();
        auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
        QCOMPARE(y[0], static_cast<std::int64_t>(u(a[0]) * u(b[0]) + u(a[1]) * u(b[1])));
        QCOMPARE(y[1], static_cast<std::int64_t>(u(a[2]) * u(b[0]) + u(a[3]) * u(b[1])));
    }
};

QTEST_GUILESS_MAIN(TestIntegerArithmetic)
#include "tst_IntegerArithmetic.moc"
