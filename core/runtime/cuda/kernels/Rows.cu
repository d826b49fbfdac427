// Row kernels: softmax and (skip) layer normalization over rows of contiguous floats. A row of up to
// 1024 takes one warp (reductions by shuffles), a wider row one block (shuffles, then shared
// memory); rowLaunch() in Launch.h decides which. Templates on the storage type, computing in float.
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/kernels/Storage.cuh"

#include <cuda_runtime.h>

#include <cfloat>

namespace portolan::runtime::cuda {

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ float warpSum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(kFullMask, v, offset);
    return v;
}

__device__ __forceinline__ float warpMax(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(kFullMask, v, offset));
    return v;
}

/// The sum (or max) over a row's threads: the warp's when one warp holds the row, else the block's
/// (every thread gets the result).
template <bool Max>
__device__ float rowReduce(float v, bool warpPerRow)
{
    v = Max ? warpMax(v) : warpSum(v);
    if (warpPerRow)
        return v;
    __shared__ float partial[32];
    __shared__ float total;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = (blockDim.x + 31) / 32;
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float w = lane < warps ? partial[lane] : (Max ? -INFINITY : 0.f); // max's identity: a plane of -inf stays -inf
        w = Max ? warpMax(w) : warpSum(w);
        if (lane == 0)
            total = w;
    }
    __syncthreads();
    const float result = total;
    __syncthreads(); // `total` and `partial` are reused by the next reduction
    return result;
}

struct RowThreads {
    std::int64_t row;
    unsigned first, stride;
};

/// Which row this thread works on, and its first column and stride along it.
__device__ __forceinline__ RowThreads rowThreads(bool warpPerRow, unsigned rowsPerBlock)
{
    if (warpPerRow)
        return {std::int64_t(blockIdx.x) * rowsPerBlock + threadIdx.x / 32, threadIdx.x % 32, 32};
    return {std::int64_t(blockIdx.x), threadIdx.x, blockDim.x};
}

template <typename T>
__global__ void softmaxKernel(const T *__restrict__ in, T *out, std::int64_t rows, std::int64_t width, bool warpPerRow,
                              unsigned rowsPerBlock)
{
    const RowThreads t = rowThreads(warpPerRow, rowsPerBlock);
    // a whole warp leaves together, so the shuffles of the rows that exist stay full
    if (t.row >= rows)
        return;
    const T *x = in + t.row * width;
    T *y = out + t.row * width;
    float m = -FLT_MAX;
    for (std::int64_t j = t.first; j < width; j += t.stride)
        m = fmaxf(m, toFloat(x[j]));
    m = rowReduce<true>(m, warpPerRow);
    float s = 0.f;
    for (std::int64_t j = t.first; j < width; j += t.stride)
        s += expf(toFloat(x[j]) - m);
    s = rowReduce<false>(s, warpPerRow);
    const float inv = 1.f / s;
    for (std::int64_t j = t.first; j < width; j += t.stride)
        y[j] = fromFloat<T>(expf(toFloat(x[j]) - m) * inv);
}

template <typename T>
__global__ void layerNormKernel(LayerNormArgs a, bool warpPerRow, unsigned rowsPerBlock)
{
    const RowThreads t = rowThreads(warpPerRow, rowsPerBlock);
    if (t.row >= a.rows)
        return;
    const std::int64_t base = t.row * a.width;
    const T *x = static_cast<const T *>(a.x), *skip = static_cast<const T *>(a.skip), *bias = static_cast<const T *>(a.bias);
    const T *gamma = static_cast<const T *>(a.gamma), *beta = static_cast<const T *>(a.beta);
    T *y = static_cast<T *>(a.y), *sumOut = static_cast<T *>(a.sum);
    auto input = [&](std::int64_t j) {
        float s = toFloat(x[base + j]);
        if (skip)
            s += toFloat(skip[base + j]);
        if (bias)
            s += toFloat(bias[j]);
        return s;
    };
    float total = 0.f;
    for (std::int64_t j = t.first; j < a.width; j += t.stride)
        total += input(j);
    const float mean = rowReduce<false>(total, warpPerRow) / static_cast<float>(a.width);
    float squares = 0.f;
    for (std::int64_t j = t.first; j < a.width; j += t.stride) {
        const float d = input(j) - mean;
        squares += d * d;
    }
    const float variance = rowReduce<false>(squares, warpPerRow) / static_cast<float>(a.width);
    const float scale = rsqrtf(variance + a.epsilon);
    for (std::int64_t j = t.first; j < a.width; j += t.stride) {
        const float s = input(j);
        if (sumOut)
            sumOut[base + j] = fromFloat<T>(s);
        y[base + j] = fromFloat<T>((s - mean) * scale * toFloat(gamma[j]) + (beta ? toFloat(beta[j]) : 0.f));
    }
}

template <typename T>
__global__ void rowReduceKernel(const T *__restrict__ in, T *out, std::int64_t rows, std::int64_t width, bool max,
                                bool warpPerRow, unsigned rowsPerBlock)
{
    const RowThreads t = rowThreads(warpPerRow, rowsPerBlock);
    if (t.row >= rows)
        return;
    const T *x = in + t.row * width;
    float v = max ? -INFINITY : 0.f;
    bool nan = false;
    for (std::int64_t j = t.first; j < width; j += t.stride) {
        const float e = toFloat(x[j]);
        nan = nan || isnan(e);
        v = max ? fmaxf(v, e) : v + e;
    }
    // fmaxf drops NaN: a row holding one has the max NaN, as the reference's comparison gives
    const float anyNan = rowReduce<true>(nan ? 1.f : 0.f, warpPerRow);
    v = max ? rowReduce<true>(v, warpPerRow) : rowReduce<false>(v, warpPerRow);
    if (t.first == 0)
        out[t.row] = fromFloat<T>(max ? (anyNan > 0.f ? nanf("") : v) : v / static_cast<float>(width));
}

} // namespace

void launchRowReduce(Storage s, const void *in, void *out, std::int64_t rows, std::int64_t width, bool max, void *stream)
{
    const RowLaunch l = rowLaunch(rows, width);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        rowReduceKernel<T><<<l.blocks, l.threads, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<const T *>(in), static_cast<T *>(out), rows, width, max, l.warpPerRow, l.rowsPerBlock);
    });
}

void launchSoftmax(Storage s, const void *in, void *out, std::int64_t rows, std::int64_t width, void *stream)
{
    const RowLaunch l = rowLaunch(rows, width);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        softmaxKernel<T><<<l.blocks, l.threads, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<const T *>(in), static_cast<T *>(out), rows, width, l.warpPerRow, l.rowsPerBlock);
    });
}

void launchLayerNorm(Storage s, const LayerNormArgs &args, void *stream)
{
    const RowLaunch l = rowLaunch(args.rows, args.width);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        layerNormKernel<T><<<l.blocks, l.threads, 0, static_cast<cudaStream_t>(stream)>>>(args, l.warpPerRow, l.rowsPerBlock);
    });
}

} // namespace portolan::runtime::cuda
