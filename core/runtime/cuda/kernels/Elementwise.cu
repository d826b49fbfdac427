// Elementwise kernels: one function over a tensor, a broadcast binary op with a function after it,
// and a bias-plus-function epilogue. Grid-stride loops; 16-byte vector accesses where aligned.
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/kernels/Functions.cuh"

#include <cuda_runtime.h>

namespace portolan::runtime::cuda {

namespace {

__global__ void functionKernel(FunctionSpec f, const float *__restrict__ in, float *out, std::int64_t count)
{
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
        out[i] = applyFunction(f, in[i]);
}

__global__ void functionKernel4(FunctionSpec f, const float4 *__restrict__ in, float4 *out, std::int64_t count4)
{
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count4; i += step) {
        float4 v = in[i];
        v.x = applyFunction(f, v.x);
        v.y = applyFunction(f, v.y);
        v.z = applyFunction(f, v.z);
        v.w = applyFunction(f, v.w);
        out[i] = v;
    }
}

/// Same-shape operands: no index arithmetic.
__global__ void binarySameKernel4(BinaryOp op, FunctionSpec f, const float4 *__restrict__ a, const float4 *__restrict__ b,
                                  float4 *out, std::int64_t count4)
{
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count4; i += step) {
        const float4 x = a[i], y = b[i];
        out[i] = make_float4(applyFunction(f, applyBinary(op, x.x, y.x)), applyFunction(f, applyBinary(op, x.y, y.y)),
                             applyFunction(f, applyBinary(op, x.z, y.z)), applyFunction(f, applyBinary(op, x.w, y.w)));
    }
}

__global__ void binaryKernel(BinaryOp op, FunctionSpec f, const float *__restrict__ a, const float *__restrict__ b, float *out,
                             BroadcastPlan plan)
{
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < plan.count; i += step) {
        std::int64_t ia, ib;
        plan.offsets(i, ia, ib);
        out[i] = applyFunction(f, applyBinary(op, a[ia], b[ib]));
    }
}

__global__ void biasFunctionKernel(float *y, const float *__restrict__ bias, std::int64_t count, std::int64_t width,
                                   FunctionSpec f)
{
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
        y[i] = applyFunction(f, y[i] + (bias ? bias[i % width] : 0.f));
}

__global__ void channelEpilogueKernel(float *y, const float *__restrict__ bias, const float *__restrict__ residual,
                                      std::int64_t count, std::int64_t channels, std::int64_t spatial, FunctionSpec f)
{
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
        float v = y[i];
        if (bias)
            v += bias[(i / spatial) % channels];
        if (residual)
            v += residual[i];
        y[i] = applyFunction(f, v);
    }
}

__global__ void stridedCopyKernel(const float *__restrict__ src, float *dst, StridedCopy copy)
{
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < copy.plan.count; i += step) {
        std::int64_t from, to;
        copy.plan.offsets(i, from, to);
        dst[copy.dstBase + to] = src[copy.srcBase + from];
    }
}

cudaStream_t streamOf(void *stream)
{
    return static_cast<cudaStream_t>(stream);
}

} // namespace

void launchFunction(FunctionSpec f, const float *in, float *out, std::int64_t count, int multiprocessors, void *stream)
{
    if (vectorWidth(count, {in, out}) == 4) {
        const GridShape g = gridFor(count / 4, multiprocessors);
        functionKernel4<<<g.blocks, g.threads, 0, streamOf(stream)>>>(f, reinterpret_cast<const float4 *>(in),
                                                                      reinterpret_cast<float4 *>(out), count / 4);
        return;
    }
    const GridShape g = gridFor(count, multiprocessors);
    functionKernel<<<g.blocks, g.threads, 0, streamOf(stream)>>>(f, in, out, count);
}

void launchBinary(BinaryOp op, FunctionSpec f, const float *a, const float *b, float *out, const BroadcastPlan &plan,
                  int multiprocessors, void *stream)
{
    const bool same = plan.rank == 1 && plan.strideA[0] == 1 && plan.strideB[0] == 1;
    if (same && vectorWidth(plan.count, {a, b, out}) == 4) {
        const GridShape g = gridFor(plan.count / 4, multiprocessors);
        binarySameKernel4<<<g.blocks, g.threads, 0, streamOf(stream)>>>(
            op, f, reinterpret_cast<const float4 *>(a), reinterpret_cast<const float4 *>(b), reinterpret_cast<float4 *>(out),
            plan.count / 4);
        return;
    }
    const GridShape g = gridFor(plan.count, multiprocessors);
    binaryKernel<<<g.blocks, g.threads, 0, streamOf(stream)>>>(op, f, a, b, out, plan);
}

void launchBiasFunction(float *y, const float *bias, std::int64_t rows, std::int64_t width, FunctionSpec f,
                        int multiprocessors, void *stream)
{
    const GridShape g = gridFor(rows * width, multiprocessors);
    biasFunctionKernel<<<g.blocks, g.threads, 0, streamOf(stream)>>>(y, bias, rows * width, width, f);
}

void launchChannelEpilogue(float *y, const float *bias, const float *residual, std::int64_t count, std::int64_t channels,
                           std::int64_t spatial, FunctionSpec f, int multiprocessors, void *stream)
{
    const GridShape g = gridFor(count, multiprocessors);
    channelEpilogueKernel<<<g.blocks, g.threads, 0, streamOf(stream)>>>(y, bias, residual, count, channels, spatial, f);
}

void launchStridedCopy(const float *src, float *dst, const StridedCopy &copy, int multiprocessors, void *stream)
{
    const GridShape g = gridFor(copy.plan.count, multiprocessors);
    stridedCopyKernel<<<g.blocks, g.threads, 0, streamOf(stream)>>>(src, dst, copy);
}

} // namespace portolan::runtime::cuda
