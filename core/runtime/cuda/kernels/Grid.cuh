// What every grid-stride kernel file uses: the loop itself, and the stream as CUDA's type.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

/// for i over [0, count), each thread starting at its global index and striding by the grid's size
#define GRID_STRIDE(i, count)                                                                                           \
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x, step_ = std::int64_t(gridDim.x) * blockDim.x; \
         i < (count); i += step_)

namespace portolan::runtime::cuda {

inline cudaStream_t streamOf(void *stream)
{
    return static_cast<cudaStream_t>(stream);
}

} // namespace portolan::runtime::cuda
