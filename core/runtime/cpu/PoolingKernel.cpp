// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool on oneDNN: row-major in and out, or in
// the blocked layout of the convolution before it (and out in the matching one when its readers
// take it), so a pooling between convolutions costs no reorders.
// ceil_mode becomes extra end padding that no window counts (oneDNN's exclude-padding average and
// max ignore it), so average pooling that counts padding declines ceil_mode.
#include "runtime/cpu/OneDnn.h"
#include "runtime/reference/kernels/Spatial.h"

#include <functional>

namespace portolan::runtime::cpu {

namespace {

using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

/// Builds the primitive for input and output layouts (the output's may be `any`).
using Builder = std::function<dnnl::primitive_desc(const memory::desc &x, const memory::desc &y)>;

/// A oneDNN primitive that computes in whatever layout its input arrives in: row-major, or the
/// blocked layout of the convolution before it, with the output in the matching layout when its
/// readers take it.
class LayoutFlexibleKernel final : public CpuKernel {
public:
    LayoutFlexibleKernel(std::string name, Builder builder, const Shape &x, const Shape &y)
        : m_name(std::move(name)), m_builder(std::move(builder)), m_x(onednn::plainDesc(x, f32)),
          m_y(onednn::plainDesc(y, f32)), m_anyY(onednn::dimsOf(y), f32, memory::format_tag::any)
    {
        build();
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        m_primitive.execute(onednn::stream(), {{DNNL_ARG_SRC, onednn::wrap(m_x, *inputs[0])},
                                               {DNNL_ARG_DST, onednn::wrap(m_y, outputs[0])},
                                               {DNNL_ARG_SCRATCHPAD, m_scratchpad}});
        onednn::stream().wait();
    }

    std::optional<memory::desc> nativeInputLayout(std::size_t k) const override
    {
        return k == 0 && m_adopted ? std::optional(m_x) : std::nullopt;
    }
    std::optional<memory::desc> nativeOutputLayout(std::size_t k) const override
    {
        return k == 0 && m_adopted ? std::optional(m_builder(m_x, m_anyY).dst_desc()) : std::nullopt;
    }
    bool canAdoptInputLayout(std::size_t k, const memory::desc &layout) const override
    {
        if (k != 0)
            return false;
        try {
            m_builder(layout, m_anyY);
            return true;
        } catch (const dnnl::error &) {
            return false;
        }
    }
    void adoptInputLayout(std::size_t, const memory::desc &layout) override
    {
        m_x = layout;
        m_adopted = true;
        build();
    }
    void useNativeLayout(bool input, std::size_t) override
    {
        if (!input) {
            m_y = *nativeOutputLayout(0);
            build();
        }
    }

    std::string implementation() const override { return "onednn:" + m_name + "(" + m_pd.impl_info_str() + ")"; }

private:
    void build()
    {
        m_pd = m_builder(m_x, m_y);
        m_primitive = dnnl::primitive(m_pd);
        m_scratchpad = memory(m_pd.scratchpad_desc(), onednn::engine());
    }

    std::string m_name;
    Builder m_builder;
    memory::desc m_x, m_y, m_anyY; // m_x, m_y: row-major unless the compiled graph settled on a blocked layout
    bool m_adopted = false;
    dnnl::primitive_desc m_pd;
    dnnl::primitive m_primitive;
    memory m_scratchpad;
};

/// GlobalAveragePool / GlobalMaxPool as plain loops over row-major [N, C, spatial] or channels-last
/// [N, spatial, C] input (the layout of the convolution before it); the [N, C, 1…] output is the
/// same bytes in either layout. oneDNN's pooling and reduction took 0.3–0.7 ms on MobileNet's
/// 1280 × 7 × 7, the loops a few microseconds.
class GlobalPoolKernel final : public CpuKernel {
public:
    GlobalPoolKernel(bool isMax, const Shape &x) : m_isMax(isMax), m_batch(x[0]), m_channels(x[1]), m_spatial(1)
    {
        for (std::size_t d = 2; d < x.size(); ++d)
            m_spatial *= x[d];
        memory::dims strides(x.size()); // dims as oneDNN orders them, strides channels-last
        strides[1] = 1;
        std::int64_t stride = m_channels;
        for (std::size_t d = x.size(); d-- > 2;) {
            strides[d] = stride;
            stride *= x[d];
        }
        strides[0] = stride;
        m_channelsLast = memory::desc(onednn::dimsOf(x), f32, strides);
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        const float *x = inputs[0]->data<float>();
        float *y = outputs[0].mutableData<float>();
        const std::int64_t c = m_channels, s = m_spatial;
        for (std::int64_t n = 0; n < m_batch; ++n) {
            const float *xn = x + n * c * s;
            float *yn = y + n * c;
            if (m_channelsLastInput) {
                std::copy_n(xn, c, yn);
                for (std::int64_t p = 1; p < s; ++p)
                    for (std::int64_t k = 0; k < c; ++k)
                        yn[k] = m_isMax ? std::max(yn[k], xn[p * c + k]) : yn[k] + xn[p * c + k];
            } else {
                for (std::int64_t k = 0; k < c; ++k) {
                    float acc = xn[k * s];
                    for (std::int64_t p = 1; p < s; ++p)
                        acc = m_isMax ? std::max(acc, xn[k * s + p]) : acc + xn[k * s + p];
                    yn[k] = acc;
                }
            }
            if (!m_isMax)
                for (std::int64_t k = 0; k < c; ++k)
                    yn[k] /= static_cast<float>(s);
        }
    }

