// ai.portolan Attention: Y = softmax(Q·Kᵀ·scale + Mask [+ causal])·V, as two oneDNN batched matmuls
// over the logical [P, N, S, D] view (SND layouts are strides, Kᵀ is K with its last two strides
// swapped) and a row softmax between them. The scale and the mask are the first matmul's output
// scale and binary-add post-op; the causal limit and the softmax run in one pass per row.
#include "runtime/cpu/OneDnn.h"
#include "support/ParallelFor.h"

#include <cmath>
#include <limits>

namespace portolan::runtime::cpu {

namespace {

using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;

/// The logical [P, N, S, D] view of a tensor stored [outer…, N, S, D] (NSD) or [outer…, S, N, D] (SND).
memory::desc logicalDesc(std::int64_t p, std::int64_t n, std::int64_t s, std::int64_t d, bool sequenceFirst)
{
    const memory::dims strides = sequenceFirst ? memory::dims{s * n * d, d, n * d, 1} : memory::dims{n * s * d, s * d, d, 1};
    return memory::desc({p, n, s, d}, f32, strides);
}

class AttentionKernel final : public CpuKernel {
public:
    AttentionKernel(dnnl::matmul::primitive_desc scoresPd, dnnl::matmul::primitive_desc outputPd, memory::desc q,
                    memory::desc kT, memory::desc v, memory::desc y, memory::desc mask, bool hasMask, bool causal,
                    std::int64_t rows, std::int64_t sq, std::int64_t sk)
        : m_scoresPd(std::move(scoresPd)), m_outputPd(std::move(outputPd)), m_scoresMatMul(m_scoresPd),
          m_outputMatMul(m_outputPd), m_q(q), m_kT(kT), m_v(v), m_y(y), m_mask(mask), m_hasMask(hasMask),
          m_causal(causal), m_rows(rows), m_sq(sq), m_sk(sk), m_scores(m_scoresPd.dst_desc(), onednn::engine()),
          m_scratch1(m_scoresPd.scratchpad_desc(), onednn::engine()), m_scratch2(m_outputPd.scratchpad_desc(), onednn::engine())
    {
    }

    void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) override
    {
        auto &s = onednn::stream();
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, onednn::wrap(m_q, *inputs[0])},
                                             {DNNL_ARG_WEIGHTS, onednn::wrap(m_kT, *inputs[1])},
                                             {DNNL_ARG_DST, m_scores},
                                             {DNNL_ARG_SCRATCHPAD, m_scratch1}};
        if (m_hasMask)
            args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, onednn::wrap(m_mask, *inputs[3]));
        m_scoresMatMul.execute(s, args);
        s.wait();
        softmaxRows(static_cast<float *>(m_scores.get_data_handle()));
        m_outputMatMul.execute(s, {{DNNL_ARG_SRC, m_scores},
                                   {DNNL_ARG_WEIGHTS, onednn::wrap(m_v, *inputs[2])},
                                   {DNNL_ARG_DST, onednn::wrap(m_y, outputs[0])},
                                   {DNNL_ARG_SCRATCHPAD, m_scratch2}});
        s.wait();
    }

    std::string implementation() const override
    {
        return std::string("native:attention(") + m_scoresPd.impl_info_str() + ")";
    }

private:
    /// Softmax of every score row in place; a causal row sees keys j ≤ i + Sk − Sq, the rest become 0.
    /// A row with no visible finite score gives NaN, as the reference does.
    void softmaxRows(float *scores) const
    {
        const std::int64_t sq = m_sq, sk = m_sk;
        const bool causal = m_causal;
        support::parallelFor(m_rows, m_rows * sk > 4096, [=](std::int64_t begin, std::int64_t end) {
            for (std::int64_t r = begin; r < end; ++r) {
                float *row = scores + r * sk;
                const std::int64_t visible = causal ? std::clamp<std::int64_t>(r % sq + sk - sq + 1, 0, sk) : sk;
                float top = -std::numeric_limits<float>::infinity();
                for (std::int64_t j = 0; j < visible; ++j)
                    top = std::max(top, row[j]);
                if (!(top > -std::numeric_limits<float>::infinity())) {
                    std::fill(row, row + sk, std::numeric_limits<float>::quiet_NaN());
                    continue;
                }
                double sum = 0;
                for (std::int64_t j = 0; j < visible; ++j) {
                    row[j] = std::exp(row[j] - top);
                    sum += row[j];
                }
                const float inverse = static_cast<float>(1.0 / sum);
                for (std::int64_t j = 0; j < visible; ++j)
                    row[j] *= inverse;
                std::fill(row + visible, row + sk, 0.f);
            }
        });
    }

    dnnl::matmul::primitive_desc m_scoresPd, m_outputPd;
    dnnl::matmul m_scoresMatMul, m_outputMatMul;
    memory::desc m_q, m_kT, m_v, m_y, m_mask;
    bool m_hasMask, m_causal;
    std::int64_t m_rows, m_sq, m_sk;
    memory m_scores, m_scratch1, m_scratch2;
};

} // namespace

