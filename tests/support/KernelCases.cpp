// The shared kernel cases (see KernelCases.h).
#include "support/KernelCases.h"

#include "passes/NumericCheck.h"
#include "support/PassTestSupport.h"
#include "support/TestSupport.h"

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <random>

namespace portolan::test {

namespace {

/// "float[2,3] name = {…}" with seeded values in [-1, 1).
std::string weight(const std::string &name, const std::vector<std::int64_t> &shape, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::string dims, values;
    std::int64_t count = 1;
    for (const auto d : shape) {
        dims += (dims.empty() ? "" : ",") + std::to_string(d);
        count *= d;
    }
    for (std::int64_t i = 0; i < count; ++i)
        values += (i ? ", " : "") + std::to_string(dist(gen));
    return "float[" + dims + "] " + name + " = {" + values + "}";
}

} // namespace

const std::vector<KernelCaseRow> &kernelCases()
{
    static const std::vector<KernelCaseRow> cases{
        {"FusedConv, pads, bias, Relu", "(float[1,3,7,9] x) => (float[1,5,7,9] y)", "w:5x3x3x3 b:5",
         "y = ai.portolan.FusedConv <pads = [1, 1, 1, 1], activation = \"Relu\"> (x, w, b)"},
        {"Conv, stride 2, dilation 2, batch 2, odd sizes", "(float[2,4,11,13] x) => (float[2,6,4,5] y)", "w:6x4x3x3",
         "y = Conv <strides = [2, 2], dilations = [2, 2]> (x, w)"},
        {"depthwise Conv, SAME_UPPER", "(float[1,4,8,7] x) => (float[1,4,8,7] y)", "w:4x1x3x3 b:4",
         "y = Conv <group = 4, auto_pad = \"SAME_UPPER\"> (x, w, b)"},
        {"grouped Conv, asymmetric pads", "(float[1,6,5,6] x) => (float[1,4,6,6] y)", "w:4x3x2x3",
         "y = Conv <group = 2, pads = [1, 1, 0, 1]> (x, w)"},
        {"FusedConv, residual, HardSigmoid", "(float[1,2,5,5] x, float[1,3,5,5] z) => (float[1,3,5,5] y)", "w:3x2x1x1 b:3",
         "y = ai.portolan.FusedConv <activation = \"HardSigmoid\", activation_params = [0.3, 0.4]> (x, w, b, z)"},
        {"FusedConv, stride 2, residual, Clip", "(float[1,2,6,6] x, float[1,3,3,3] z) => (float[1,3,3,3] y)", "w:3x2x3x3 b:3",
         "y = ai.portolan.FusedConv <strides = [2, 2], pads = [1, 1, 1, 1], activation = \"Clip\", "
         "activation_params = [-0.5, 0.5]> (x, w, b, z)"},
        {"Conv 1-D, LeakyRelu", "(float[1,3,10] x) => (float[1,4,8] y)", "w:4x3x3",
         "y = ai.portolan.FusedConv <activation = \"LeakyRelu\", activation_params = [0.2]> (x, w)"},
        {"Conv 3-D, HardSwish", "(float[1,2,4,5,6] x) => (float[1,3,4,5,6] y)", "w:3x2x3x3x3 b:3",
         "y = ai.portolan.FusedConv <pads = [1, 1, 1, 1, 1, 1], activation = \"HardSwish\"> (x, w, b)"},
        {"FusedConv, Sigmoid and Tanh", "(float[1,3,6,6] x) => (float[1,2,6,6] y)", "w:2x3x1x1 v:2x2x1x1",
         "t = ai.portolan.FusedConv <activation = \"Sigmoid\"> (x, w)\n y = ai.portolan.FusedConv <activation = \"Tanh\"> (t, v)"},
        {"FusedGemm, transA, transB, alpha, beta, C matrix, Gelu", "(float[6,3] a) => (float[3,4] y)", "w:4x6 c:3x4",
         "y = ai.portolan.FusedGemm <transA = 1, transB = 1, alpha = 0.5, beta = 2.0, activation = \"Gelu\"> (a, w, c)"},
        {"Gemm, bias row", "(float[5,7] a) => (float[5,3] y)", "w:7x3 c:3", "y = Gemm (a, w, c)"},
        {"Gemm, scalar C, beta", "(float[2,7] a) => (float[2,3] y)", "w:7x3 c:1", "y = Gemm <beta = 0.5> (a, w, c)"},
        {"Gemm, column C", "(float[4,5] a) => (float[4,3] y)", "w:5x3 c:4x1", "y = Gemm (a, w, c)"},
        {"Gemm, C an input", "(float[4,5] a, float[4,3] c) => (float[4,3] y)", "w:5x3", "y = Gemm (a, w, c)"},
        {"MatMul, batch broadcast, B an input", "(float[2,1,3,5] a, float[4,5,6] b) => (float[2,4,3,6] y)", "",
         "y = MatMul (a, b)"},
        {"FusedMatMul, bias, GeluTanh", "(float[2,7,5] a) => (float[2,7,3] y)", "w:5x3 b:3",
         "y = ai.portolan.FusedMatMul <activation = \"GeluTanh\"> (a, w, b)"},
        {"MatMul, vector B", "(float[3,4] a) => (float[3] y)", "w:4", "y = MatMul (a, w)"},
        {"MatMul, vector A", "(float[4] a) => (float[2,5] y)", "w:2x4x5", "y = MatMul (a, w)"},
        {"MaxPool, ceil_mode, stride 2", "(float[1,2,8,8] x) => (float[1,2,4,4] y)", "",
         "y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1> (x)"},
        {"MaxPool, pads", "(float[1,3,7,7] x) => (float[1,3,4,4] y)", "",
         "y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (x)"},
        {"AveragePool, pads excluded", "(float[1,2,6,5] x) => (float[1,2,6,5] y)", "",
         "y = AveragePool <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (x)"},
        {"AveragePool, pads counted", "(float[1,2,6,5] x) => (float[1,2,3,3] y)", "",
         "y = AveragePool <kernel_shape = [2, 2], strides = [2, 2], pads = [0, 0, 0, 1], count_include_pad = 1> (x)"},
        {"AveragePool, ceil_mode", "(float[1,2,7,7] x) => (float[1,2,4,4] y)", "",
         "y = AveragePool <kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 1> (x)"},
        {"Add, Sub, Mul, Div, Max, Min with broadcasting", "(float[2,3,4] x, float[3,1] s) => (float[2,3,4] y)", "",
         "a = Add (s, x)\n b = Sub (a, s)\n c = Mul (s, b)\n d = Div (c, s)\n e = Max (d, s)\n y = Min (s, e)"},
        {"unary activations and math", "(float[2,3,5] x) => (float[2,3,5] y)", "lo=0.1 hi=0.6",
         "a = Relu (x)\n b = LeakyRelu <alpha = 0.2> (x)\n c = Add (a, b)\n d = Elu (c)\n e = Sigmoid (d)\n f = Tanh (e)\n"
         " g = Exp (f)\n h = Log (g)\n i = Abs (h)\n j = Sqrt (i)\n k = HardSwish (j)\n l = ai.portolan.Gelu (k)\n"
         " m = ai.portolan.Gelu <approximate = \"tanh\"> (l)\n y = Clip (m, lo, hi)"},
        {"Attention NSD, mask, causal", "(float[2,3,5,4] q, float[2,3,5,4] k, float[2,3,5,6] v, float[2,1,1,5] m) => (float[2,3,5,6] y)",
         "", "y = ai.portolan.Attention <scale = 0.5, causal = 1> (q, k, v, m)"},
        {"Attention SND, Sq != Sk", "(float[2,3,2,4] q, float[2,5,2,4] k, float[2,5,2,3] v) => (float[2,3,2,3] y)", "",
         "y = ai.portolan.Attention <scale = 0.7, layout = \"SND\"> (q, k, v)"},
        {"Attention rank 3, causal, Sq < Sk", "(float[4,3,8] q, float[4,6,8] k, float[4,6,8] v) => (float[4,3,8] y)", "",
         "y = ai.portolan.Attention <causal = 1> (q, k, v)"},
        {"LayerNormalization, two axes", "(float[2,3,4] x) => (float[2,3,4] y)", "g:3x4 b:3x4",
         "y = LayerNormalization <axis = 1, epsilon = 1e-3> (x, g, b)"},
        {"ai.portolan LayerNormalization, no beta", "(float[5,7] x) => (float[5,7] y)", "g:7",
         "y = ai.portolan.LayerNormalization (x, g)"},
        {"SkipLayerNormalization, bias, sum", "(float[2,3,8] x, float[2,3,8] s) => (float[2,3,8] y, float[2,3,8] sum)",
         "g:8 b:8 c:8", "y, sum = ai.portolan.SkipLayerNormalization <epsilon = 1e-5> (x, s, g, b, c)"},
        {"Transpose, perm and default", "(float[2,3,4,5] x) => (float[3,5,2,4] y, float[5,4,3,2] z)", "",
         "y = Transpose <perm = [1, 3, 0, 2]> (x)\n z = Transpose (x)"},
        {"Softmax, last and middle axis", "(float[2,3,7] x) => (float[2,3,7] y, float[2,3,7] z)", "",
         "y = Softmax (x)\n z = Softmax <axis = 1> (x)"},
        {"Slice, negative start, two axes", "(float[3,7,5] x) => (float[3,4,2] y)", "s=int64:-5,1 e=int64:6,3 a=int64:1,-1",
         "y = Slice (x, s, e, a)"},
        {"Slice, ends past the dim, steps 1", "(float[4,6] x) => (float[2,6] y)", "s=int64:2 e=int64:100 a=int64:0 t=int64:1",
         "y = Slice (x, s, e, a, t)"},
        {"Split, uneven, last axis", "(float[2,3,10] x) => (float[2,3,2] y, float[2,3,5] z, float[2,3,3] w)", "n=int64:2,5,3",
         "y, z, w = Split <axis = -1> (x, n)"},
        {"Concat, a constant between inputs", "(float[2,3,4] x, float[2,1,4] z) => (float[2,6,4] y)", "c:2x2x4",
         "y = Concat <axis = 1> (x, c, z)"},
        {"Gather, negative and repeated indices, axis 1", "(float[3,5,4] x) => (float[3,4,4] y)", "i=int64:0,-1,2,2",
         "y = Gather <axis = 1> (x, i)"},
        {"Gather, scalar index (a class token)", "(float[2,5,3] x) => (float[2,3] y)", "i=int64[]:0",
         "y = Gather <axis = 1> (x, i)"},
        {"Gather with the indices of a Constant node (evaluated at compile time)", "(float[4,3] x) => (float[2,3] y)", "",
         "i = Constant <value = int64[2] {3, 1}> ()\n y = Gather (x, i)"},
    // roi, scales and sizes come from Constant nodes (an omitted input cannot be written in the text format)
        {"Resize nearest ×2, asymmetric floor (PyTorch's interpolate)", "(float[1,2,3,5] x) => (float[1,2,6,10] y)", "",
         "roi = Constant <value = float[0] {}> ()\n sc = Constant <value = float[4] {1.0, 1.0, 2.0, 2.0}> ()\n"
         " y = Resize <mode = \"nearest\", coordinate_transformation_mode = \"asymmetric\", nearest_mode = \"floor\"> (x, roi, sc)"},
        {"Resize linear, half_pixel, to sizes", "(float[2,3,4,6] x) => (float[2,3,7,5] y)", "",
         "roi = Constant <value = float[0] {}> ()\n sc = Constant <value = float[0] {}> ()\n"
         " sz = Constant <value = int64[4] {2, 3, 7, 5}> ()\n y = Resize <mode = \"linear\"> (x, roi, sc, sz)"},
        {"Resize cubic, align_corners, exclude_outside", "(float[1,1,5,4] x) => (float[1,1,8,9] y)", "",
         "roi = Constant <value = float[0] {}> ()\n sc = Constant <value = float[0] {}> ()\n"
         " sz = Constant <value = int64[4] {1, 1, 8, 9}> ()\n"
         " y = Resize <mode = \"cubic\", coordinate_transformation_mode = \"align_corners\", exclude_outside = 1> (x, roi, sc, sz)"},
        {"Resize tf_crop_and_resize, extrapolation", "(float[1,1,4,4] x) => (float[1,1,3,3] y)", "",
         "roi = Constant <value = float[8] {0.0, 0.0, -0.2, 0.1, 1.0, 1.0, 0.9, 1.3}> ()\n sc = Constant <value = float[0] {}> ()\n"
         " sz = Constant <value = int64[4] {1, 1, 3, 3}> ()\n"
         " y = Resize <mode = \"linear\", coordinate_transformation_mode = \"tf_crop_and_resize\", extrapolation_value = 7.5> (x, roi, sc, sz)"},
        {"GlobalAveragePool and GlobalMaxPool", "(float[2,3,5,7] x) => (float[2,3,1,1] y, float[2,3,1,1] z)", "",
         "y = GlobalAveragePool (x)\n z = GlobalMaxPool (x)"},
    };
    return cases;
}

std::unique_ptr<ir::Model> caseModel(const KernelCase &c)
{
    std::string weights;
    unsigned seed = 1;
    for (const auto &[name, shape] : c.weights)
        weights += (weights.empty() ? "" : ", ") + weight(name, shape, seed++);
    if (weights.empty() && !c.scalars.empty())
        weights = c.scalars.substr(2);
    else
        weights += c.scalars;
    const std::string header = "<ir_version: 8, opset_import: [\"\" : 17, \"ai.portolan\" : 1]>\ng " + c.signature + "\n";
    return test::modelFromText(header + (weights.empty() ? "" : "<" + weights + ">\n") + "{\n" + c.body + "\n}\n");
}

std::unique_ptr<ir::Model> kernelCaseModel(const KernelCaseRow &row)
{
    KernelCase c{row.signature, {}, {}, row.body};
    for (const QString &w : QString(row.weights).split(' ', Qt::SkipEmptyParts)) {
        if (w.contains("=int64[]:")) { // name=int64[]:v: a constant int64 scalar
            c.scalars += ", int64 " + w.section('=', 0, 0).toStdString() + " = {" + w.section(':', 1).toStdString() + "}";
            continue;
        }
        if (w.contains("=int64:")) { // name=int64:v0,v1,…: a constant int64 vector
            const QStringList values = w.section(':', 1).split(',');
            c.scalars += ", int64[" + std::to_string(values.size()) + "] " + w.section('=', 0, 0).toStdString() + " = {" +
                         values.join(", ").toStdString() + "}";
            continue;
        }
        if (w.contains('=')) {
            c.scalars += ", float " + w.section('=', 0, 0).toStdString() + " = {" + w.section('=', 1).toStdString() + "}";
            continue;
        }
        std::vector<std::int64_t> shape;
        for (const QString &d : w.section(':', 1).split('x'))
            shape.push_back(d.toLongLong());
        c.weights.emplace_back(w.section(':', 0, 0).toStdString(), shape);
    }
    return caseModel(c);
}

bool outputsMatchReference(const ir::Model &model,
                           const std::function<support::Expected<runtime::NamedValues>(const runtime::NamedValues &)> &run,
                           double rtol, std::uint64_t seed, const std::map<std::string, std::vector<std::int64_t>> &shapes)
{
    auto feeds = passes::seededFeeds(model, seed, shapes, 3);
    if (!feeds) {
        qWarning("%s", feeds.error().format().c_str());
        return false;
    }
    auto expected = runtime::Interpreter(model).run(*feeds);
    auto actual = run(*feeds);
    for (const auto *result : {&expected, &actual})
        if (!*result) {
            qWarning("%s", result->error().format().c_str());
            return false;
        }
    const passes::NumericCheck check = passes::compareOutputs(*expected, *actual, 1e-5, rtol);
    if (!check.withinTolerance || check.comparedElements == 0)
        qWarning("output %s: max abs error %g, max rel error %g over %zu elements", check.worstOutput.c_str(),
                 check.maxAbsError, check.maxRelError, check.comparedElements);
    return check.withinTolerance && check.comparedElements > 0;
}

} // namespace portolan::test
