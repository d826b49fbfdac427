// ai.portolan Attention on the device: a fused kernel of kernels/Attention.cu, for head dims up to
// 256 and up to four leading dims of the scores. The tiled tensor-core kernel where it applies (16-bit
// storage, head dims a multiple of 16 up to 128, sm_80 on), else the warp-per-row one.
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/DeviceKernels.h"

namespace portolan::runtime::cuda {

namespace {

class AttentionKernel final : public CudaKernel {
public:
    AttentionKernel(const AttentionArgs &args, Storage storage, bool tiled) : m_args(args), m_storage(storage), m_tiled(tiled) {}
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        AttentionArgs a = m_args;
        a.q = in[0].data;
        a.k = in[1].data;
        a.v = in[2].data;
        a.mask = in.size() > 3 ? in[3].data : nullptr;
        a.y = out[0].data;
        if (m_tiled)
            launchTiledAttention(m_storage, a, c.stream);
        else
            launchAttention(m_storage, a, c.stream);
    }
    std::string implementation() const override { return m_tiled ? "cuda:attention-tiled" : "cuda:attention"; }

private:
    AttentionArgs m_args;
    Storage m_storage;
    bool m_tiled;
};

} // namespace

std::unique_ptr<CudaKernel> makeAttentionKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    const BoundTensor *q = b.input(0), *k = b.input(1), *v = b.input(2), *mask = b.input(3);
    if (!q || !k || !v) {
        whyNot = "Q, K or V is missing";
        return nullptr;
    }
    const std::size_t rank = q->shape.size();
    const std::string layout = b.attributes.attrString("layout", "NSD");
    if (layout != "NSD" && layout != "SND") {
        whyNot = "layout '" + layout + "' is neither NSD nor SND";
        return nullptr;
    }
    const bool sequenceFirst = layout == "SND";
    if (rank < 2 || rank > 6 || k->shape.size() != rank || v->shape.size() != rank || (sequenceFirst && rank < 3)) {
        whyNot = "Q, K and V are not of one rank from 2 (3 for SND) to 6";
        return nullptr;
    }
    const std::size_t seqAxis = sequenceFirst ? rank - 3 : rank - 2;
    const std::size_t headAxis = sequenceFirst ? rank - 2 : rank - 3;
    AttentionArgs a;
    a.sequenceFirst = sequenceFirst;
    a.heads = rank >= 3 ? q->shape[headAxis] : 1;
    a.sq = q->shape[seqAxis];
    a.sk = k->shape[seqAxis];
    a.d = q->shape[rank - 1];
    a.dv = v->shape[rank - 1];
    for (std::size_t i = 0; i + 3 < rank; ++i)
        a.outer *= q->shape[i];
    if (a.d > AttentionArgs::kMaxHeadDim || a.dv > AttentionArgs::kMaxHeadDim || k->shape[rank - 1] != a.d || v->shape[seqAxis] != a.sk) {
        whyNot = "head dims above " + std::to_string(AttentionArgs::kMaxHeadDim) + ", or K and V do not match Q";
        return nullptr;
    }
    for (std::size_t i = 0; i + 1 < rank; ++i) // the kernels walk K and V by Q's batch and head dims
        if (i != seqAxis && (k->shape[i] != q->shape[i] || v->shape[i] != q->shape[i])) {
            whyNot = "K or V does not have Q's batch and head dims (" + shapeString(k->shape) + ", " + shapeString(v->shape) + " for " +
                     shapeString(q->shape) + ")";
            return nullptr;
        }
    a.scale = b.attributes.attrFloat("scale", 1.f);
    a.causal = b.attributes.attrInt("causal", 0) != 0;
    if (mask) {
        // the logical scores [outer…, N, Sq, Sk] the mask broadcasts to
        Shape scores(q->shape.begin(), q->shape.begin() + static_cast<std::ptrdiff_t>(rank >= 3 ? rank - 3 : 0));
        if (rank >= 3)
            scores.push_back(a.heads);
        scores.push_back(a.sq);
        scores.push_back(a.sk);
        const Shape &ms = mask->shape;
        if (ms.size() > scores.size() || scores.size() - 2 > static_cast<std::size_t>(AttentionArgs::kMaxLeadDims)) {
            whyNot = "the mask has more dims than the scores, or the scores more than 6";
            return nullptr;
        }
        std::vector<std::int64_t> strides(scores.size(), 0); // per scores axis; 0 where the mask broadcasts
        std::int64_t stride = 1;
        for (std::size_t i = ms.size(); i-- > 0;) {
            const std::size_t axis = scores.size() - ms.size() + i;
            if (ms[i] != 1 && ms[i] != scores[axis]) {
                whyNot = "the mask does not broadcast to the scores";
                return nullptr;
            }
            strides[axis] = ms[i] == 1 ? 0 : stride;
            stride *= ms[i];
        }
        a.maskLeadRank = static_cast<int>(scores.size() - 2);
        for (int i = 0; i < a.maskLeadRank; ++i) {
            a.maskLeadDims[i] = scores[static_cast<std::size_t>(i)];
            a.maskLeadStrides[i] = strides[static_cast<std::size_t>(i)];
        }
        a.maskStrideI = strides[scores.size() - 2];
        a.maskStrideJ = strides[scores.size() - 1];
    }
    std::string whyNotTiled; // the warp-per-row kernel takes what the tiled one does not
    const bool tiled = prepareTiledAttention(setup.storage(), a, whyNotTiled);
    return std::make_unique<AttentionKernel>(a, setup.storage(), tiled);
}

} // namespace portolan::runtime::cuda
