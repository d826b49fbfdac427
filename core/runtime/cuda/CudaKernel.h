// A kernel of the CUDA executor: built once for one node at static shapes (weights on the device,
// descriptors made), then enqueued many times on planned device buffers. Plain C++: the CUDA types
// it touches (stream, library handles) are opaque pointers here.
#pragma once

#include "runtime/KernelBinding.h"
#include "runtime/cuda/DeviceKernels.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace portolan::runtime::cuda {

/// A tensor in device memory, at a compiled shape.
struct DeviceTensor {
    void *data = nullptr; ///< nullptr for an omitted optional input (or one the kernel does not read)
    int dataType = 0;
    Shape shape;

    std::int64_t count() const { return elementCount(shape); }
};

/// What every kernel enqueues on: the executor's one stream and the libraries' handles.
struct CudaContext {
    void *stream = nullptr;      ///< cudaStream_t
    void *cublasLt = nullptr;    ///< cublasLtHandle_t
    void *cudnn = nullptr;       ///< cudnnHandle_t, on `stream`
    void *workspace = nullptr;   ///< for cuBLASLt
    std::size_t workspaceBytes = 0;
    int multiprocessors = 1;
    /// The shape plan's scratch, as large as its hungriest kernel reserved (DeviceSetup::reserveScratch):
    /// one stream, so kernels take turns with it.
    void *scratch = nullptr;
};

/// cuBLASLt's workspace, shared by every product of a shape plan (one stream: one product at a time).
inline constexpr std::size_t kCudaWorkspaceBytes = std::size_t(32) << 20;

/// What a kernel factory may use while building: the library handles (for algorithm searches) and an
/// upload of a constant it derives (a pre-scaled bias, a packed weight), done once at compile time;
/// the executor owns the device memory upload() returns.
class DeviceSetup {
public:
    virtual ~DeviceSetup() = default;
    virtual void *upload(const Tensor &tensor) = 0;
    virtual void *cublasLt() = 0; ///< cublasLtHandle_t
    virtual void *cudnn() = 0;    ///< cudnnHandle_t
    /// How the shape plan stores floating-point tensors (what the kernel's launches must say).
    virtual Storage storage() const = 0;
    /// Asks for `bytes` of CudaContext::scratch at every enqueue (temporaries such as quantized
    /// operands); the shape plan allocates the largest request.
    virtual void reserveScratch(std::size_t bytes) = 0;
};

class CudaKernel {
public:
    virtual ~CudaKernel() = default;
    /// Enqueues the node's computation: inputs and outputs are device buffers at the compiled shapes
    /// (omitted optional ones have data == nullptr). Must not synchronize.
    virtual void enqueue(std::span<const DeviceTensor> inputs, std::span<const DeviceTensor> outputs, const CudaContext &context) = 0;
    /// For a kernel whose output `k` is input `aliasedInput(k)` reshaped: the executor hands the
    /// input's buffer on and enqueues nothing for it; -1 otherwise.
    virtual int aliasedInput(std::size_t /*output*/) const { return -1; }
    /// Whether the kernel reads input `k` on the device (a view reads none but the one it aliases:
    /// Reshape's shape stays on the host, uploaded never).
    virtual bool readsInput(std::size_t /*input*/) const { return true; }
    /// Bytes of constants the kernel uploaded itself and reads at every run (quantized weights): the
    /// part of its traffic the inputs it reads do not show.
    virtual std::uint64_t ownConstantBytes() const { return 0; }
    /// "cuda:elementwise", "cublaslt:matmul"…: what `--stats` shows (asked again after each run).
    virtual std::string implementation() const = 0;
};

/// Builds a kernel for `binding`, or returns nullptr and says why it does not apply (the node then
/// runs on the CPU, marked as a fallback). Constant inputs arrive on the device like any other; a
/// constant the kernel derives from one goes through `setup`.
using CudaKernelFactory = std::unique_ptr<CudaKernel> (*)(const NodeBinding &binding, DeviceSetup &setup, std::string &whyNot);

/// The `activation` / `activation_params` attributes of a fused op (docs/portolan-ops.md) as a
/// function; nullopt for a name the kernels do not know.
std::optional<FunctionSpec> fusedActivation(const KernelContext &attributes);

/// A FusedElementwise node's body as a program, and which of the node's inputs are constant scalars
/// folded into it as instructions (never read on the device).
struct FusedProgram {
    ElementwiseProgram program;
    std::vector<bool> constantInputs;
};
/// The program of `binding`'s FusedElementwise node, or nullopt and why not.
std::optional<FusedProgram> compileFusedElementwise(const NodeBinding &binding, std::string &whyNot);

/// The one-input function an ONNX op computes (Relu, LeakyRelu with its alpha, Gelu with its
/// approximation…); nullopt for other ops, Clip included (its bounds are inputs).
std::optional<FunctionSpec> unaryFunction(const std::string &opType, const KernelContext &attributes);

/// Under int8: a Conv, MatMul or Gemm node (fused forms included) computing on int8 operands, the
/// CPU executor's quantization (weights per output channel, other operands per tensor at
/// `operandScales[k]`, the calibrated scale of non-constant input k). A product cuBLASLt's int8
/// kernels take runs on them (int32 accumulation, dequantized in one kernel after); any other
/// quantizes its operands and keeps the math of its fp32 kernel, `whyEmulated` saying why.
/// nullptr, and why not, when not even that applies.
std::unique_ptr<CudaKernel> makeInt8Kernel(const NodeBinding &binding, const float (&operandScales)[2], DeviceSetup &setup,
                                           std::string &whyNot, std::string &whyEmulated);

/// The kernel factory for (domain, op type), or nullptr.
CudaKernelFactory findCudaKernel(const std::string &domain, const std::string &opType, int opset);

/// True when every present input and output of `binding` is float32 with a static shape; else
/// false with `whyNot` set. What each fp32-only kernel asks first.
bool allFloat32(const NodeBinding &binding, std::string &whyNot);

} // namespace portolan::runtime::cuda
