// Device query through the CUDA runtime API.
#include "runtime/cuda/CudaDevices.h"

#include <cuda_runtime.h>

namespace portolan::runtime::cuda {

CudaDeviceQuery queryCudaDevices()
{
    CudaDeviceQuery query;
    cudaRuntimeGetVersion(&query.runtimeVersion);
    cudaDriverGetVersion(&query.driverVersion);
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        query.problem = query.driverVersion == 0 ? "no CUDA driver on this machine (no GPU?)" : cudaGetErrorString(status);
        cudaGetLastError(); // clear the sticky error so later calls start clean
        return query;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess)
            continue;
        CudaDevice d;
        d.index = i;
        d.name = prop.name;
        d.computeMajor = prop.major;
        d.computeMinor = prop.minor;
        d.memoryBytes = prop.totalGlobalMem;
        d.multiprocessors = prop.multiProcessorCount;
        query.devices.push_back(std::move(d));
    }
    if (query.devices.empty())
        query.problem = "no CUDA device found";
    return query;
}

} // namespace portolan::runtime::cuda