std::unique_ptr<CpuKernel> makeAttentionKernel(const NodeBinding &b, std::string &whyNot)
{
    const BoundTensor *q = b.input(0), *k = b.input(1), *v = b.input(2), *mask = b.input(3);
    for (const BoundTensor *t : {q, k, v, mask})
        if (t && t->dataType != onnx::TensorProto::FLOAT) {
            whyNot = "not float";
            return nullptr;
        }
    if (!q || !k || !v || q->shape.size() < 3 || k->shape.size() != q->shape.size() || v->shape.size() != q->shape.size()) {
        whyNot = "Q, K and V are not of one rank of at least 3";
        return nullptr;
    }
    const std::size_t rank = q->shape.size();
    const std::string layout = b.attributes.attrString("layout", "NSD");
    const bool sequenceFirst = layout == "SND";
    const std::size_t seqAxis = sequenceFirst ? rank - 3 : rank - 2, headAxis = sequenceFirst ? rank - 2 : rank - 3;
    std::int64_t p = 1;
    for (std::size_t i = 0; i + 3 < rank; ++i)
        p *= q->shape[i];
    const std::int64_t n = q->shape[headAxis], sq = q->shape[seqAxis], d = q->shape[rank - 1];
    const std::int64_t sk = k->shape[seqAxis], dv = v->shape[rank - 1];
    // The mask in the [P, N, Sq, Sk] frame: its outer dims must be all 1 or all the scores'.
    memory::desc maskDesc;
    if (mask) {
        Shape m = mask->shape;
        if (m.size() > rank) {
            whyNot = "the mask has a higher rank than the scores";
            return nullptr;
        }
        m = withLeadingOnes(std::move(m), rank);
        const bool outerOnes = std::all_of(m.begin(), m.end() - 3, [](std::int64_t x) { return x == 1; });
        const bool outerFull = std::equal(m.begin(), m.end() - 3, q->shape.begin());
        if (!outerOnes && !outerFull) {
            whyNot = "the mask broadcasts over only some outer dims";
            return nullptr;
        }
        maskDesc = onednn::plainDesc({outerOnes ? 1 : p, m[rank - 3], m[rank - 2], m[rank - 1]}, f32);
    }
    const memory::desc qd = logicalDesc(p, n, sq, d, sequenceFirst);
    const memory::desc kd = logicalDesc(p, n, sk, d, sequenceFirst);
    const memory::desc kT({p, n, d, sk}, f32, memory::dims{kd.data.format_desc.blocking.strides[0],
                                                          kd.data.format_desc.blocking.strides[1], 1,
                                                          kd.data.format_desc.blocking.strides[2]});
    const memory::desc vd = logicalDesc(p, n, sk, dv, sequenceFirst);
    const memory::desc yd = logicalDesc(p, n, sq, dv, sequenceFirst);
    try {
        const memory::desc scores = onednn::plainDesc({p, n, sq, sk}, f32);
        dnnl::primitive_attr scoresAttr;
        scoresAttr.set_output_scales(0, {b.attributes.attrFloat("scale", 1.f)});
        scoresAttr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        if (mask) {
            dnnl::post_ops ops;
            ops.append_binary(dnnl::algorithm::binary_add, maskDesc);
            scoresAttr.set_post_ops(ops);
        }
        dnnl::matmul::primitive_desc scoresPd(dnnl::matmul::desc(qd, kT, scores), scoresAttr, onednn::engine());
        dnnl::primitive_attr outputAttr;
        outputAttr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::matmul::primitive_desc outputPd(dnnl::matmul::desc(scores, vd, yd), outputAttr, onednn::engine());
        return std::make_unique<AttentionKernel>(std::move(scoresPd), std::move(outputPd), qd, kT, vd, yd, maskDesc,
                                                 mask != nullptr, b.attributes.attrInt("causal", 0) != 0, p * n * sq, sq, sk);
    } catch (const dnnl::error &e) {
        whyNot = std::string("oneDNN: ") + e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cpu
