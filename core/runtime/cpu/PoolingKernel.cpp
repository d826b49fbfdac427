// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool on oneDNN: row-major in and out, or in
// the blocked layout of the convolution before it (and out in the matching one when its readers
// take it), so a pooling between convolutions costs no reorders.
// ceil_mode becomes extra end padding that no window counts (oneDNN's exclude-padding average and
// max ignore it), so average pooling that counts padding declines ceil_mode.
#include "runtime/cpu/OneDnn.h"
#include "runtime/reference/kernels/Spatial.h"

namespace portolan::runtime::cpu {

namespace {

using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

/// One pooling's parameters, to build its primitive for the layouts the compiled graph settles on.
struct PoolingParams {
    dnnl::algorithm algorithm;
    memory::dims strides, kernel, padL, padR;
};

dnnl::pooling_forward::primitive_desc poolingPd(const PoolingParams &p, const memory::desc &x, const memory::desc &y)
{
    const dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, p.algorithm, x, y, p.strides, p.kernel,
                                           p.padL, p.padR);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return {desc, attr, onednn::engine()};
}

class PoolingKernel final : public CpuKernel {
public:
    PoolingKernel(PoolingParams params, const Shape &x, const Shape &y)
        : m_params(std::move(params)), m_x(onednn::plainDesc(x, f32)), m_y(onednn::plainDesc(y, f32)),
          m_anyY(onednn::dimsOf(y), f32, memory::format_tag::any)
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
        return k == 0 && m_adopted ? std::optional(poolingPd(m_params, m_x, m_anyY).dst_desc()) : std::nullopt;
    }
    bool canAdoptInputLayout(std::size_t k, const memory::desc &layout) const override
    {
        if (k != 0)
            return false;
        try {
            poolingPd(m_params, layout, m_anyY);
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

    std::string implementation() const override { return std::string("onednn:pooling(") + m_pd.impl_info_str() + ")"; }

private:
    void build()
    {
        m_pd = poolingPd(m_params, m_x, m_y);
        m_primitive = dnnl::pooling_forward(m_pd);
        m_scratchpad = memory(m_pd.scratchpad_desc(), onednn::engine());
    }

    PoolingParams m_params;
    memory::desc m_x, m_y, m_anyY; // m_x, m_y: row-major unless the compiled graph settled on a blocked layout
    bool m_adopted = false;
    dnnl::pooling_forward::primitive_desc m_pd;
    dnnl::pooling_forward m_primitive;
    memory m_scratchpad;
};

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
    const auto algorithm = isMax ? dnnl::algorithm::pooling_max
                           : countPads ? dnnl::algorithm::pooling_avg_include_padding
                                       : dnnl::algorithm::pooling_avg_exclude_padding;
    try {
        return std::make_unique<PoolingKernel>(PoolingParams{algorithm, strides, kernel, padL, padR}, x->shape, y);
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cpu
