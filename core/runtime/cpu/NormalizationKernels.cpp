// LayerNormalization (standard and ai.portolan) and SkipLayerNormalization over the trailing axes,
// a row at a time: mean and variance summed in float lanes combined in double, then
// y = (x − mean) / √(var + ε) · γ + β. Rows are split over the cores.
#include "runtime/cpu/CpuKernel.h"
#include "support/ParallelFor.h"

#include <cmath>

namespace portolan::runtime::cpu {

namespace {

/// Σ f(v[j]) in 16 float lanes (which the compiler vectorizes), the lanes summed in double: within
/// 1e-6 relative of a double sum for rows of thousands of values.
template <typename F>
double laneSum(const float *v, std::int64_t n, F f)
{
    constexpr int kLanes = 16;
    float lanes[kLanes] = {};
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (int l = 0; l < kLanes; ++l)
            lanes[l] += f(v[j + l]);
    double total = 0;
    for (; j < n; ++j)
        total += f(v[j]);
    for (const float lane : lanes)
        total += lane;
    return total;
}

class LayerNormKernel final : public CpuKernel {
public:
    /// `skip`: inputs are (X, Skip, Gamma, Beta?, Bias?) and output 1 may be the sum.
    LayerNormKernel(std::int64_t rows, std::int64_t width, float epsilon, bool skip, bool hasBeta, bool hasBias, bool writesSum)
        : m_rows(rows), m_width(width), m_epsilon(epsilon), m_skip(skip), m_hasBeta(hasBeta), m_hasBias(hasBias),
          m_writesSum(writesSum)
    {
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        const std::size_t gammaAt = m_skip ? 2 : 1;
        const float *x = inputs[0]->data<float>();
        const float *skip = m_skip ? inputs[1]->data<float>() : nullptr;
        const float *gamma = inputs[gammaAt]->data<float>();
        const float *beta = m_hasBeta ? inputs[gammaAt + 1]->data<float>() : nullptr;
        const float *bias = m_hasBias ? inputs[4]->data<float>() : nullptr;
        float *y = outputs[0].mutableData<float>();
        float *sum = m_writesSum ? outputs[1].mutableData<float>() : nullptr;
        const std::int64_t width = m_width;
        const double epsilon = m_epsilon;
        support::parallelFor(m_rows, m_rows * width > 16384, [&](std::int64_t begin, std::int64_t end) {
            std::vector<float> row(static_cast<std::size_t>(width));
            for (std::int64_t r = begin; r < end; ++r) {
                const std::int64_t at = r * width;
                float *v = row.data();
                for (std::int64_t j = 0; j < width; ++j)
                    v[j] = skip ? x[at + j] + skip[at + j] + (bias ? bias[j] : 0.f) : x[at + j];
                const double mean = laneSum(v, width, [](float a) { return a; }) / static_cast<double>(width);
                const auto m = static_cast<float>(mean);
                const double variance = laneSum(v, width, [m](float a) { return (a - m) * (a - m); }) / static_cast<double>(width);
                const auto inverse = static_cast<float>(1.0 / std::sqrt(variance + epsilon));
                for (std::int64_t j = 0; j < width; ++j)
                    y[at + j] = (v[j] - m) * inverse * gamma[j] + (beta ? beta[j] : 0.f);
                if (sum)
                    std::copy(row.begin(), row.end(), sum + at);
            }
        });
    }

    // each row is read whole before its outputs are written
    int inPlaceInput(std::size_t output) const override { return output == 0 ? 0 : -1; }

    std::string implementation() const override { return m_skip ? "native:skip-layer-norm" : "native:layer-norm"; }

private:
    std::int64_t m_rows, m_width;
    float m_epsilon;
    bool m_skip, m_hasBeta, m_hasBias, m_writesSum;
};

bool floatPresent(const NodeBinding &b)
{
    for (const auto *list : {&b.inputs, &b.outputs})
        for (const BoundTensor &t : *list)
            if (t.present && t.dataType != onnx::TensorProto::FLOAT)
                return false;
    return true;
}

} // namespace

std::unique_ptr<CpuKernel> makeLayerNormKernel(const NodeBinding &b, std::string &whyNot)
{
    const bool skip = b.node.opType == "SkipLayerNormalization";
    const std::size_t gammaAt = skip ? 2 : 1;
    const BoundTensor *x = b.input(0), *gamma = b.input(gammaAt), *beta = b.input(gammaAt + 1);
    const BoundTensor *bias = skip ? b.input(4) : nullptr;
    if (!x || !gamma || !floatPresent(b) || (skip && (!b.input(1) || b.input(1)->shape != x->shape))) {
        whyNot = "not float, or Skip is not of X's shape";
        return nullptr;
    }
    if (!skip && b.outputs.size() > 1 && std::any_of(b.outputs.begin() + 1, b.outputs.end(), [](const auto &o) { return o.present; })) {
        whyNot = "the mean or inverse-std output is wanted";
        return nullptr;
    }
    const auto rank = static_cast<std::int64_t>(x->shape.size());
    std::int64_t axis = b.attributes.attrInt("axis", -1);
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis >= rank) {
        whyNot = "axis out of range";
        return nullptr;
    }
    std::int64_t width = 1;
    for (std::int64_t i = axis; i < rank; ++i)
        width *= x->shape[static_cast<std::size_t>(i)];
    const std::int64_t rows = width ? elementCount(x->shape) / width : 0;
    if (elementCount(gamma->shape) != width || (beta && elementCount(beta->shape) != width) ||
        (bias && elementCount(bias->shape) != x->shape.back()) || (bias && width != x->shape.back())) {
        whyNot = "Gamma, Beta or Bias does not cover the normalized axes exactly";
        return nullptr;
    }
    const bool writesSum = skip && b.outputs.size() > 1 && b.outputs[1].present;
    return std::make_unique<LayerNormKernel>(rows, width, b.attributes.attrFloat("epsilon", 1e-5f), skip, beta != nullptr,
                                             bias != nullptr, writesSum);
}

} // namespace portolan::runtime::cpu
