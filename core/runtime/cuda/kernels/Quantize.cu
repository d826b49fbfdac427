// Quantization kernels: the ONNX QuantizeLinear and DequantizeLinear; for the int8 products,
// quantizing activations (straight, or transposed through shared-memory tiles so both reads and
// writes coalesce), quantize-dequantize for the nodes whose math stays fp32, and the products'
// dequantizing epilogue.
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/ElementwiseMath.h"
#include "runtime/cuda/kernels/Grid.cuh"
#include "runtime/cuda/kernels/Storage.cuh"

#include <cstdint>

namespace portolan::runtime::cuda {

namespace {

constexpr int kTile = 32;
constexpr int kTileRows = 8; ///< a 32×8 block walks a 32×32 tile in four steps

__device__ __forceinline__ float quantizedLevel(float x, float scale)
{
    if (!(scale > 0.f) || isnan(x))
        return 0.f;
    return fminf(fmaxf(rintf(x / scale), -127.f), 127.f); // rintf rounds half to even
}

__global__ void quantizeKernel(const float *__restrict__ in, std::int8_t *out, std::int64_t count, float scale)
{
    GRID_STRIDE(i, count)
    out[i] = static_cast<std::int8_t>(quantizedLevel(in[i], scale));
}

/// out [batch][rows][cols] from in [batch][cols][rows]; blockIdx.x over the tiles of out's columns,
/// y over its rows, z (striding) over the batch.
__global__ void quantizeTransposedKernel(const float *__restrict__ in, std::int8_t *out, std::int64_t batch, std::int64_t rows,
                                         std::int64_t cols, float scale)
{
    __shared__ float tile[kTile][kTile + 1]; // +1: the transposed read hits 32 different banks
    const std::int64_t col0 = std::int64_t(blockIdx.x) * kTile, row0 = std::int64_t(blockIdx.y) * kTile;
    for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
        const float *src = in + b * rows * cols;
        std::int8_t *dst = out + b * rows * cols;
        // in's row (col0 + j) holds out's column; its elements (row0 + threadIdx.x) are consecutive
        for (int j = threadIdx.y; j < kTile; j += kTileRows) {
            const std::int64_t inRow = col0 + j, inCol = row0 + threadIdx.x;
            if (inRow < cols && inCol < rows)
                tile[j][threadIdx.x] = src[inRow * rows + inCol];
        }
        __syncthreads();
        for (int j = threadIdx.y; j < kTile; j += kTileRows) {
            const std::int64_t outRow = row0 + j, outCol = col0 + threadIdx.x;
            if (outRow < rows && outCol < cols)
                dst[outRow * cols + outCol] = static_cast<std::int8_t>(quantizedLevel(tile[threadIdx.x][j], scale));
        }
        __syncthreads();
    }
}

/// Here the math stays fp32, so a NaN passes through as the CPU's emulation passes it (int8 itself
/// has none); a zero range still zeroes everything.
__global__ void fakeQuantizeKernel(const float *__restrict__ in, float *out, std::int64_t count, float scale)
{
    GRID_STRIDE(i, count)
    {
        const float x = in[i];
        out[i] = isnan(x) && scale > 0.f ? x : quantizedLevel(x, scale) * scale;
    }
}

__global__ void dequantizeKernel(DequantizeArgs a)
{
    const std::int64_t count = a.rows * a.cols;
    const auto *acc = static_cast<const std::int32_t *>(a.y);
    auto *y = static_cast<float *>(a.y);
    GRID_STRIDE(i, count)
    {
        const std::int64_t c = i % a.cols;
        float v = static_cast<float>(acc[i]) * a.columnScale[c];
        if (a.bias)
            v += a.beta * a.bias[c];
        if (a.matrix)
            v += a.beta * a.matrix[i];
        y[i] = applyFunction(a.f, v);
    }
}

/// The range a quantized type saturates to.
template <typename Q>
struct Levels;
template <>
struct Levels<std::int8_t> {
    static constexpr float lo = -128.f, hi = 127.f;
};
template <>
struct Levels<std::uint8_t> {
    static constexpr float lo = 0.f, hi = 255.f;
};
template <>
struct Levels<std::int32_t> {
    static constexpr float lo = -2147483648.f, hi = 2147483520.f; // the largest float below 2^31
};

/// The ONNX ops: float side T, quantized side Q.
template <typename T, typename Q>
__global__ void quantizeLinearKernel(QuantizeLinearArgs a)
{
    const auto *scale = static_cast<const T *>(a.scale);
    const auto *zeroPoint = static_cast<const Q *>(a.zeroPoint);
    GRID_STRIDE(i, a.count)
    {
        const std::int64_t c = a.channels == 1 ? 0 : (i / a.inner) % a.channels;
        const float s = toFloat(scale[c]);
        const float z = zeroPoint ? static_cast<float>(zeroPoint[a.zeroPointPerChannel ? c : 0]) : 0.f;
        if (a.dequantize) {
            static_cast<T *>(a.out)[i] = fromFloat<T>((static_cast<float>(static_cast<const Q *>(a.in)[i]) - z) * s);
        } else {
            // as the reference: x / scale in float, rounded half to even, the zero point added, saturated
            // (NaN to the lowest level)
            const float r = rintf(toFloat(static_cast<const T *>(a.in)[i]) / s) + z;
            static_cast<Q *>(a.out)[i] = static_cast<Q>(!(r >= Levels<Q>::lo) ? Levels<Q>::lo : (r > Levels<Q>::hi ? Levels<Q>::hi : r));
        }
    }
}

} // namespace

