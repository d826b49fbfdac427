// Loads and stores of the storage types (float, __half, __nv_bfloat16) as floats, and the dispatch
// from a Storage value to the kernel instantiated for its type.
#pragma once

#include "runtime/cuda/DeviceKernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace portolan::runtime::cuda {

__device__ __forceinline__ float toFloat(float v) { return v; }
__device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T fromFloat(float v);
template <>
__device__ __forceinline__ float fromFloat<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half fromFloat<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

/// f(T{}) with T the type `s` stores, on the host: where a launcher picks its kernel's instance.
template <typename F>
void withStorage(Storage s, F &&f)
{
    switch (s) {
    case Storage::F32: f(float{}); break;
    case Storage::F16: f(__half{}); break;
    case Storage::BF16: f(__nv_bfloat16{}); break;
    }
}

} // namespace portolan::runtime::cuda
