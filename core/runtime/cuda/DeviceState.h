// What the CUDA executor holds on the device for all its shape plans: the stream, cuBLASLt's handle and
// workspace. Host code only (includes the CUDA headers).
#pragma once

#include "runtime/cuda/CudaKernel.h"

#include <cstddef>

namespace portolan::runtime::cuda {

/// A device allocation, freed with its owner.
class DeviceMemory {
public:
    DeviceMemory() = default;
    explicit DeviceMemory(std::size_t bytes);
    DeviceMemory(DeviceMemory &&other) noexcept : m_data(other.m_data), m_bytes(other.m_bytes)
    {
        other.m_data = nullptr;
        other.m_bytes = 0;
    }
    DeviceMemory &operator=(DeviceMemory &&other) noexcept;
    DeviceMemory(const DeviceMemory &) = delete;
    DeviceMemory &operator=(const DeviceMemory &) = delete;
    ~DeviceMemory();

    void *data() const { return m_data; }
    std::size_t bytes() const { return m_bytes; }

private:
    void *m_data = nullptr;
    std::size_t m_bytes = 0;
};

/// Page-locked host memory that grows on demand and is kept: cudaMallocHost is slow and blocks, so
/// a shape plan allocates it once, not per run. Freed once the device has finished with it.
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(const PinnedBuffer &) = delete;
    PinnedBuffer &operator=(const PinnedBuffer &) = delete;
    ~PinnedBuffer();

    /// At least `bytes` of it (the old contents are not kept when it grows).
    std::byte *reserve(std::size_t bytes);
    std::byte *data() const { return m_data; }
    std::size_t bytes() const { return m_bytes; }

private:
    void release();

    std::byte *m_data = nullptr;
    std::size_t m_bytes = 0;
};

struct DeviceState {
    DeviceState(); ///< throws CudaError when the device cannot be set up
    ~DeviceState();
    DeviceState(const DeviceState &) = delete;
    DeviceState &operator=(const DeviceState &) = delete;

    CudaContext context; ///< stream, handle, workspace, SM count
    DeviceMemory workspace;
};

} // namespace portolan::runtime::cuda