void launchQuantizeLinear(Storage s, const QuantizeLinearArgs &args, int multiprocessors, void *stream)
{
    const GridShape g = gridFor(args.count, multiprocessors);
    withStorage(s, [&](auto t) {
        using T = decltype(t);
        switch (args.quantized) {
        case QuantizeLinearArgs::Type::Int8:
            quantizeLinearKernel<T, std::int8_t><<<g.blocks, g.threads, 0, streamOf(stream)>>>(args);
            break;
        case QuantizeLinearArgs::Type::Uint8:
            quantizeLinearKernel<T, std::uint8_t><<<g.blocks, g.threads, 0, streamOf(stream)>>>(args);
            break;
        case QuantizeLinearArgs::Type::Int32: // dequantizing only (the factory checks)
            quantizeLinearKernel<T, std::int32_t><<<g.blocks, g.threads, 0, streamOf(stream)>>>(args);
            break;
        }
    });
}

void launchQuantizeInt8(const float *in, std::int8_t *out, std::int64_t batch, std::int64_t rows, std::int64_t cols, bool transpose,
                        float scale, int multiprocessors, void *stream)
{
    if (!transpose) {
        const GridShape g = gridFor(batch * rows * cols, multiprocessors);
        quantizeKernel<<<g.blocks, g.threads, 0, streamOf(stream)>>>(in, out, batch * rows * cols, scale);
        return;
    }
    const dim3 blocks(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile),
                      static_cast<unsigned>(batch < 65535 ? batch : 65535));
    quantizeTransposedKernel<<<blocks, dim3(kTile, kTileRows), 0, streamOf(stream)>>>(in, out, batch, rows, cols, scale);
}

void launchFakeQuantize(const float *in, float *out, std::int64_t count, float scale, int multiprocessors, void *stream)
{
    const GridShape g = gridFor(count, multiprocessors);
    fakeQuantizeKernel<<<g.blocks, g.threads, 0, streamOf(stream)>>>(in, out, count, scale);
}

void launchDequantizeProduct(const DequantizeArgs &args, int multiprocessors, void *stream)
{
    const GridShape g = gridFor(args.rows * args.cols, multiprocessors);
    dequantizeKernel<<<g.blocks, g.threads, 0, streamOf(stream)>>>(args);
}

} // namespace portolan::runtime::cuda
