// Conv and FusedConv on oneDNN: Y = act(Conv(X, W) + B + Z). The weights are reordered once into
// the layout oneDNN picks; X and Y are row-major at the node's boundary (reordered in and out when
// the primitive prefers another layout) unless the compiled graph keeps them in the primitive's
// layout between convolutions that share it. The residual Z becomes a sum post-op: Y is filled
// with Z first, then the convolution accumulates onto it.
#include "runtime/cpu/OneDnn.h"
#include "runtime/reference/kernels/Spatial.h"

#include <cstring>

namespace portolan::runtime::cpu {

namespace {

using dnnl::memory;
using Tag = dnnl::memory::format_tag;

class ConvKernel final : public CpuKernel {
public:
    ConvKernel(dnnl::convolution_forward::primitive_desc pd, memory weights, std::optional<memory> bias, Tensor weightsOwner,
               Shape xShape, Shape yShape, bool residual)
        : m_pd(std::move(pd)), m_primitive(m_pd), m_weights(std::move(weights)), m_bias(std::move(bias)),
          m_weightsOwner(std::move(weightsOwner)), m_residual(residual)
    {
        const auto f32 = memory::data_type::f32;
        m_plainX = onednn::plainDesc(xShape, f32);
        m_plainY = onednn::plainDesc(yShape, f32);
        if (m_pd.src_desc() != m_plainX)
            m_blockedX = memory(m_pd.src_desc(), onednn::engine());
        if (m_pd.dst_desc() != m_plainY)
            m_blockedY = memory(m_pd.dst_desc(), onednn::engine());
        m_scratchpad = memory(m_pd.scratchpad_desc(), onednn::engine());
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        auto &s = onednn::stream();
        memory src = onednn::wrap(m_nativeX ? m_pd.src_desc() : m_plainX, *inputs[0]);
        if (m_blockedX && !m_nativeX) {
            dnnl::reorder(src, *m_blockedX).execute(s, src, *m_blockedX);
            src = *m_blockedX;
        }
        memory y = onednn::wrap(m_nativeY ? m_pd.dst_desc() : m_plainY, outputs[0]);
        memory dst = m_blockedY && !m_nativeY ? *m_blockedY : y;
        if (m_residual) {
            memory z = onednn::wrap(m_nativeZ ? m_pd.dst_desc() : m_plainY, *inputs[3]);
            if (m_nativeZ != m_blockedY.has_value()) // Z is not in dst's layout
                dnnl::reorder(z, dst).execute(s, z, dst);
            else if (dst.get_data_handle() != inputs[3]->rawData()) // in place: Z's bytes already are Y's
                std::memcpy(dst.get_data_handle(), inputs[3]->rawData(), dst.get_desc().get_size());
        }
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src},
                                             {DNNL_ARG_WEIGHTS, m_weights},
                                             {DNNL_ARG_DST, dst},
                                             {DNNL_ARG_SCRATCHPAD, m_scratchpad}};
        if (m_bias)
            args.emplace(DNNL_ARG_BIAS, *m_bias);
        m_primitive.execute(s, args);
        if (m_blockedY && !m_nativeY)
            dnnl::reorder(*m_blockedY, y).execute(s, *m_blockedY, y);
        s.wait();
    }

    int inPlaceInput(std::size_t) const override { return m_residual ? 3 : -1; }

    std::optional<memory::desc> nativeInputLayout(std::size_t k) const override
    {
        if (k == 0 && m_blockedX)
            return m_pd.src_desc();
        if (k == 3 && m_residual && m_blockedY)
            return m_pd.dst_desc();
        return std::nullopt;
    }
    std::optional<memory::desc> nativeOutputLayout(std::size_t k) const override
    {
        return k == 0 && m_blockedY ? std::optional(m_pd.dst_desc()) : std::nullopt;
    }
    void useNativeLayout(bool input, std::size_t k) override
    {
        (input ? (k == 0 ? m_nativeX : m_nativeZ) : m_nativeY) = true;
    }

