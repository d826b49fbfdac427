// The reference Conv kernel's three paths — 2-D depthwise sums, 2-D row gathers into a column matrix,
// and the offset table of other ranks — against a convolution written out loop by loop in double, on
// strides, dilations, asymmetric and automatic pads, groups and depth multipliers.
#include "support/TestSupport.h"

#include "runtime/reference/Interpreter.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <string>

using namespace portolan;
using runtime::RuntimeValue;
using runtime::Shape;
using runtime::Tensor;

namespace {

struct ConvCase {
    const char *name;
    Shape x, w;      // [N, C, spatial…], [M, C/group, kernel…]
    std::int64_t group = 1;
    Shape strides, dilations, pads; // empty: the defaults
    const char *autoPad = nullptr;
};

std::string ints(const Shape &values)
{
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        s += (i ? ", " : "") + std::to_string(values[i]);
    return s + "]";
}

std::string dims(const Shape &shape)
{
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? "," : "") + std::to_string(shape[i]);
    return s;
}

std::string modelText(const ConvCase &c)
{
    std::string attrs = "group = " + std::to_string(c.group);
    if (!c.strides.empty())
        attrs += ", strides = " + ints(c.strides);
    if (!c.dilations.empty())
        attrs += ", dilations = " + ints(c.dilations);
    if (!c.pads.empty())
        attrs += ", pads = " + ints(c.pads);
    if (c.autoPad)
        attrs += std::string(", auto_pad = \"") + c.autoPad + "\"";
    return "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[" + dims(c.x) + "] x, float[" + dims(c.w) +
           "] w, float[" + std::to_string(c.w[0]) + "] b) => (float y) { y = Conv <" + attrs + "> (x, w, b) }";
}

Tensor randomTensor(const Shape &shape, std::mt19937 &rng)
{
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> values(static_cast<std::size_t>(runtime::elementCount(shape)));
    for (float &v : values)
        v = dist(rng);
    return Tensor::fromVector(onnx::TensorProto::FLOAT, shape, values);
}

/// The convolution by its definition, for any rank: every output position sums its window's taps.
std::vector<double> directConvolution(const ConvCase &c, const Tensor &x, const Tensor &w, const Tensor &b,
                                      Shape &outShape)
{
    const std::size_t rank = c.x.size() - 2;
    Shape strides = c.strides.empty() ? Shape(rank, 1) : c.strides;
    Shape dilations = c.dilations.empty() ? Shape(rank, 1) : c.dilations;
    Shape padsBegin(rank, 0), out(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t in = c.x[i + 2], extent = (c.w[i + 2] - 1) * dilations[i] + 1;
        if (c.autoPad) { // SAME_UPPER: output = ceil(in / stride), the odd pad at the end
            out[i] = (in + strides[i] - 1) / strides[i];
            padsBegin[i] = std::max<std::int64_t>(0, (out[i] - 1) * strides[i] + extent - in) / 2;
        } else {
            const std::int64_t begin = c.pads.empty() ? 0 : c.pads[i], end = c.pads.empty() ? 0 : c.pads[i + rank];
            padsBegin[i] = begin;
            out[i] = (in + begin + end - extent) / strides[i] + 1;
        }
    }
    outShape = {c.x[0], c.w[0]};
    outShape.insert(outShape.end(), out.begin(), out.end());
    const std::int64_t cg = c.x[1] / c.group, mg = c.w[0] / c.group;
    const std::int64_t outPlane = runtime::elementCount(out), taps = runtime::elementCount(Shape(c.w.begin() + 2, c.w.end()));
    std::vector<double> y(static_cast<std::size_t>(runtime::elementCount(outShape)));
    for (std::int64_t n = 0; n < c.x[0]; ++n)
        for (std::int64_t m = 0; m < c.w[0]; ++m)
            for (std::int64_t p = 0; p < outPlane; ++p) {
                double sum = b.data<float>()[m];
                for (std::int64_t ci = 0; ci < cg; ++ci)
                    for (std::int64_t t = 0; t < taps; ++t) {
                        std::int64_t offset = 0, rest = p, tapRest = t;
                        bool inside = true;
                        Shape coord(rank);
                        for (std::size_t i = rank; i-- > 0;) { // unflatten p and t, last axis fastest
                            const std::int64_t o = rest % out[i], k = tapRest % c.w[i + 2];
                            rest /= out[i];
                            tapRest /= c.w[i + 2];
                            coord[i] = o * strides[i] - padsBegin[i] + k * dilations[i];
                            inside = inside && coord[i] >= 0 && coord[i] < c.x[i + 2];
                        }
                        if (!inside)
                            continue;
                        for (std::size_t i = 0; i < rank; ++i)
                            offset = offset * c.x[i + 2] + coord[i];
                        const std::int64_t channel = (m / mg) * cg + ci;
                        const double xv = x.data<float>()[(n * c.x[1] + channel) * runtime::elementCount(Shape(c.x.begin() + 2, c.x.end())) + offset];
                        sum += xv * w.data<float>()[(m * cg + ci) * taps + t];
                    }
                y[static_cast<std::size_t>((n * c.w[0] + m) * outPlane + p)] = sum;
            }
    return y;
}

