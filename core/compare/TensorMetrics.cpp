// Tensor metrics in double, one pass for the sums and one selection for the median and p99.
#include "compare/TensorMetrics.h"

#include "ir/Type.h"
#include "runtime/reference/kernels/Dispatch.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace portolan::compare {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The q-quantile (0 ≤ q ≤ 1) of `values`, reordering them (nearest rank).
double quantile(std::vector<float> &values, double q)
{
    if (values.empty())
        return 0;
    const auto k = static_cast<std::size_t>(std::min<double>(static_cast<double>(values.size() - 1),
                                                             std::ceil(q * static_cast<double>(values.size())) - 1));
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    return values[k];
}

void topAgreement(const double *ref, const double *act, std::int64_t rows, std::int64_t width, TensorMetrics &m)
{
    std::int64_t top1 = 0, top5 = 0;
    std::vector<std::int64_t> order(static_cast<std::size_t>(width));
    for (std::int64_t r = 0; r < rows; ++r) {
        const double *a = ref + r * width, *b = act + r * width;
        const auto refArgmax = std::max_element(a, a + width) - a;
        for (std::int64_t i = 0; i < width; ++i)
            order[static_cast<std::size_t>(i)] = i;
        const std::size_t k = std::min<std::size_t>(5, order.size());
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                          [&](std::int64_t x, std::int64_t y) { return b[x] > b[y] || (b[x] == b[y] && x < y); });
        top1 += order[0] == refArgmax;
        top5 += std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), refArgmax) !=
                order.begin() + static_cast<std::ptrdiff_t>(k);
    }
    m.top1 = rows ? static_cast<double>(top1) / static_cast<double>(rows) : 0;
    m.top5 = rows ? static_cast<double>(top5) / static_cast<double>(rows) : 0;
}

} // namespace

Tolerance defaultTolerance(const std::string &precision)
{
    if (precision == "fp16")
        return {1e-2, 1e-2};
    if (precision == "bf16")
        return {5e-2, 5e-2};
    if (precision == "int8")
        return {1e-1, 1e-1};
    return {1e-5, 1e-5};
}

TensorMetrics compareTensors(const runtime::Tensor &reference, const runtime::Tensor &actual, const Tolerance &tolerance,
                             bool logits, double epsilon)
{
    TensorMetrics m;
    if (reference.dataType() != actual.dataType()) {
        m.mismatch = "element types differ: " + ir::dataTypeName(reference.dataType()) + " vs " + ir::dataTypeName(actual.dataType());
        return m;
    }
    if (reference.shape() != actual.shape()) {
        m.mismatch = "shapes differ: " + runtime::shapeString(reference.shape()) + " vs " + runtime::shapeString(actual.shape());
        return m;
    }
    if (reference.dataType() == onnx::TensorProto::STRING) {
        m.elements = reference.size();
        std::int64_t differing = 0;
        for (std::int64_t i = 0; i < reference.size(); ++i)
            differing += reference.strings()[static_cast<std::size_t>(i)] != actual.strings()[static_cast<std::size_t>(i)];
        m.passed = differing == 0;
        m.maxAbs = m.passed ? 0 : kInf;
        return m;
    }
    const runtime::Tensor a = runtime::kernels::convertTensor(reference, onnx::TensorProto::DOUBLE);
    const runtime::Tensor b = runtime::kernels::convertTensor(actual, onnx::TensorProto::DOUBLE);
    const double *ref = a.data<double>(), *act = b.data<double>();
    const std::int64_t n = a.size();
    m.elements = n;
    std::vector<float> absErrors, relErrors;
    absErrors.reserve(static_cast<std::size_t>(n));
    relErrors.reserve(static_cast<std::size_t>(n));
    double sumAbs = 0, sumRel = 0, sumSquares = 0, dot = 0, refSquares = 0, actSquares = 0, worst = -1;
    m.passed = true;
    for (std::int64_t i = 0; i < n; ++i) {
        const double x = ref[i], y = act[i];
        m.referenceNans += std::isnan(x);
        m.referenceInfs += std::isinf(x);
        m.actualNans += std::isnan(y);
        m.actualInfs += std::isinf(y);
        double e;
        if (std::isnan(x) || std::isnan(y))
            e = std::isnan(x) && std::isnan(y) ? 0 : kInf;
        else if (x == y) // equal infinities included
            e = 0;
        else
            e = std::fabs(y - x);
        const double r = e / std::max(std::fabs(x), epsilon);
        if (e > worst) { // a NaN on one side only is an infinite error: the first such is the worst
            worst = e;
            m.worstIndex = i;
        }
        if (!(e <= tolerance.atol + tolerance.rtol * std::fabs(x)))
            m.passed = false;
        if (std::isfinite(e)) {
            sumAbs += e;
            sumRel += r;
            sumSquares += e * e;
            m.neededAtol = std::max(m.neededAtol, e - tolerance.rtol * std::fabs(x));
            if (e > tolerance.atol)
                m.neededRtol = std::max(m.neededRtol, std::fabs(x) > 0 ? (e - tolerance.atol) / std::fabs(x) : kInf);
        } else {
            m.neededAtol = m.neededRtol = kInf;
        }
        if (std::isfinite(x) && std::isfinite(y)) {
            dot += x * y;
            refSquares += x * x;
            actSquares += y * y;
        }
        m.maxAbs = std::max(m.maxAbs, e);
        m.maxRel = std::max(m.maxRel, r);
        absErrors.push_back(static_cast<float>(e));
        relErrors.push_back(static_cast<float>(r));
    }
    if (n > 0) {
        m.meanAbs = sumAbs / static_cast<double>(n);
        m.meanRel = sumRel / static_cast<double>(n);
        m.rmse = std::sqrt(sumSquares / static_cast<double>(n));
        m.medianAbs = quantile(absErrors, 0.5);
        m.p99Abs = quantile(absErrors, 0.99);
        m.medianRel = quantile(relErrors, 0.5);
        m.p99Rel = quantile(relErrors, 0.99);
    }
    if (refSquares == 0 && actSquares == 0)
        m.cosine = 1;
    else if (refSquares == 0 || actSquares == 0)
        m.cosine = 0;
    else
        m.cosine = dot / std::sqrt(refSquares * actSquares);
    m.snrDb = sumSquares == 0 ? kInf : 10 * std::log10(refSquares / sumSquares);
    if (m.worstIndex >= 0) {
        m.worstReference = ref[m.worstIndex];
        m.worstActual = act[m.worstIndex];
        std::int64_t rest = m.worstIndex;
        m.worstAt.assign(reference.shape().size(), 0);
        for (std::size_t d = reference.shape().size(); d-- > 0;) {
            m.worstAt[d] = reference.shape()[d] ? rest % reference.shape()[d] : 0;
            rest = reference.shape()[d] ? rest / reference.shape()[d] : 0;
        }
    }
    if (logits && !reference.shape().empty() && reference.shape().back() >= 2)
        topAgreement(ref, act, n / reference.shape().back(), reference.shape().back(), m);
    return m;
}

} // namespace portolan::compare
