// The fused attention kernels. The general one: one warp per query row. The row's query sits in registers (head dims
// spread over the lanes), each key's score is a warp-wide dot product, and an online softmax keeps a
// running max m and sum l, rescaling the output accumulators when m grows, so scores are never
// stored. The 8 warps of a block take 8 consecutive rows of one head and share its K and V rows in
// L1. Computed in fp32 whatever the storage; hidden keys (−∞ from the mask, or causal) are skipped, and a row with none
// left gives 0/0 = NaN, as Softmax does.
//
// The tiled one, for fp16/bf16 storage and head dims of 16 to 128 in steps of 16, on GPUs from sm_80:
// FlashAttention's scheme on tensor cores. A block of 4 warps takes 64 query rows of one head and
// walks the keys 64 at a time: S = Q·Kᵀ on WMMA tiles (fp32 accumulation), each warp then updates the
// online softmax of its own 16 rows (running max and sum, the output rows rescaled when the max
// grows) and writes P in the storage type, and O += P·V on WMMA tiles. Only the K and V tiles are
// shared between warps; nothing of S or P leaves shared memory (TiledAttentionLayout).
#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/Launch.h"
#include "runtime/cuda/kernels/Storage.cuh"

#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

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

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 // the tiled kernel's alone, which exists from sm_80 on
__device__ __forceinline__ float warpMax(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}
#endif

