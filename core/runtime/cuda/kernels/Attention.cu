// The fused attention kernel: one warp per query row. The row's query sits in registers (head dims
// spread over the lanes), each key's score is a warp-wide dot product, and an online softmax keeps a
// running max m and sum l, rescaling the output accumulators when m grows, so scores are never
// stored. The 8 warps of a block take 8 consecutive rows of one head and share its K and V rows in
// L1. Computed in fp32 whatever the storage; hidden keys (−∞ from the mask, or causal) are skipped, and a row with none
// left gives 0/0 = NaN, as Softmax does.
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/kernels/Storage.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

namespace portolan::runtime::cuda {

namespace {

constexpr int kRowsPerBlock = 8;
constexpr int kPerLane = AttentionArgs::kMaxHeadDim / 32;

__device__ __forceinline__ float warpSum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

/// Offset of element (o, n, s, c) of a tensor with sequence length `seq` and last dim `last`.
__device__ __forceinline__ std::int64_t at(const AttentionArgs &a, std::int64_t o, std::int64_t n, std::int64_t s, std::int64_t seq,
                                           std::int64_t last, std::int64_t c)
{
    return (a.sequenceFirst ? (o * seq + s) * a.heads + n : (o * a.heads + n) * seq + s) * last + c;
}

template <typename T>
__global__ void attentionKernel(AttentionArgs a)
{
    const T *Q = static_cast<const T *>(a.q), *K = static_cast<const T *>(a.k), *V = static_cast<const T *>(a.v);
    const T *M = static_cast<const T *>(a.mask);
    T *Y = static_cast<T *>(a.y);
    const unsigned lane = threadIdx.x % 32;
    const std::int64_t row = std::int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
    if (row >= a.outer * a.heads * a.sq)
        return; // a whole warp
    const std::int64_t i = row % a.sq, head = row / a.sq;
    const std::int64_t o = head / a.heads, n = head % a.heads;

    float q[kPerLane], acc[kPerLane];
    for (int t = 0; t < kPerLane; ++t) {
        const std::int64_t c = lane + 32 * t;
        q[t] = c < a.d ? toFloat(Q[at(a, o, n, i, a.sq, a.d, c)]) * a.scale : 0.f;
        acc[t] = 0.f;
    }
    const T *mask = nullptr;
    if (M) {
        std::int64_t rest = head, base = 0;
        for (int dim = a.maskLeadRank - 1; dim >= 0; --dim) {
            base += (rest % a.maskLeadDims[dim]) * a.maskLeadStrides[dim];
            rest /= a.maskLeadDims[dim];
        }
        mask = M + base + i * a.maskStrideI;
    }
    // causal: query i sees keys j ≤ i + Sk − Sq
    const std::int64_t keys = a.causal ? min(a.sk, i + a.sk - a.sq + 1) : a.sk;
    float m = -INFINITY, l = 0.f;
    for (std::int64_t j = 0; j < keys; ++j) {
        float partial = 0.f;
        for (int t = 0; t < kPerLane; ++t) {
            const std::int64_t c = lane + 32 * t;
            if (c < a.d)
                partial += q[t] * toFloat(K[at(a, o, n, j, a.sk, a.d, c)]);
        }
        float s = warpSum(partial);
        if (mask)
            s += toFloat(mask[j * a.maskStrideJ]);
        if (s == -INFINITY)
            continue; // a hidden key adds nothing
        const float grown = fmaxf(m, s);
        const float rescale = expf(m - grown); // 0 on the first visible key (m = −∞)
        const float p = expf(s - grown);
        m = isnan(s) ? s : grown;
        l = l * rescale + p;
        for (int t = 0; t < kPerLane; ++t) {
            const std::int64_t c = lane + 32 * t;
            if (c < a.dv)
                acc[t] = acc[t] * rescale + p * toFloat(V[at(a, o, n, j, a.sk, a.dv, c)]);
        }
    }
    for (int t = 0; t < kPerLane; ++t) {
        const std::int64_t c = lane + 32 * t;
        if (c < a.dv)
            Y[at(a, o, n, i, a.sq, a.dv, c)] = fromFloat<T>(acc[t] / l);
    }
}

} // namespace

void launchAttention(Storage s, const AttentionArgs &args, void *stream)
{
    const std::int64_t rows = args.outer * args.heads * args.sq;
    const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(1, (rows + kRowsPerBlock - 1) / kRowsPerBlock));
    withStorage(s, [&](auto t) {
        attentionKernel<decltype(t)><<<blocks, kRowsPerBlock * 32, 0, static_cast<cudaStream_t>(stream)>>>(args);
    });
}

} // namespace portolan::runtime::cuda
