// MatMul, Gemm, FusedMatMul and FusedGemm on oneDNN's matmul: Y = act(A·B + bias), with numpy batch
// broadcasting. Constant B is reordered once into the layout oneDNN picks. Gemm's transposes are
// strides; α is folded into a constant B; β·C becomes the bias (one value per column) or a binary
// add post-op (any other broadcast of C).
#include "runtime/cpu/OneDnn.h"

namespace portolan::runtime::cpu {

namespace {

using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

/// A stored row-major [r, c] matrix read as its transpose [c, r], through strides.
memory::desc transposedDesc(const Shape &stored)
{
    return memory::desc({stored[1], stored[0]}, f32, memory::dims{1, stored[1]});
}

/// What a matmul primitive is built from.
struct MatMulPlan {
    memory::desc a, b, y;           ///< as the tensors are stored (B's may be a transposed view)
    std::optional<Tensor> constantB; ///< B to pack (α already applied)
    std::optional<Tensor> bias;      ///< [1…, N] after β
    memory::desc biasDesc;
    std::optional<Tensor> addend;    ///< constant β·C for the binary post-op
    memory::desc addendDesc;
    int runtimeAddend = -1;          ///< input index of a non-constant C added by the binary post-op
};

class MatMulKernel final : public CpuKernel {
public:
    MatMulKernel(dnnl::matmul::primitive_desc pd, MatMulPlan plan)
        : m_pd(std::move(pd)), m_primitive(m_pd), m_plan(std::move(plan)),
          m_scratchpad(m_pd.scratchpad_desc(), onednn::engine())
    {
        if (m_plan.constantB)
            m_packedB = onednn::packedConstant(*m_plan.constantB, m_plan.b, m_pd.weights_desc());
        if (m_plan.bias)
            m_biasMemory = onednn::wrap(m_plan.biasDesc, *m_plan.bias);
        if (m_plan.addend)
            m_addendMemory = onednn::wrap(m_plan.addendDesc, *m_plan.addend);
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, onednn::wrap(m_plan.a, *inputs[0])},
                                             {DNNL_ARG_WEIGHTS, m_packedB ? *m_packedB : onednn::wrap(m_plan.b, *inputs[1])},
                                             {DNNL_ARG_DST, onednn::wrap(m_plan.y, outputs[0])},
                                             {DNNL_ARG_SCRATCHPAD, m_scratchpad}};
        if (m_biasMemory)
            args.emplace(DNNL_ARG_BIAS, *m_biasMemory);
        const int addendArg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1;
        if (m_addendMemory)
            args.emplace(addendArg, *m_addendMemory);
        else if (m_plan.runtimeAddend >= 0)
            args.emplace(addendArg, onednn::wrap(m_plan.addendDesc, *inputs[static_cast<std::size_t>(m_plan.runtimeAddend)]));
        m_primitive.execute(onednn::stream(), args);
        onednn::stream().wait();
    }

    std::string implementation() const override { return std::string("onednn:matmul(") + m_pd.impl_info_str() + ")"; }

private:
    dnnl::matmul::primitive_desc m_pd;
    dnnl::matmul m_primitive;
    MatMulPlan m_plan;
    std::optional<memory> m_packedB, m_biasMemory, m_addendMemory;
    memory m_scratchpad;
};

bool isFloat(const BoundTensor *t)
{
    return t && t->dataType == onnx::TensorProto::FLOAT;
}

Tensor scaled(const Tensor &t, float factor)
{
    Tensor out = Tensor::zeros(t.dataType(), t.shape());
    const float *in = t.data<float>();
    float *o = out.mutableData<float>();
    for (std::int64_t i = 0; i < t.size(); ++i)
        o[i] = in[i] * factor;
    return out;
}