    std::string implementation() const override
    {
        return std::string("onednn:conv(") + m_pd.impl_info_str() + ")";
    }

private:
    dnnl::convolution_forward::primitive_desc m_pd;
    dnnl::convolution_forward m_primitive;
    memory m_weights;
    std::optional<memory> m_bias;
    Tensor m_weightsOwner; // what m_weights may view
    bool m_residual;
    memory::desc m_plainX, m_plainY;
    std::optional<memory> m_blockedX, m_blockedY; // the primitive's layouts when not row-major
    bool m_nativeX = false, m_nativeY = false, m_nativeZ = false; // kept in them by the compiled graph
    memory m_scratchpad;
};

} // namespace

std::unique_ptr<CpuKernel> makeConvKernel(const NodeBinding &b, std::string &whyNot)
{
    const BoundTensor *x = b.input(0), *w = b.input(1), *bias = b.input(2), *z = b.input(3);
    if (!x || !w || x->dataType != onnx::TensorProto::FLOAT || b.outputs.at(0).dataType != onnx::TensorProto::FLOAT) {
        whyNot = "not a float convolution";
        return nullptr;
    }
    const std::size_t spatial = x->shape.size() >= 3 ? x->shape.size() - 2 : 0;
    if (spatial < 1 || spatial > 3 || w->shape.size() != spatial + 2) {
        whyNot = "oneDNN convolves 1 to 3 spatial dims";
        return nullptr;
    }
    if (!w->constant.defined() || (bias && !bias->constant.defined())) {
        whyNot = "the weights or bias are not constant";
        return nullptr;
    }
    if (z && z->shape != b.outputs[0].shape) {
        whyNot = "the residual does not have the output's shape";
        return nullptr;
    }
    const Shape xSpatial(x->shape.begin() + 2, x->shape.end());
    const Shape kernel(w->shape.begin() + 2, w->shape.end());
    if (kernels::kernelShape(b.attributes, kernel) != kernel) {
        whyNot = "kernel_shape does not match the weights";
        return nullptr;
    }
    auto window = kernels::makeWindow(b.attributes, xSpatial, kernel, false);
    if (!window) {
        whyNot = window.error().format();
        return nullptr;
    }
    const std::int64_t group = b.attributes.attrInt("group", 1);
    const std::int64_t filters = w->shape[0];
    if (group < 1 || filters % group != 0 || x->shape[1] != w->shape[1] * group) {
        whyNot = "the channels do not match the group count";
        return nullptr;
    }
    Shape yShape = b.outputs[0].shape;
    dnnl::post_ops ops;
    if (z)
        ops.append_sum(1.f);
    if (!onednn::appendActivation(b, ops, whyNot))
        return nullptr;

    const auto f32 = memory::data_type::f32;
    Shape groupedW = w->shape; // [M, C/g, k…] → [g, M/g, C/g, k…] for grouped convolutions
    if (group > 1) {
        groupedW[0] = filters / group;
        groupedW.insert(groupedW.begin(), group);
    }
    memory::dims strides, dilations, padL, padR;
    for (std::size_t i = 0; i < spatial; ++i) {
        strides.push_back(window->strides[i]);
        dilations.push_back(window->dilations[i] - 1); // oneDNN counts the gaps
        padL.push_back(window->padsBegin[i]);
        padR.push_back(window->padsEnd[i]);
    }
    try {
        const memory::desc anyX(onednn::dimsOf(x->shape), f32, Tag::any);
        const memory::desc anyW(onednn::dimsOf(groupedW), f32, Tag::any);
        const memory::desc anyY(onednn::dimsOf(yShape), f32, Tag::any);
        const memory::desc biasDesc = bias ? onednn::plainDesc({filters}, f32) : memory::desc();
        const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                                   anyX, anyW, biasDesc, anyY, strides, dilations, padL, padR);
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::convolution_forward::primitive_desc pd(desc, attr, onednn::engine());
        memory weights = onednn::packedConstant(w->constant, onednn::plainDesc(groupedW, f32), pd.weights_desc());
        std::optional<memory> biasMemory;
        if (bias)
            biasMemory = onednn::wrap(biasDesc, bias->constant);
        return std::make_unique<ConvKernel>(std::move(pd), std::move(weights), std::move(biasMemory), w->constant,
                                            x->shape, yShape, z != nullptr);
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cpu