    std::optional<memory::desc> nativeInputLayout(std::size_t k) const override
    {
        return k == 0 && m_channelsLastInput ? std::optional(m_channelsLast) : std::nullopt;
    }
    bool canAdoptInputLayout(std::size_t k, const memory::desc &layout) const override
    {
        return k == 0 && layout == m_channelsLast;
    }
    void adoptInputLayout(std::size_t, const memory::desc &) override { m_channelsLastInput = true; }

    std::string implementation() const override { return m_channelsLastInput ? "native:global-pool(nhwc)" : "native:global-pool"; }

private:
    bool m_isMax;
    std::int64_t m_batch, m_channels, m_spatial;
    memory::desc m_channelsLast;
    bool m_channelsLastInput = false;
};

dnnl::primitive_attr userScratchpad()
{
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return attr;
}

} // namespace

std::unique_ptr<CpuKernel> makePoolingKernel(const NodeBinding &b, std::string &whyNot)
{
    const BoundTensor *x = b.input(0);
    const std::string &op = b.node.opType;
    if (!x || x->dataType != onnx::TensorProto::FLOAT || x->shape.size() < 3 || x->shape.size() > 5) {
        whyNot = "not a float tensor with 1 to 3 spatial dims";
        return nullptr;
    }
    if (b.outputs.size() > 1 && b.outputs[1].present) {
        whyNot = "MaxPool's Indices output is wanted";
        return nullptr;
    }
    const Shape spatial(x->shape.begin() + 2, x->shape.end());
    const Shape &y = b.outputs[0].shape;
    const bool global = op.starts_with("Global");
    const bool isMax = op.ends_with("MaxPool");
    const bool ceil = b.attributes.attrInt("ceil_mode", 0) != 0;
    const bool countPads = b.attributes.attrInt("count_include_pad", 0) != 0;
    memory::dims kernel, strides, padL, padR;
    if (global) {
        kernel.assign(spatial.begin(), spatial.end());
        strides.assign(spatial.size(), 1);
        padL.assign(spatial.size(), 0);
        padR.assign(spatial.size(), 0);
    } else {
        auto window = kernels::makeWindow(b.attributes, spatial, b.attributes.attrInts("kernel_shape"), ceil);
        if (!window) {
            whyNot = window.error().format();
            return nullptr;
        }
        for (std::size_t i = 0; i < spatial.size(); ++i) {
            if (window->dilations[i] != 1) {
                whyNot = "dilated pooling";
                return nullptr;
            }
            // the end padding oneDNN needs to produce exactly the output's size
            const std::int64_t end = (y[i + 2] - 1) * window->strides[i] + window->kernel[i] - spatial[i] - window->padsBegin[i];
            if (end < 0 || (end > window->padsEnd[i] && countPads && !isMax)) {
                whyNot = "ceil_mode with padding counted in the average";
                return nullptr;
            }
            kernel.push_back(window->kernel[i]);
            strides.push_back(window->strides[i]);
            padL.push_back(window->padsBegin[i]);
            padR.push_back(end);
        }
    }
    if (std::any_of(x->shape.begin(), x->shape.end(), [](std::int64_t d) { return d == 0; })) {
        whyNot = "an empty input"; // a window over nothing: the reference kernel says what it gives
        return nullptr;
    }
    try {
        if (global)
            return std::make_unique<GlobalPoolKernel>(isMax, x->shape);
        const auto algorithm = isMax ? dnnl::algorithm::pooling_max
                               : countPads ? dnnl::algorithm::pooling_avg_include_padding
                                           : dnnl::algorithm::pooling_avg_exclude_padding;
        Builder build = [=](const memory::desc &xd, const memory::desc &yd) -> dnnl::primitive_desc {
            const dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, xd, yd, strides, kernel,
                                                   padL, padR);
            return dnnl::pooling_forward::primitive_desc(desc, userScratchpad(), onednn::engine());
        };
        return std::make_unique<LayoutFlexibleKernel>("pooling", std::move(build), x->shape, y);
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cpu
