// What a CUDA shape plan is made of — its values, steps and int8 host operands — shared by compiling it
// (CudaShapePlan.cpp) and running it (CudaShapePlanRun.cpp). Internal to the CUDA executor.
#pragma once

#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/CudaShapePlan.h"
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/DeviceState.h"

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::runtime::cuda {

struct CudaShapePlan::Value {
    ir::ValueId id;
    int dataType = 0;
    std::optional<Shape> shape;
    const Tensor *constant = nullptr; ///< host data of an initializer or Constant node
    void *fixed = nullptr;            ///< the constant uploaded, when a CUDA step reads it
    int aliasOf = -1;                 ///< a view: another value's device storage
    int buffer = -1;                  ///< its buffer in the arena
    bool onDevice = false;            ///< a CUDA step writes or reads it
    bool readOnHost = false;          ///< a graph output, or read by a CPU fallback
    Storage storage = Storage::F32;   ///< how its floats are stored on the device
    bool converted = false;           ///< another value's copy in this storage, made by its first reader's step
    int hostTwinOf = -1;              ///< another value's copy in this storage, uploaded from that one's host copy
    bool deviceProduced = false;      ///< a CUDA step's output
    // per run
    RuntimeValue host;
    bool hostValid = false, deviceValid = false;

};

/// An int8 node's operands 0 and 1 quantize-dequantized on the host: constants once (per output
/// channel for the weight), activations at their calibrated scales before each run of the node.
struct CudaShapePlan::HostInt8 {
    float scales[2] = {0, 0};
    Tensor constants[2];
};

struct CudaShapePlan::Step {
    ir::NodeId node;
    std::unique_ptr<CudaKernel> kernel; ///< nullptr: the CPU fallback
    std::vector<int> inputs, outputs;   ///< values; -1 for omitted ones
    std::vector<int> releaseAfter;      ///< values whose last reader this is
    std::vector<std::pair<ir::ValueId, int>> captured; ///< outer values a fallback's subgraphs read
    bool precomputed = false;           ///< a Constant node, or one folded when the executor was made: its values are known
    Storage storage = Storage::F32;     ///< what its kernel computes on
    /// (from, to): values converted to the step's storage, on the device, before its kernel runs
    std::vector<std::pair<int, int>> conversions;
    /// (from, to): host values (feeds, fallbacks' outputs) uploaded in the step's storage for it
    std::vector<std::pair<int, int>> uploads;
    std::optional<HostInt8> int8OnHost; ///< an int8 node the CPU runs: how its operands are quantized there
    cudaEvent_t started = nullptr, finished = nullptr; ///< for profiling
};

/// Uploads for the kernel factories, kept by the shape plan.
class CudaShapePlan::Setup final : public DeviceSetup {
public:
    explicit Setup(CudaShapePlan &profile) : m_profile(profile) {}
    void *upload(const Tensor &original) override
    {
        const Tensor tensor = stored(original, m_storage);
        DeviceMemory memory(std::max<std::size_t>(tensor.byteSize(), 1));
        // on the kernels' stream (a non-blocking one, not ordered after the default stream), and waited
        // for: `tensor` may be a temporary, and a pageable copy can return before it has landed
        const auto stream = static_cast<cudaStream_t>(m_profile.m_device.context.stream);
        checkCuda(cudaMemcpyAsync(memory.data(), tensor.rawData(), tensor.byteSize(), cudaMemcpyHostToDevice, stream),
                  "uploading a constant");
        checkCuda(cudaStreamSynchronize(stream), "uploading a constant");
        m_profile.m_weightBytes += tensor.byteSize();
        m_profile.m_weights.push_back(std::move(memory));
        return m_profile.m_weights.back().data();
    }
    void *cublasLt() override { return m_profile.m_device.context.cublasLt; }
    void *cudnn() override { return m_profile.m_device.context.cudnn; }
    Storage storage() const override { return m_storage; }
    void reserveScratch(std::size_t bytes) override { m_profile.m_scratchBytes = std::max(m_profile.m_scratchBytes, bytes); }
    /// The storage the next factory call (and upload) is for: the step's.
    void setStorage(Storage s) { m_storage = s; }

private:
    CudaShapePlan &m_profile;
    Storage m_storage = Storage::F32;
};

inline std::string displayName(const ir::Node &node)
{
    return node.name.empty() ? "(" + node.opType + ")" : node.name;
}

inline cudaStream_t streamOf(const DeviceState &device)
{
    return static_cast<cudaStream_t>(device.context.stream);
}

} // namespace portolan::runtime::cuda
