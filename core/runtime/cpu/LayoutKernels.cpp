// Transpose and Softmax on oneDNN. A transpose is a reorder: the input read through strides
// permuted into the output's dim order, written row-major.
#include "runtime/cpu/OneDnn.h"
#include "runtime/cpu/SameLayoutPrimitive.h"

namespace portolan::runtime::cpu {

namespace {

using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

class ReorderKernel final : public CpuKernel {
public:
    ReorderKernel(memory::desc from, memory::desc to)
        : m_from(from), m_to(to), m_primitive(dnnl::reorder::primitive_desc(onednn::engine(), from, onednn::engine(), to))
    {
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        memory src = onednn::wrap(m_from, *inputs[0]), dst = onednn::wrap(m_to, outputs[0]);
        m_primitive.execute(onednn::stream(), src, dst);
        onednn::stream().wait();
    }

    std::string implementation() const override { return "onednn:reorder"; }

private:
    memory::desc m_from, m_to;
    dnnl::reorder m_primitive;
};

bool floatInOut(const NodeBinding &b)
{
    return b.input(0) && b.inputs[0].dataType == onnx::TensorProto::FLOAT && b.outputs.at(0).dataType == onnx::TensorProto::FLOAT;
}

} // namespace

std::unique_ptr<CpuKernel> makeTransposeKernel(const NodeBinding &b, std::string &whyNot)
{
    if (!floatInOut(b) || b.inputs[0].shape.empty()) {
        whyNot = "not a float tensor of rank 1 or more";
        return nullptr;
    }
    const Shape &x = b.inputs[0].shape;
    std::vector<std::int64_t> perm = b.attributes.attrInts("perm");
    if (perm.empty())
        for (std::size_t i = x.size(); i-- > 0;)
            perm.push_back(static_cast<std::int64_t>(i));
    if (perm.size() != x.size()) {
        whyNot = "perm does not match the rank";
        return nullptr;
    }
    Shape inputStrides(x.size(), 1);
    for (std::size_t i = x.size(); i-- > 1;)
        inputStrides[i - 1] = inputStrides[i] * x[i];
    memory::dims dims, strides;
    for (const std::int64_t axis : perm) {
        dims.push_back(x[static_cast<std::size_t>(axis)]);
        strides.push_back(inputStrides[static_cast<std::size_t>(axis)]);
    }
    try {
        return std::make_unique<ReorderKernel>(memory::desc(dims, f32, strides), onednn::plainDesc(b.outputs[0].shape, f32));
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

std::unique_ptr<CpuKernel> makeSoftmaxKernel(const NodeBinding &b, std::string &whyNot)
{
    if (!floatInOut(b) || b.inputs[0].shape.empty()) {
        whyNot = "not a float tensor of rank 1 or more";
        return nullptr;
    }
    const Shape &x = b.inputs[0].shape;
    const auto rank = static_cast<std::int64_t>(x.size());
    std::int64_t axis = b.attributes.attrInt("axis", b.opset >= 13 ? -1 : 1);
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis >= rank) {
        whyNot = "axis out of range";
        return nullptr;
    }
    Shape shape = x; // before opset 13 the input is read as 2-D [before axis, from axis on]
    int softmaxAxis = static_cast<int>(axis);
    if (b.opset < 13) {
        std::int64_t outer = 1;
        for (std::int64_t i = 0; i < axis; ++i)
            outer *= x[static_cast<std::size_t>(i)];
        shape = {outer, outer ? elementCount(x) / outer : 0};
        softmaxAxis = 1;
    }
    try {
        const memory::desc desc = onednn::plainDesc(shape, f32);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::softmax_forward::primitive_desc pd(
            dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, desc, softmaxAxis), attr, onednn::engine());
        return std::make_unique<SameLayoutPrimitive<dnnl::softmax_forward>>(std::move(pd), desc, "softmax");
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cpu
