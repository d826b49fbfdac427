// Resize in float: the reference kernel's plan (every mode, coordinate transform and rounding of
// every opset) built once at compile time, then one separable pass per resized axis, innermost
// first, on the OpenMP pool. roi, scales and sizes must be constants.
#include "runtime/cpu/CpuKernel.h"
#include "support/ParallelFor.h"
#include "runtime/reference/kernels/ResizePlan.h"

#include <algorithm>

namespace portolan::runtime::cpu {

namespace {

/// One resized axis: the plan's taps, with float weights.
struct Pass {
    Shape in; ///< the shape this pass reads
    std::size_t axis;
    std::int64_t outLength;
    kernels::AxisTaps taps;
    std::vector<float> weight;
};

class ResizeKernel final : public CpuKernel {
public:
    ResizeKernel(std::vector<Pass> passes, float extrapolation)
        : m_passes(std::move(passes)), m_extrapolation(extrapolation)
    {
        for (std::size_t i = 0; i + 1 < m_passes.size(); ++i)
            m_scratch[i % 2].resize(static_cast<std::size_t>(elementCount(m_passes[i + 1].in)));
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        float *y = outputs[0].mutableData<float>();
        if (m_passes.empty()) { // every axis is the identity
            std::copy_n(inputs[0]->data<float>(), outputs[0].size(), y);
            return;
        }
        const float *from = inputs[0]->data<float>();
        for (std::size_t i = 0; i < m_passes.size(); ++i) {
            float *to = i + 1 == m_passes.size() ? y : m_scratch[i % 2].data();
            resample(m_passes[i], from, to);
            from = to;
        }
    }

    std::string implementation() const override { return "native:resize"; }

private:
    void resample(const Pass &p, const float *src, float *dst) const
    {
        std::int64_t outer = 1, inner = 1;
        for (std::size_t d = 0; d < p.axis; ++d)
            outer *= p.in[d];
        for (std::size_t d = p.axis + 1; d < p.in.size(); ++d)
            inner *= p.in[d];
        const std::int64_t rows = outer * p.outLength;
        support::parallelFor(rows, rows * inner >= (1 << 15), [&](std::int64_t begin, std::int64_t end) {
            kernels::resampleRows(p.taps, p.weight, src, dst, p.in[p.axis], p.outLength, inner, m_extrapolation, begin, end);
        });
    }

    std::vector<Pass> m_passes;
    float m_extrapolation;
    std::vector<float> m_scratch[2];
};

} // namespace

std::unique_ptr<CpuKernel> makeResizeKernel(const NodeBinding &b, std::string &whyNot)
{
    const BoundTensor *x = b.input(0);
    if (!x || x->dataType != onnx::TensorProto::FLOAT || b.outputs.at(0).dataType != onnx::TensorProto::FLOAT) {
        whyNot = "not a float tensor";
        return nullptr;
    }
    const Tensor *constant[4] = {};
    for (std::size_t k = 1; k < 4; ++k)
        if (const BoundTensor *t = b.input(k)) {
            if (!t->constant.defined()) {
                whyNot = "roi, scales or sizes are not constants";
                return nullptr;
            }
            constant[k] = &t->constant;
        }
    auto plan = kernels::planResize(b.attributes, x->shape, constant[1], constant[2], constant[3]);
    if (!plan) {
        whyNot = plan.error().format();
        return nullptr;
    }
    if (plan->outShape != b.outputs[0].shape) {
        whyNot = "the planned output shape differs from the inferred one";
        return nullptr;
    }
    std::vector<Pass> passes;
    Shape shape = x->shape;
    for (std::size_t axis = shape.size(); axis-- > 0;) { // innermost first, as the reference nests them
        const kernels::AxisTaps &taps = plan->axes[axis];
        if (taps.identity)
            continue;
        Pass pass{shape, axis, plan->outShape[axis], taps, std::vector<float>(taps.weight.begin(), taps.weight.end())};
        passes.push_back(std::move(pass));
        shape[axis] = plan->outShape[axis];
    }
    return std::make_unique<ResizeKernel>(std::move(passes), static_cast<float>(plan->options.extrapolation));
}

} // namespace portolan::runtime::cpu
