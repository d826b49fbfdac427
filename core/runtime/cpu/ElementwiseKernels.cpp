// Elementwise ops on oneDNN: the arithmetic binaries with numpy broadcasting (oneDNN broadcasts
// only its second operand, so a commutative op whose first operand is the smaller one swaps them),
// and the activations and unary math that have an eltwise algorithm.
#include "runtime/cpu/OneDnn.h"
#include "runtime/cpu/SameLayoutPrimitive.h"

#include <limits>

namespace portolan::runtime::cpu {

namespace {

using dnnl::algorithm;
using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

class BinaryKernel final : public CpuKernel {
public:
    BinaryKernel(dnnl::binary::primitive_desc pd, memory::desc a, memory::desc b, memory::desc y, bool swapped)
        : m_pd(std::move(pd)), m_primitive(m_pd), m_a(a), m_b(b), m_y(y), m_swapped(swapped),
          m_scratchpad(m_pd.scratchpad_desc(), onednn::engine())
    {
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        const Tensor &first = *inputs[m_swapped ? 1 : 0], &second = *inputs[m_swapped ? 0 : 1];
        m_primitive.execute(onednn::stream(), {{DNNL_ARG_SRC_0, onednn::wrap(m_a, first)},
                                               {DNNL_ARG_SRC_1, onednn::wrap(m_b, second)},
                                               {DNNL_ARG_DST, onednn::wrap(m_y, outputs[0])},
                                               {DNNL_ARG_SCRATCHPAD, m_scratchpad}});
        onednn::stream().wait();
    }

    int inPlaceInput(std::size_t) const override { return m_swapped ? 1 : 0; } // the full-shape operand

    std::string implementation() const override { return std::string("onednn:binary(") + m_pd.impl_info_str() + ")"; }

private:
    dnnl::binary::primitive_desc m_pd;
    dnnl::binary m_primitive;
    memory::desc m_a, m_b, m_y;
    bool m_swapped;
    memory m_scratchpad;
};

bool allFloat(const NodeBinding &b)
{
    for (const auto *list : {&b.inputs, &b.outputs})
        for (const BoundTensor &t : *list)
            if (t.present && t.dataType != onnx::TensorProto::FLOAT)
                return false;
    return !b.outputs.empty();
}

/// A scalar constant input (Clip's bounds), or `fallback` when omitted.
std::optional<float> scalarInput(const NodeBinding &b, std::size_t i, float fallback)
{
    const BoundTensor *t = b.input(i);
    if (!t)
        return fallback;
    if (!t->constant.defined() || t->constant.size() != 1)
        return std::nullopt;
    return t->constant.data<float>()[0];
}

} // namespace

std::unique_ptr<CpuKernel> makeBinaryKernel(const NodeBinding &b, std::string &whyNot)
{
    static const std::map<std::string, std::pair<algorithm, bool>> ops{// algorithm, commutative
                                                                       {"Add", {algorithm::binary_add, true}},
                                                                       {"Sub", {algorithm::binary_sub, false}},
                                                                       {"Mul", {algorithm::binary_mul, true}},
                                                                       {"Div", {algorithm::binary_div, false}},
                                                                       {"Max", {algorithm::binary_max, true}},
                                                                       {"Min", {algorithm::binary_min, true}}};
    const auto op = ops.find(b.node.opType);
    if (op == ops.end() || b.inputs.size() != 2 || !b.input(0) || !b.input(1) || !allFloat(b)) {
        whyNot = "not a float binary op of two operands";
        return nullptr;
    }
    const Shape &y = b.outputs[0].shape;
    Shape a = withLeadingOnes(b.inputs[0].shape, y.size()), c = withLeadingOnes(b.inputs[1].shape, y.size());
    bool swapped = false;
    if (a != y) {
        if (c != y || !op->second.second) {
            whyNot = "oneDNN broadcasts only the second operand";
            return nullptr;
        }
        std::swap(a, c);
        swapped = true;
    }
    try {
        const memory::desc ad = onednn::plainDesc(a, f32), cd = onednn::plainDesc(c, f32), yd = onednn::plainDesc(y, f32);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::binary::primitive_desc pd(dnnl::binary::desc(op->second.first, ad, cd, yd), attr, onednn::engine());
        return std::make_unique<BinaryKernel>(std::move(pd), ad, cd, yd, swapped);
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

std::unique_ptr<CpuKernel> makeEltwiseKernel(const NodeBinding &b, std::string &whyNot)
{
    if (!b.input(0) || !allFloat(b)) {
        whyNot = "not a float tensor";
        return nullptr;
    }
    const std::string &op = b.node.opType;
    const KernelContext &attrs = b.attributes;
    algorithm alg;
    float alpha = 0.f, beta = 0.f;
    if (op == "Relu") alg = algorithm::eltwise_relu;
    else if (op == "LeakyRelu") { alg = algorithm::eltwise_relu; alpha = attrs.attrFloat("alpha", 0.01f); }
    else if (op == "Elu") { alg = algorithm::eltwise_elu; alpha = attrs.attrFloat("alpha", 1.f); }
    else if (op == "Sigmoid") alg = algorithm::eltwise_logistic;
    else if (op == "Tanh") alg = algorithm::eltwise_tanh;
    else if (op == "Exp") alg = algorithm::eltwise_exp;
    else if (op == "Log") alg = algorithm::eltwise_log;
    else if (op == "Sqrt") alg = algorithm::eltwise_sqrt;
    else if (op == "Abs") alg = algorithm::eltwise_abs;
    else if (op == "HardSwish") alg = algorithm::eltwise_hardswish;
    else if (op == "Gelu") // ai.portolan::Gelu
        alg = attrs.attrString("approximate", "none") == "tanh" ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf;
    else if (op == "Clip") {
        alg = algorithm::eltwise_clip_v2;
        const auto lo = scalarInput(b, 1, -std::numeric_limits<float>::max());
        const auto hi = scalarInput(b, 2, std::numeric_limits<float>::max());
        if (b.opset < 11 || !lo || !hi) {
            whyNot = "Clip's bounds are not constant inputs";
            return nullptr;
        }
        alpha = *lo;
        beta = *hi;
    } else {
        whyNot = "no oneDNN eltwise algorithm for " + op;
        return nullptr;
    }
    try {
        const memory::desc desc = onednn::plainDesc(b.inputs[0].shape, f32);
        dnnl::primitive_attr attr;
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::eltwise_forward::primitive_desc pd(
            dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, desc, alpha, beta), attr, onednn::engine());
        return std::make_unique<SameLayoutPrimitive<dnnl::eltwise_forward>>(std::move(pd), desc, "eltwise");
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cpu