std::unique_ptr<CpuKernel> build(const NodeBinding &b, MatMulPlan plan, std::string &whyNot)
{
    dnnl::post_ops ops;
    if (plan.addend || plan.runtimeAddend >= 0)
        ops.append_binary(dnnl::algorithm::binary_add, plan.addendDesc);
    if (!onednn::appendActivation(b, ops, whyNot))
        return nullptr;
    try {
        const memory::desc weights = plan.constantB ? memory::desc(plan.b.dims(), f32, memory::format_tag::any) : plan.b;
        const dnnl::matmul::desc desc = plan.bias ? dnnl::matmul::desc(plan.a, weights, plan.biasDesc, plan.y)
                                                  : dnnl::matmul::desc(plan.a, weights, plan.y);
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::matmul::primitive_desc pd(desc, attr, onednn::engine());
        return std::make_unique<MatMulKernel>(std::move(pd), std::move(plan));
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

} // namespace

std::unique_ptr<CpuKernel> makeMatMulKernel(const NodeBinding &b, std::string &whyNot)
{
    const BoundTensor *a = b.input(0), *bm = b.input(1), *bias = b.input(2);
    if (!isFloat(a) || !isFloat(bm) || b.outputs.at(0).dataType != onnx::TensorProto::FLOAT) {
        whyNot = "not a float matrix product";
        return nullptr;
    }
    if (bias && (!bias->constant.defined() || bias->shape.size() != 1)) {
        whyNot = "the bias is not a constant vector";
        return nullptr;
    }
    Shape aShape = a->shape, bShape = bm->shape, yShape = b.outputs[0].shape;
    if (aShape.empty() || bShape.empty()) {
        whyNot = "a scalar operand";
        return nullptr;
    }
    if (aShape.size() == 1)
        aShape.insert(aShape.begin(), 1); // [K] → [1, K]: Y has no M dim, same bytes
    if (bShape.size() == 1)
        bShape.push_back(1);               // [K] → [K, 1]: Y has no N dim
    if (bShape.size() == 2 && aShape.size() > 2) { // one weight matrix for every row: a single 2-D product
        const std::int64_t k = aShape.back();
        aShape = {elementCount(aShape) / std::max<std::int64_t>(k, 1), k};
    }
    const std::size_t rank = std::max(aShape.size(), bShape.size());
    if (rank > 6) {
        whyNot = "more than 4 batch dims";
        return nullptr;
    }
    aShape = withLeadingOnes(aShape, rank);
    bShape = withLeadingOnes(bShape, rank);
    Shape dst(rank);
    for (std::size_t i = 0; i + 2 < rank; ++i)
        dst[i] = std::max(aShape[i], bShape[i]);
    dst[rank - 2] = aShape[rank - 2];
    dst[rank - 1] = bShape[rank - 1];
    if (elementCount(dst) != elementCount(yShape)) {
        whyNot = "the output shape disagrees with the operands'";
        return nullptr;
    }
    MatMulPlan plan;
    plan.a = onednn::plainDesc(aShape, f32);
    plan.b = onednn::plainDesc(bShape, f32);
    plan.y = onednn::plainDesc(dst, f32);
    if (bm->constant.defined())
        plan.constantB = bm->constant;
    if (bias) {
        Shape biasShape(rank, 1);
        biasShape.back() = bias->shape[0];
        plan.bias = bias->constant;
        plan.biasDesc = onednn::plainDesc(biasShape, f32);
    }
    return build(b, std::move(plan), whyNot);
}

std::unique_ptr<CpuKernel> makeGemmKernel(const NodeBinding &b, std::string &whyNot)
{
    const BoundTensor *a = b.input(0), *bm = b.input(1), *c = b.input(2);
    if (!isFloat(a) || !isFloat(bm) || a->shape.size() != 2 || bm->shape.size() != 2 ||
        b.outputs.at(0).dataType != onnx::TensorProto::FLOAT) {
        whyNot = "not a float matrix product of rank-2 operands";
        return nullptr;
    }
    const float alpha = b.attributes.attrFloat("alpha", 1.f), beta = b.attributes.attrFloat("beta", 1.f);
    const bool transA = b.attributes.attrInt("transA", 0) != 0, transB = b.attributes.attrInt("transB", 0) != 0;
    const Shape &y = b.outputs[0].shape;
    MatMulPlan plan;
    plan.a = transA ? transposedDesc(a->shape) : onednn::plainDesc(a->shape, f32);
    plan.b = transB ? transposedDesc(bm->shape) : onednn::plainDesc(bm->shape, f32);
    plan.y = onednn::plainDesc(y, f32);
    if (bm->constant.defined())
        plan.constantB = alpha == 1.f ? bm->constant : scaled(bm->constant, alpha);
    else if (alpha != 1.f) {
        whyNot = "alpha scales a non-constant B";
        return nullptr;
    }
    if (c && beta != 0.f) {
        if (c->shape.size() > 2) { // checked before padding: a rank past 2 has no leading 1s to add
            whyNot = "C has rank above 2";
            return nullptr;
        }
        const Shape cShape = withLeadingOnes(c->shape, 2);
        if (c->constant.defined()) {
            const Tensor addend = beta == 1.f ? c->constant : scaled(c->constant, beta);
            if (cShape[0] == 1) { // a value per column, or one for all: the bias
                Tensor row = Tensor::zeros(onnx::TensorProto::FLOAT, {1, y[1]});
                for (std::int64_t j = 0; j < y[1]; ++j)
                    row.mutableData<float>()[j] = addend.data<float>()[cShape[1] == 1 ? 0 : j];
                plan.bias = row;
                plan.biasDesc = onednn::plainDesc({1, y[1]}, f32);
            } else {
                plan.addend = addend.reshaped(cShape);
                plan.addendDesc = onednn::plainDesc(cShape, f32);
            }
        } else if (beta == 1.f) {
            plan.runtimeAddend = 2;
            plan.addendDesc = onednn::plainDesc(cShape, f32);
        } else {
            whyNot = "beta scales a non-constant C";
            return nullptr;
        }
    }
    return build(b, std::move(plan), whyNot);
}

} // namespace portolan::runtime::cpu
