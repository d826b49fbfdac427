// Elementwise kernels: one function over a tensor, a broadcast binary op with a function after it,
// the matrix products' and convolutions' epilogues, and strided copies. Grid-stride loops; 16-byte
// vector accesses for fp32 where aligned. Each kernel is a template on the storage type, computing
// in float.
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/ElementwiseMath.h"
#include "runtime/cuda/kernels/Grid.cuh"
#include "runtime/cuda/kernels/Storage.cuh"

#include <cuda_runtime.h>

namespace portolan::runtime::cuda {

namespace {

template <typename From, typename To>
__global__ void convertKernel(const From *__restrict__ in, To *out, std::int64_t count)
{
    GRID_STRIDE(i, count)
    out[i] = fromFloat<To>(toFloat(in[i]));
}

template <typename T>
__global__ void functionKernel(FunctionSpec f, const T *__restrict__ in, T *out, std::int64_t count)
{
    GRID_STRIDE(i, count)
    out[i] = fromFloat<T>(applyFunction(f, toFloat(in[i])));
}

__global__ void functionKernel4(FunctionSpec f, const float4 *__restrict__ in, float4 *out, std::int64_t count4)
{
    GRID_STRIDE(i, count4)
    {
        float4 v = in[i];
        v.x = applyFunction(f, v.x);
        v.y = applyFunction(f, v.y);
        v.z = applyFunction(f, v.z);
        v.w = applyFunction(f, v.w);
        out[i] = v;
    }
}

/// Same-shape fp32 operands: no index arithmetic.
__global__ void binarySameKernel4(BinaryOp op, FunctionSpec f, const float4 *__restrict__ a, const float4 *__restrict__ b,
                                  float4 *out, std::int64_t count4)
{
    GRID_STRIDE(i, count4)
    {
        const float4 x = a[i], y = b[i];
        out[i] = make_float4(applyFunction(f, applyBinary(op, x.x, y.x)), applyFunction(f, applyBinary(op, x.y, y.y)),
                             applyFunction(f, applyBinary(op, x.z, y.z)), applyFunction(f, applyBinary(op, x.w, y.w)));
    }
}

template <typename T>
__global__ void binaryKernel(BinaryOp op, FunctionSpec f, const T *__restrict__ a, const T *__restrict__ b, T *out, BroadcastPlan plan)
{
    GRID_STRIDE(i, plan.count)
    {
        std::int64_t ia, ib;
        plan.offsets(i, ia, ib);
        out[i] = fromFloat<T>(applyFunction(f, applyBinary(op, toFloat(a[ia]), toFloat(b[ib]))));
    }
}

template <typename T>
__global__ void biasFunctionKernel(T *y, const T *__restrict__ bias, std::int64_t count, std::int64_t width, FunctionSpec f)
{
    GRID_STRIDE(i, count)
    y[i] = fromFloat<T>(applyFunction(f, toFloat(y[i]) + (bias ? toFloat(bias[i % width]) : 0.f)));
}

template <typename T>
__global__ void channelEpilogueKernel(T *y, const T *__restrict__ bias, const T *__restrict__ residual, std::int64_t count,
                                      std::int64_t channels, std::int64_t spatial, FunctionSpec f)
{
    GRID_STRIDE(i, count)
    {
        float v = toFloat(y[i]);
        if (bias)
            v += toFloat(bias[(i / spatial) % channels]);
        if (residual)
            v += toFloat(residual[i]);
        y[i] = fromFloat<T>(applyFunction(f, v));
    }
}

template <typename E>
__global__ void stridedCopyKernel(const E *__restrict__ src, E *dst, StridedCopy copy)
{
    GRID_STRIDE(i, copy.plan.count)
    {
        std::int64_t from, to;
        copy.plan.offsets(i, from, to);
        dst[copy.dstBase + to] = src[copy.srcBase + from];
    }
}

} // namespace

void launchConvertStorage(Storage from, Storage to, const void *in, void *out, std::int64_t count, int multiprocessors, void *stream)
{
    const GridShape g = gridFor(count, multiprocessors);
    withStorage(from, [&](auto f) {
        withStorage(to, [&](auto t) {
            using From = decltype(f);
            using To = decltype(t);
            convertKernel<From, To><<<g.blocks, g.threads, 0, streamOf(stream)>>>(static_cast<const From *>(in), static_cast<To *>(out), count);
        });
    });
}

void launchFunction(Storage s, FunctionSpec f, const void *in, void *out, std::int64_t count, int multiprocessors, void *stream)
{
    if (s == Storage::F32 && vectorWidth(count, {in, out}) == 4) {
        const GridShape g = gridFor(count / 4, multiprocessors);
        functionKernel4<<<g.blocks, g.threads, 0, streamOf(stream)>>>(f, static_cast<const float4 *>(in), static_cast<float4 *>(out),
                                                                      count / 4);
        return;
    }
    const GridShape g = gridFor(count, multiprocessors);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        functionKernel<T><<<g.blocks, g.threads, 0, streamOf(stream)>>>(f, static_cast<const T *>(in), static_cast<T *>(out), count);
    });
}

