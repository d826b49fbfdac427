// Failures of the CUDA runtime and libraries as exceptions, for host code that includes the CUDA
// headers: the executor catches them and reports them against the node that was running.
#pragma once

#include <stdexcept>
#include <string>

namespace portolan::runtime::cuda {

class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Throws CudaError("what: <the runtime's message>") unless `status` is cudaSuccess (0).
void checkCuda(int status, const char *what);
/// The same for a cuBLAS/cuBLASLt status (CUBLAS_STATUS_SUCCESS is 0).
void checkCublas(int status, const char *what);
/// The same for a cuDNN status (CUDNN_STATUS_SUCCESS is 0), with cuDNN's own words.
void checkCudnn(int status, const char *what);

} // namespace portolan::runtime::cuda
