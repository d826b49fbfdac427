// CUDA status codes to exceptions (see CudaError.h).
#include "runtime/cuda/CudaError.h"

#include <cublasLt.h>
#include <cudnn.h>
#include <cuda_runtime.h>

namespace portolan::runtime::cuda {

void checkCuda(int status, const char *what)
{
    if (status != cudaSuccess) {
        const auto error = static_cast<cudaError_t>(status);
        cudaGetLastError(); // a non-sticky error must not fail the next call too
        throw CudaError(std::string(what) + ": " + cudaGetErrorString(error));
    }
}

void checkCublas(int status, const char *what)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw CudaError(std::string(what) + ": cuBLAS status " + std::to_string(status));
}

void checkCudnn(int status, const char *what)
{
    if (status != CUDNN_STATUS_SUCCESS)
        throw CudaError(std::string(what) + ": " + cudnnGetErrorString(static_cast<cudnnStatus_t>(status)));
}

} // namespace portolan::runtime::cuda