void launchBinary(Storage s, BinaryOp op, FunctionSpec f, const void *a, const void *b, void *out, const BroadcastPlan &plan,
                  int multiprocessors, void *stream)
{
    const bool same = plan.rank == 1 && plan.strideA[0] == 1 && plan.strideB[0] == 1;
    if (s == Storage::F32 && same && vectorWidth(plan.count, {a, b, out}) == 4) {
        const GridShape g = gridFor(plan.count / 4, multiprocessors);
        binarySameKernel4<<<g.blocks, g.threads, 0, streamOf(stream)>>>(op, f, static_cast<const float4 *>(a),
                                                                        static_cast<const float4 *>(b), static_cast<float4 *>(out),
                                                                        plan.count / 4);
        return;
    }
    const GridShape g = gridFor(plan.count, multiprocessors);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        binaryKernel<T><<<g.blocks, g.threads, 0, streamOf(stream)>>>(op, f, static_cast<const T *>(a), static_cast<const T *>(b),
                                                                      static_cast<T *>(out), plan);
    });
}

void launchBiasFunction(Storage s, void *y, const void *bias, std::int64_t rows, std::int64_t width, FunctionSpec f,
                        int multiprocessors, void *stream)
{
    const GridShape g = gridFor(rows * width, multiprocessors);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        biasFunctionKernel<T><<<g.blocks, g.threads, 0, streamOf(stream)>>>(static_cast<T *>(y), static_cast<const T *>(bias),
                                                                            rows * width, width, f);
    });
}

void launchChannelEpilogue(Storage s, void *y, const void *bias, const void *residual, std::int64_t count, std::int64_t channels,
                           std::int64_t spatial, FunctionSpec f, int multiprocessors, void *stream)
{
    const GridShape g = gridFor(count, multiprocessors);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        channelEpilogueKernel<T><<<g.blocks, g.threads, 0, streamOf(stream)>>>(
            static_cast<T *>(y), static_cast<const T *>(bias), static_cast<const T *>(residual), count, channels, spatial, f);
    });
}

void launchStridedCopy(int elementBytes, const void *src, void *dst, const StridedCopy &copy, int multiprocessors, void *stream)
{
    const GridShape g = gridFor(copy.plan.count, multiprocessors);
    if (elementBytes == 2)
        stridedCopyKernel<unsigned short><<<g.blocks, g.threads, 0, streamOf(stream)>>>(static_cast<const unsigned short *>(src),
                                                                                        static_cast<unsigned short *>(dst), copy);
    else
        stridedCopyKernel<float><<<g.blocks, g.threads, 0, streamOf(stream)>>>(static_cast<const float *>(src), static_cast<float *>(dst),
                                                                               copy);
}

} // namespace portolan::runtime::cuda
