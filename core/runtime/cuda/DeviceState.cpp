// Device memory and the executor's stream and library handles (see DeviceState.h).
#include "runtime/cuda/DeviceState.h"

#include "runtime/cuda/CudaError.h"

#include <cublasLt.h>
#include <cudnn.h>
#include <cuda_runtime.h>

#include <utility>

namespace portolan::runtime::cuda {

DeviceMemory::DeviceMemory(std::size_t bytes) : m_bytes(bytes)
{
    if (bytes)
        checkCuda(cudaMalloc(&m_data, bytes), "cudaMalloc");
}

DeviceMemory &DeviceMemory::operator=(DeviceMemory &&other) noexcept
{
    std::swap(m_data, other.m_data);
    std::swap(m_bytes, other.m_bytes);
    return *this;
}

DeviceMemory::~DeviceMemory()
{
    if (m_data)
        cudaFree(m_data);
}

PinnedBuffer::~PinnedBuffer()
{
    release();
}

void PinnedBuffer::release()
{
    if (!m_data)
        return;
    cudaDeviceSynchronize(); // copies into it may still be in flight (a run that failed half-way)
    cudaFreeHost(m_data);
    m_data = nullptr;
    m_bytes = 0;
}

std::byte *PinnedBuffer::reserve(std::size_t bytes)
{
    if (bytes <= m_bytes)
        return m_data;
    release();
    void *pinned = nullptr;
    checkCuda(cudaMallocHost(&pinned, bytes), "allocating pinned host memory");
    m_data = static_cast<std::byte *>(pinned);
    m_bytes = bytes;
    return m_data;
}

DeviceState::DeviceState()
{
    checkCuda(cudaSetDevice(0), "cudaSetDevice");
    cudaDeviceProp prop{};
    checkCuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    context.multiprocessors = prop.multiProcessorCount;
    cudaStream_t stream = nullptr;
    checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    context.stream = stream;
    try {
        cublasLtHandle_t handle = nullptr;
        checkCublas(cublasLtCreate(&handle), "cublasLtCreate");
        context.cublasLt = handle;
        cudnnHandle_t dnn = nullptr;
        checkCudnn(cudnnCreate(&dnn), "cudnnCreate");
        context.cudnn = dnn;
        checkCudnn(cudnnSetStream(dnn, stream), "cudnnSetStream");
        workspace = DeviceMemory(kCudaWorkspaceBytes);
    } catch (...) { // the destructor does not run for a constructor that throws
        if (context.cudnn)
            cudnnDestroy(static_cast<cudnnHandle_t>(context.cudnn));
        if (context.cublasLt)
            cublasLtDestroy(static_cast<cublasLtHandle_t>(context.cublasLt));
        cudaStreamDestroy(stream);
        throw;
    }
    context.workspace = workspace.data();
    context.workspaceBytes = workspace.bytes();
}

DeviceState::~DeviceState()
{
    if (context.cudnn)
        cudnnDestroy(static_cast<cudnnHandle_t>(context.cudnn));
    if (context.cublasLt)
        cublasLtDestroy(static_cast<cublasLtHandle_t>(context.cublasLt));
    if (context.stream)
        cudaStreamDestroy(static_cast<cudaStream_t>(context.stream));
}

} // namespace portolan::runtime::cuda
