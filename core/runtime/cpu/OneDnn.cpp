// oneDNN glue. The activation table mirrors the reference kernels' (kernels/FusedActivation.cpp):
// the same names, parameters and defaults.
#include "runtime/cpu/OneDnn.h"

#include <algorithm>
#include <limits>

namespace portolan::runtime::cpu::onednn {

using dnnl::algorithm;

dnnl::engine &engine()
{
    static dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
    return cpu;
}

dnnl::stream &stream()
{
    static dnnl::stream s(engine());
    return s;
}

std::optional<dnnl::memory::data_type> dataTypeOf(int onnxType)
{
    switch (onnxType) {
    case onnx::TensorProto::FLOAT: return dnnl::memory::data_type::f32;
    case onnx::TensorProto::FLOAT16: return dnnl::memory::data_type::f16;
    case onnx::TensorProto::BFLOAT16: return dnnl::memory::data_type::bf16;
    case onnx::TensorProto::INT8: return dnnl::memory::data_type::s8;
    case onnx::TensorProto::UINT8: return dnnl::memory::data_type::u8;
    case onnx::TensorProto::INT32: return dnnl::memory::data_type::s32;
    default: return std::nullopt;
    }
}

dnnl::memory::dims dimsOf(const Shape &shape)
{
    return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::desc plainDesc(const Shape &shape, dnnl::memory::data_type type)
{
    if (shape.empty()) // a scalar: oneDNN reads a rank-0 desc as "no memory" and skips the primitive
        return dnnl::memory::desc({1}, type, dnnl::memory::dims{1});
    dnnl::memory::dims strides(shape.size(), 1);
    for (std::size_t i = shape.size(); i-- > 1;)
        strides[i - 1] = strides[i] * std::max<std::int64_t>(shape[i], 1);
    return dnnl::memory::desc(dimsOf(shape), type, strides);
}

std::optional<PhysicalLayout> physicalLayoutOf(const dnnl::memory::desc &desc, const Shape &shape)
{
    const dnnl_memory_desc_t &d = desc.data;
    if (d.format_kind != dnnl_blocked || d.offset0 != 0 || d.ndims != static_cast<int>(shape.size()) ||
        d.format_desc.blocking.inner_nblks > 1)
        return std::nullopt;
    const dnnl_blocking_desc_t &blocking = d.format_desc.blocking;
    std::vector<std::int64_t> rowMajorStride(shape.size(), 1);
    for (std::size_t i = shape.size(); i-- > 1;)
        rowMajorStride[i - 1] = rowMajorStride[i] * shape[i];
    const int blocked = blocking.inner_nblks == 1 ? static_cast<int>(blocking.inner_idxs[0]) : -1;
    const std::int64_t block = blocked >= 0 ? blocking.inner_blks[0] : 1;
    struct Outer {
        std::int64_t memoryStride;
        PhysicalLayout::Dim dim;
    };
    std::vector<Outer> outer;
    for (int i = 0; i < d.ndims; ++i) {
        if (d.dims[i] != shape[static_cast<std::size_t>(i)] || d.padded_dims[i] != d.dims[i])
            return std::nullopt;
        const std::int64_t size = i == blocked ? d.dims[i] / block : d.dims[i];
        if (size > 1) // a dim of one step has no place in the order
            outer.push_back({blocking.strides[i], {size, rowMajorStride[static_cast<std::size_t>(i)] * (i == blocked ? block : 1)}});
    }
    std::sort(outer.begin(), outer.end(), [](const Outer &a, const Outer &b) { return a.memoryStride > b.memoryStride; });
    PhysicalLayout layout;
    std::int64_t dense = block; // the memory stride a dense layout gives the next dim out
    for (std::size_t k = outer.size(); k-- > 0;) {
        if (outer[k].memoryStride != dense)
            return std::nullopt;
        dense *= outer[k].dim.size;
    }
    for (const Outer &o : outer)
        layout.dims.push_back(o.dim);
    if (block > 1)
        layout.dims.push_back({block, rowMajorStride[static_cast<std::size_t>(blocked)]});
    if (layout.dims.empty())
        layout.dims.push_back({1, 1});
    if (layout.dims.size() > PhysicalLayout::kMaxDims)
        return std::nullopt;
    return layout;
}

bool appendActivation(const NodeBinding &binding, dnnl::post_ops &ops, std::string &whyNot)
{
    const KernelContext &attrs = binding.attributes;
    const std::string name = attrs.attrString("activation");
    const std::vector<float> params = attrs.attrFloats("activation_params");
    auto param = [&](std::size_t i, float fallback) { return i < params.size() ? params[i] : fallback; };
    if (name.empty())
        return true;
    if (name == "Relu")
        ops.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
    else if (name == "LeakyRelu")
        ops.append_eltwise(1.f, algorithm::eltwise_relu, param(0, 0.01f), 0.f);
    else if (name == "Clip")
        ops.append_eltwise(1.f, algorithm::eltwise_clip_v2, param(0, -std::numeric_limits<float>::max()),
                           param(1, std::numeric_limits<float>::max()));
    else if (name == "Sigmoid")
        ops.append_eltwise(1.f, algorithm::eltwise_logistic, 0.f, 0.f);
    else if (name == "Tanh")
        ops.append_eltwise(1.f, algorithm::eltwise_tanh, 0.f, 0.f);
    else if (name == "HardSigmoid") { // clamp(αx + β, 0, 1)
        ops.append_eltwise(1.f, algorithm::eltwise_linear, param(0, 0.2f), param(1, 0.5f));
        ops.append_eltwise(1.f, algorithm::eltwise_clip_v2, 0.f, 1.f);
    } else if (name == "HardSwish")
        ops.append_eltwise(1.f, algorithm::eltwise_hardswish, 0.f, 0.f);
    else if (name == "Gelu")
        ops.append_eltwise(1.f, algorithm::eltwise_gelu_erf, 0.f, 0.f);
    else if (name == "GeluTanh")
        ops.append_eltwise(1.f, algorithm::eltwise_gelu_tanh, 0.f, 0.f);
    else {
        whyNot = "activation '" + name + "' has no oneDNN post-op";
        return false;
    }
    return true;
}

dnnl::memory wrap(const dnnl::memory::desc &desc, const Tensor &tensor)
{
    return dnnl::memory(desc, engine(), const_cast<std::byte *>(tensor.rawData()));
}

dnnl::memory packedConstant(const Tensor &constant, const dnnl::memory::desc &from, const dnnl::memory::desc &to)
{
    dnnl::memory source = wrap(from, constant);
    if (from == to)
        return source;
    dnnl::memory packed(to, engine());
    dnnl::reorder(source, packed).execute(stream(), source, packed);
    stream().wait();
    return packed;
}

} // namespace portolan::runtime::cpu::onednn
