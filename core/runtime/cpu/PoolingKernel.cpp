// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool on oneDNN, row-major in and out.
// ceil_mode becomes extra end padding that no window counts (oneDNN's exclude-padding average and
// max ignore it), so average pooling that counts padding declines ceil_mode.
#include "runtime/cpu/OneDnn.h"
#include "runtime/reference/kernels/Spatial.h"

namespace portolan::runtime::cpu {

namespace {

using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

class PoolingKernel final : public CpuKernel {
public:
    PoolingKernel(dnnl::pooling_forward::primitive_desc pd, const Shape &x, const Shape &y)
        : m_pd(std::move(pd)), m_primitive(m_pd), m_x(onednn::plainDesc(x, f32)), m_y(onednn::plainDesc(y, f32)),
          m_scratchpad(m_pd.scratchpad_desc(), onednn::engine())
    {
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        m_primitive.execute(onednn::stream(), {{DNNL_ARG_SRC, onednn::wrap(m_x, *inputs[0])},
                                               {DNNL_ARG_DST, onednn::wrap(m_y, outputs[0])},
                                               {DNNL_ARG_SCRATCHPAD, m_scratchpad}});
        onednn::stream().wait();
    }

    std::string implementation() const override { return std::string("onednn:pooling(") + m_pd.impl_info_str() + ")"; }

private:
    dnnl::pooling_forward::primitive_desc m_pd;
    dnnl::pooling_forward m_primitive;
    memory::desc m_x, m_y;
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
        const dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, onednn::plainDesc(x->shape, f32),
                                               onednn::plainDesc(y, f32), strides, kernel, padL, padR);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        return std::make_unique<PoolingKernel>(dnnl::pooling_forward::primitive_desc(desc, attr, onednn::engine()), x->shape, y);
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cpu