/// The element offset of the mask's row for query `i` of head `head` (the mask broadcast over the
/// scores' leading dims), or -1 without a mask.
__device__ __forceinline__ std::int64_t maskRow(const AttentionArgs &a, std::int64_t head, std::int64_t i)
{
    if (!a.mask)
        return -1;
    std::int64_t rest = head, base = 0;
    for (int dim = a.maskLeadRank - 1; dim >= 0; --dim) {
        base += (rest % a.maskLeadDims[dim]) * a.maskLeadStrides[dim];
        rest /= a.maskLeadDims[dim];
    }
    return base + i * a.maskStrideI;
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
    const T *mask = M ? M + maskRow(a, head, i) : nullptr;
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

/// Rows [first, first + 64) of one head of a [.., seq, d] tensor into a padded shared tile, 16 bytes
/// at a time; rows past `seq` are zeros.
template <typename T>
__device__ void loadTile(T *tile, int ld, const T *x, const AttentionArgs &a, std::int64_t o, std::int64_t n, std::int64_t first,
                         std::int64_t seq)
{
    const int chunks = static_cast<int>(a.d) / 8;
    for (int idx = threadIdx.x; idx < TiledAttentionLayout::kRows * chunks; idx += TiledAttentionLayout::kWarps * 32) {
        const int r = idx / chunks, c = (idx % chunks) * 8;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (first + r < seq)
            v = *reinterpret_cast<const uint4 *>(x + at(a, o, n, first + r, seq, a.d, c));
        *reinterpret_cast<uint4 *>(tile + r * ld + c) = v;
    }
}

template <typename T>
__global__ void tiledAttentionKernel(AttentionArgs a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using namespace nvcuda;
    constexpr int kRows = TiledAttentionLayout::kRows, kKeys = TiledAttentionLayout::kKeys;
    const TiledAttentionLayout L = TiledAttentionLayout::of(static_cast<int>(a.d));
    extern __shared__ __align__(128) unsigned char shared[];
    T *Qs = reinterpret_cast<T *>(shared + L.q), *Ks = reinterpret_cast<T *>(shared + L.k), *Vs = reinterpret_cast<T *>(shared + L.v);
    float *Ss = reinterpret_cast<float *>(shared + L.s), *Os = reinterpret_cast<float *>(shared + L.o);
    T *Ps = reinterpret_cast<T *>(shared + L.p);
    float *rowMax = reinterpret_cast<float *>(shared + L.stats), *rowSum = rowMax + kRows;

    const T *Q = static_cast<const T *>(a.q), *K = static_cast<const T *>(a.k), *V = static_cast<const T *>(a.v);
    const T *M = static_cast<const T *>(a.mask);
    T *Y = static_cast<T *>(a.y);
    const std::int64_t head = blockIdx.y, o = head / a.heads, n = head % a.heads;
    const std::int64_t qFirst = std::int64_t(blockIdx.x) * kRows;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, d = static_cast<int>(a.d);

    loadTile(Qs, L.ldQ, Q, a, o, n, qFirst, a.sq);
    for (int idx = threadIdx.x; idx < kRows * L.ldO; idx += TiledAttentionLayout::kWarps * 32)
        Os[idx] = 0.f;
    if (threadIdx.x < kRows) {
        rowMax[threadIdx.x] = -INFINITY;
        rowSum[threadIdx.x] = 0.f;
    }
    // causal: query i sees keys j ≤ i + Sk − Sq; the tile's last row sees the most
    const std::int64_t shift = a.sk - a.sq, lastRow = min(a.sq, qFirst + kRows) - 1;
    const std::int64_t keys = a.causal ? max(std::int64_t(0), min(a.sk, lastRow + shift + 1)) : a.sk;
    for (std::int64_t kFirst = 0; kFirst < keys; kFirst += kKeys) {
        __syncthreads(); // every warp is done with the last K and V tiles (and the first Q tile is in)
        loadTile(Ks, L.ldK, K, a, o, n, kFirst, a.sk);
        loadTile(Vs, L.ldV, V, a, o, n, kFirst, a.sk);
        __syncthreads();
        // S = Q·Kᵀ for this warp's 16 rows: Kᵀ's 16×16 tiles are K's rows read column-major
        for (int jt = 0; jt < kKeys / 16; ++jt) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> scores;
            wmma::fill_fragment(scores, 0.f);
            for (int ct = 0; ct < d / 16; ++ct) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> q;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> k;
                wmma::load_matrix_sync(q, Qs + 16 * warp * L.ldQ + 16 * ct, L.ldQ);
                wmma::load_matrix_sync(k, Ks + 16 * jt * L.ldK + 16 * ct, L.ldK);
                wmma::mma_sync(scores, q, k, scores);
            }
            wmma::store_matrix_sync(Ss + 16 * warp * L.ldS + 16 * jt, scores, L.ldS, wmma::mem_row_major);
        }
        __syncwarp();
        // the online softmax of the warp's rows: two keys a lane
        for (int r = 0; r < 16; ++r) {
            const int row = 16 * warp + r;
            const std::int64_t i = qFirst + row, maskBase = maskRow(a, head, i);
            float s[2];
            for (int h = 0; h < 2; ++h) {
                const int j = lane + 32 * h;
                const std::int64_t key = kFirst + j;
                const bool hidden = i >= a.sq || key >= a.sk || (a.causal && key > i + shift);
                s[h] = hidden ? -INFINITY : Ss[row * L.ldS + j] * a.scale;
                if (!hidden && M)
                    s[h] += toFloat(M[maskBase + key * a.maskStrideJ]);
            }
            const float before = rowMax[row];
            const float grown = fmaxf(before, warpMax(fmaxf(s[0], s[1])));
            // no visible key yet: nothing to add, nothing to rescale
            const float p0 = grown == -INFINITY ? 0.f : expf(s[0] - grown);
            const float p1 = grown == -INFINITY ? 0.f : expf(s[1] - grown);
            const float rescale = grown == -INFINITY ? 1.f : expf(before - grown);
            const float added = warpSum(p0 + p1);
            Ps[row * L.ldP + lane] = fromFloat<T>(p0);
            Ps[row * L.ldP + lane + 32] = fromFloat<T>(p1);
            if (lane == 0) {
                rowMax[row] = grown;
                rowSum[row] = rowSum[row] * rescale + added;
            }
            for (int c = lane; c < d; c += 32)
                Os[row * L.ldO + c] *= rescale;
        }
        __syncwarp();
        // O += P·V for the warp's rows
        for (int ct = 0; ct < d / 16; ++ct) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> out;
            wmma::load_matrix_sync(out, Os + 16 * warp * L.ldO + 16 * ct, L.ldO, wmma::mem_row_major);
            for (int kt = 0; kt < kKeys / 16; ++kt) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> p;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> v;
                wmma::load_matrix_sync(p, Ps + 16 * warp * L.ldP + 16 * kt, L.ldP);
                wmma::load_matrix_sync(v, Vs + 16 * kt * L.ldV + 16 * ct, L.ldV);
                wmma::mma_sync(out, p, v, out);
            }
            wmma::store_matrix_sync(Os + 16 * warp * L.ldO + 16 * ct, out, L.ldO, wmma::mem_row_major);
        }
    }
    __syncthreads(); // the accumulators, the sums (and, without keys, their initial values) are in
    for (int r = 0; r < 16; ++r) {
        const int row = 16 * warp + r;
        const std::int64_t i = qFirst + row;
        if (i >= a.sq)
            break;
        for (int c = lane; c < d; c += 32)
            Y[at(a, o, n, i, a.sq, a.dv, c)] = fromFloat<T>(Os[row * L.ldO + c] / rowSum[row]); // no visible key: 0/0
    }
