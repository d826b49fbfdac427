// The CUDA executor: runs a (usually optimized) model on the local GPU. Each set of input shapes is
// compiled once into a shape plan: every node that has a CUDA kernel (CudaKernels.def) runs on the
// device, on buffers planned in one device arena, weights uploaded once; every other node runs on
// the CPU (its reference kernel), its inputs and outputs moved explicitly and counted, so a port's
// "fallback to the CPU" shows. One stream; tensors come back to the host only for the graph's
// outputs, for a fallback, and for an observer (a comparison).
//
// Plain C++: callers need no CUDA headers. Built only when nvcc is found (portolan_cuda).
#pragma once

#include "ir/Model.h"
#include "runtime/AcceleratorProfile.h"
#include "runtime/Precision.h"
#include "runtime/reference/Interpreter.h"
#include "support/Expected.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace portolan::runtime::cuda {

struct CudaExecutorOptions {
    /// Run nodes without a CUDA kernel on the CPU (false: such nodes fail the compile).
    bool allowFallback = true;
    /// How floating-point tensors are stored between nodes: "fp32", or "fp16"/"bf16" (rounded at every
    /// node boundary, computed in fp32 inside each kernel, matrix products and convolutions on tensor
    /// cores with fp32 accumulation: what the CPU executor's policy of the same name models), or
    /// "int8" (see `calibration`).
    std::string precision = "fp32";
    /// Under fp16/bf16: nodes kept at fp32 (the CPU executor's `--keep-fp32` rules). Their float
    /// inputs are converted to fp32 on the device and their outputs stored in fp32; data movement
    /// after them stays at fp32 until a node of the run's precision reads it.
    std::vector<KeepFp32Rule> keepFp32;
    /// With precision "int8" (tensors stored at fp32; Conv, MatMul and Gemm on int8 operands, as the
    /// CPU executor's int8 policy quantizes them): the activation ranges, required.
    std::shared_ptr<const CalibrationTable> calibration;
};

/// How one node ran in the last run's shape plan.
struct CudaNodeProfile {
    std::string name;           ///< display name
    std::string opType;
    std::string implementation; ///< the CUDA kernel's ("cuda:softmax", "cublaslt:matmul"…), or "cpu-fallback"
    std::string whyFallback;    ///< for a fallback: why no CUDA kernel applies
    std::string precision;      ///< what it computes on: "fp32", "fp16", "bf16" or "int8"
    /// Why not the run's precision (kept at fp32, data movement after such a node); for an int8 node
    /// that keeps its fp32 kernel's math on quantized operands, why it does.
    std::string whyPrecision;
    double milliseconds = 0;    ///< GPU time (CUDA events) or, for a fallback, host time, summed over profiled runs
    std::uint64_t runs = 0;
    std::int64_t flops = 0;     ///< per run: 2 per multiply-add of its products (analysis/Flops.h)
    std::uint64_t bytes = 0;    ///< per run, a CUDA kernel's: its inputs read and outputs written once (0 for a view)
};

/// Bytes moved between host and device in the last run, and how often.
struct TransferFigures {
    std::uint64_t uploadBytes = 0, downloadBytes = 0;
    std::uint64_t uploads = 0, downloads = 0;
};

class CudaShapePlan;
struct DeviceState;

class CudaExecutor {
public:
    /// The executor on device 0, or why not (no driver, no device, a device the build has no code for).
    static support::Expected<std::unique_ptr<CudaExecutor>> create(const ir::Model &model, CudaExecutorOptions options = {});
    ~CudaExecutor();

    /// Runs the main graph, compiling a shape plan for the feeds' shapes first if none matches.
    support::Expected<NamedValues> run(const NamedValues &feeds, const RunOptions &options = {});

    /// Time every node of the following runs (CudaNodeProfile::milliseconds).
    void setProfiling(bool on) { m_profiling = on; }
    /// The last run's shape plan, node by node; empty before the first run.
    std::vector<CudaNodeProfile> lastNodes() const;
    TransferFigures lastTransfers() const;
    /// Whether the last run replayed its shape plan as one CUDA Graph (from the second run of a plan
    /// wholly on the device, without an observer or profiling); why not, when capturing it failed.
    bool lastRunWasGraph() const;
    std::string whyNoGraph() const;
    /// The last shape plan's device arena (activations) and the weights uploaded for it.
    std::size_t arenaBytes() const;
    std::size_t weightBytes() const;
    const std::string &deviceName() const { return m_deviceName; }
    /// The last run as `run --stats`, the port report and the workbench show it; with `withPeaks`
    /// the device's peaks at the run's precision too (measured once per process, see DevicePeaks.h).
    AcceleratorProfile lastPlan(bool withPeaks) const;

private:
    CudaExecutor(const ir::Model &model, CudaExecutorOptions options, std::unique_ptr<DeviceState> device, std::string deviceName);

    const ir::Model &m_model;
    CudaExecutorOptions m_options;
    std::unique_ptr<DeviceState> m_device;
    std::string m_deviceName;
    Interpreter m_reference;
    std::unordered_map<std::uint32_t, Tensor> m_constants;
    std::map<std::string, std::unique_ptr<CudaShapePlan>> m_plans; // by input-shape signature
    CudaShapePlan *m_last = nullptr;
    bool m_profiling = false;
};

} // namespace portolan::runtime::cuda