const std::vector<ConvCase> &cases()
{
    static const std::vector<ConvCase> all = {
        {"depthwise 3x3 stride 2 pads", {1, 8, 11, 9}, {8, 1, 3, 3}, 8, {2, 2}, {}, {1, 1, 1, 1}},
        {"depthwise multiplier 2 dilated asymmetric", {2, 3, 10, 12}, {6, 1, 3, 2}, 3, {1, 2}, {2, 1}, {0, 2, 3, 1}},
        {"depthwise 5x5 same_upper", {1, 4, 7, 7}, {4, 1, 5, 5}, 4, {2, 2}, {}, {}, "SAME_UPPER"},
        {"depthwise kernel larger than padding reach", {1, 2, 3, 3}, {2, 1, 3, 3}, 2, {1, 1}, {3, 3}, {3, 3, 3, 3}},
        {"dense 3x3 stride 2 dilation 2", {1, 5, 13, 10}, {7, 5, 3, 3}, 1, {2, 1}, {2, 2}, {1, 2, 0, 1}},
        {"grouped 2 groups", {2, 6, 9, 9}, {4, 3, 3, 3}, 2, {1, 1}, {}, {1, 1, 1, 1}},
        {"dense 7x7 stride 2 stem", {1, 3, 20, 20}, {4, 3, 7, 7}, 1, {2, 2}, {}, {3, 3, 3, 3}},
        {"pointwise", {1, 16, 5, 5}, {8, 16, 1, 1}, 1, {}, {}, {}},
        {"1-D depthwise through the table", {1, 4, 17}, {4, 1, 3}, 4, {2}, {1}, {1, 2}},
        {"3-D dense through the table", {1, 2, 5, 6, 4}, {3, 2, 3, 2, 2}, 1, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 1, 1, 0}},
    };
    return all;
}

} // namespace

class TestReferenceConv : public QObject {
    Q_OBJECT

private slots:
    void matchesTheDefinition_data()
    {
        QTest::addColumn<int>("caseIndex");
        for (std::size_t i = 0; i < cases().size(); ++i)
            QTest::newRow(cases()[i].name) << int(i);
    }

    void matchesTheDefinition()
    {
        QFETCH(int, caseIndex);
        const ConvCase &c = cases()[static_cast<std::size_t>(caseIndex)];
        auto loaded = test::loadModelText(modelText(c).c_str());
        QVERIFY2(loaded.hasValue(), loaded.hasValue() ? "" : loaded.error().format().c_str());
        std::mt19937 rng(17u + static_cast<unsigned>(caseIndex));
        const Tensor x = randomTensor(c.x, rng), w = randomTensor(c.w, rng), b = randomTensor({c.w[0]}, rng);
        runtime::Interpreter interpreter(*loaded->model);
        auto out = interpreter.run({{"x", RuntimeValue::ofTensor(x)}, {"w", RuntimeValue::ofTensor(w)},
                                    {"b", RuntimeValue::ofTensor(b)}},
                                   {});
        QVERIFY2(out.hasValue(), out.hasValue() ? "" : out.error().format().c_str());
        Shape expectedShape;
        const std::vector<double> expected = directConvolution(c, x, w, b, expectedShape);
        const Tensor &y = (*out)[0].second.tensor;
        QCOMPARE(y.shape(), expectedShape);
        for (std::int64_t i = 0; i < y.size(); ++i) {
            // both sum float products in double; the only difference is the final rounding to float
            const double want = expected[static_cast<std::size_t>(i)];
            if (std::fabs(static_cast<double>(y.data<float>()[i]) - want) > 1e-6 * std::max(1.0, std::fabs(want)))
                QFAIL(("element " + std::to_string(i) + ": " + std::to_string(y.data<float>()[i]) + " against " +
                       std::to_string(want))
                          .c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestReferenceConv)
#include "tst_ReferenceConv.moc"