#elif defined(__CUDA_ARCH__)
    __trap(); // compiled for a GPU before sm_80: prepareTiledAttention never launches this
#endif
}

} // namespace

bool prepareTiledAttention(Storage s, const AttentionArgs &args, std::string &whyNot)
{
    if (s == Storage::F32) {
        whyNot = "fp32 storage (the tiled kernel runs on 16-bit tensor cores)";
        return false;
    }
    if (args.d != args.dv || args.d % 16 != 0 || args.d > TiledAttentionLayout::kMaxHeadDim) {
        whyNot = "head dims not equal multiples of 16 up to 128";
        return false;
    }
    if (args.outer * args.heads > 65535 || args.outer * args.heads == 0 || args.sq == 0) {
        whyNot = "no query rows, or more than 65535 heads in all";
        return false;
    }
    int device = 0, major = 0, optIn = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    checkCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
    checkCuda(cudaDeviceGetAttribute(&optIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "cudaDeviceGetAttribute");
    const std::size_t bytes = TiledAttentionLayout::of(static_cast<int>(args.d)).bytes;
    if (major < 8 || static_cast<std::size_t>(optIn) < bytes) {
        whyNot = "a GPU before sm_80, or with less than " + std::to_string(bytes / 1024) + " KiB of shared memory a block";
        return false;
    }
    // the code the device runs must come from sm_80 PTX or later: an sm_8x GPU JIT-compiles the
    // compute_75 PTX, where the kernel is empty
    int ptxVersion = 0;
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        if constexpr (!std::is_same_v<T, float>) {
            cudaFuncAttributes attributes{};
            checkCuda(cudaFuncGetAttributes(&attributes, tiledAttentionKernel<T>), "cudaFuncGetAttributes");
            ptxVersion = attributes.ptxVersion;
            // the limit is the kernel function's, shared by every node: only ever raised, so that a
            // node with a smaller head dim does not shrink it under one prepared before
            if (ptxVersion >= 80 && static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) < bytes)
                checkCuda(cudaFuncSetAttribute(tiledAttentionKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
                          "cudaFuncSetAttribute");
        }
    });
    if (ptxVersion < 80) {
        whyNot = "this build has no sm_80+ code for this GPU (only the compute_75 PTX)";
        return false;
    }
    return true;
}

void launchTiledAttention(Storage s, const AttentionArgs &args, void *stream)
{
    const dim3 grid(static_cast<unsigned>((args.sq + TiledAttentionLayout::kRows - 1) / TiledAttentionLayout::kRows),
                    static_cast<unsigned>(args.outer * args.heads));
    const std::size_t bytes = TiledAttentionLayout::of(static_cast<int>(args.d)).bytes;
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        if constexpr (!std::is_same_v<T, float>)
            tiledAttentionKernel<T><<<grid, TiledAttentionLayout::kWarps * 32, bytes, static_cast<cudaStream_t>(stream)>>>(args);
    });
}

void launchAttention(Storage s, const AttentionArgs &args, void *stream)
{
    const std::int64_t rows = args.outer * args.heads * args.sq;
    const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(1, (rows + kRowsPerBlock - 1) / kRowsPerBlock));
    withStorage(s, [&](auto t) {
        attentionKernel<decltype(t)><<<blocks, kRowsPerBlock * 32, 0, static_cast<cudaStream_t>(stream)>>>(args);
    });
}

} // namespace portolan::runtime::cuda
