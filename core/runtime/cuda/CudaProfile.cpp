// Compiling and running a CUDA profile (see CudaProfile.h). A value lives where its readers need it:
// a CUDA step's outputs on the device, a fallback's on the host; each is copied to the other side
// only when a reader there asks, and every such copy is counted.
#include "runtime/cuda/CudaProfile.h"

#include "analysis/ShapeInference.h"
#include "ir/Topology.h"
#include "ir/Type.h"
#include "runtime/reference/ModelConstants.h"
#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/ObservedDownloads.h"
#include "runtime/reference/AttributeGuard.h"
#include "runtime/reference/KernelRegistry.h"
#include "runtime/Dispatch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <utility>

namespace portolan::runtime::cuda {

using support::makeError;

struct CudaProfile::Value {
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
struct CudaProfile::HostInt8 {
    float scales[2] = {0, 0};
    Tensor constants[2];
};

struct CudaProfile::Step {
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

/// Uploads for the kernel factories, kept by the profile.
class CudaProfile::Setup final : public DeviceSetup {
public:
    explicit Setup(CudaProfile &profile) : m_profile(profile) {}
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
    CudaProfile &m_profile;
    Storage m_storage = Storage::F32;
};

namespace {

std::string displayName(const ir::Node &node)
{
    return node.name.empty() ? "(" + node.opType + ")" : node.name;
}

cudaStream_t streamOf(const DeviceState &device)
{
    return static_cast<cudaStream_t>(device.context.stream);
}

} // namespace

CudaProfile::CudaProfile(const ir::Model &model, DeviceState &device, Storage storage)
    : m_model(model), m_device(device), m_storage(storage)
{
}

int CudaProfile::storedType(int dataType, Storage storage)
{
    if (dataType != onnx::TensorProto::FLOAT || storage == Storage::F32)
        return dataType;
    return storage == Storage::F16 ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::BFLOAT16;
}

Tensor CudaProfile::stored(const Tensor &t, Storage storage)
{
    const int type = storedType(t.dataType(), storage);
    return type == t.dataType() ? t : kernels::convertTensor(t, type);
}

std::size_t CudaProfile::deviceBytes(const Value &value) const
{
    return value.shape ? static_cast<std::size_t>(elementCount(*value.shape)) * ir::dataTypeSize(storedType(value.dataType, value.storage)) : 0;
}

CudaProfile::~CudaProfile()
{
    if (m_graph)
        cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(m_graph));
    for (Step &step : m_steps) {
        if (step.started)
            cudaEventDestroy(step.started);
        if (step.finished)
            cudaEventDestroy(step.finished);
    }
}

support::Status CudaProfile::planInt8(const ir::Model &model, const NodeBinding &binding, bool allStatic,
                                      const PrecisionPolicy &policy, DeviceSetup &setup, Step &step, CudaNodeProfile &profile)
{
    const ir::Node &node = binding.node;
    const NodePrecision chosen = choosePrecision(node, policy);
    if (chosen.precision != Precision::Int8) {
        profile.whyPrecision = chosen.why;
        return {};
    }
    HostInt8 host; // the calibrated scales of the non-constant float operands; constants per channel
    for (std::size_t k = 0; k < 2 && k < binding.inputs.size(); ++k) {
        const BoundTensor &input = binding.inputs[k];
        if (!input.present || input.dataType != onnx::TensorProto::FLOAT)
            continue;
        if (input.constant.defined()) {
            host.constants[k] = fakeQuantizePerChannel(
                input.constant, k == 1 ? weightChannelAxis(node, input.constant.shape()) : input.constant.shape().size());
            continue;
        }
        auto scale = calibratedScale(model, node, k, policy);
        if (!scale)
            return scale.error();
        host.scales[k] = *scale;
    }
    profile.precision = "int8";
    std::string whyNot = "a shape is unknown at compile time";
    if (allStatic)
        try {
            step.kernel = makeInt8Kernel(binding, host.scales, setup, whyNot, profile.whyPrecision);
        } catch (const std::exception &e) { // a library that declines
            whyNot = e.what();
        }
    if (!step.kernel) { // an int8 node is quantized wherever it runs: on the CPU, its operands first
        profile.whyFallback = "int8 on the GPU: " + whyNot;
        profile.whyPrecision = "int8 operands quantized on the host";
        step.int8OnHost = std::move(host);
    }
    return {};
}

support::Expected<std::unique_ptr<CudaProfile>> CudaProfile::compile(const ir::Model &model,
                                                                     const std::map<std::string, Shape> &inputShapes,
                                                                     const std::unordered_map<std::uint32_t, Tensor> &constants,
                                                                     const CudaExecutorOptions &options, DeviceState &device)
{
    std::unique_ptr<CudaProfile> p(new CudaProfile(model, device, options.precision == "fp16"   ? Storage::F16
                                                                  : options.precision == "bf16" ? Storage::BF16
                                                                                                : Storage::F32));
    const ir::Graph &main = model.graph(model.mainGraph());
    auto order = ir::topologicalOrder(model, model.mainGraph());
    if (!order)
        return order.takeError();
    const analysis::ShapeInferenceResult inferred = analysis::inferShapesAt(model, inputShapes);

    std::unordered_map<std::uint32_t, int> valueOf;
    auto newValue = [&](ir::ValueId v) {
        Value value;
        value.id = v;
        value.storage = p->m_storage;
        const ir::Value &irValue = model.value(v);
        value.dataType = irValue.elementType();
        if (auto it = inferred.types.find(irValue.name); it != inferred.types.end()) {
            if (it->second.has_tensor_type() && it->second.tensor_type().elem_type())
                value.dataType = it->second.tensor_type().elem_type();
            value.shape = analysis::staticDims(it->second);
        }
        if (auto it = constants.find(v.index); it != constants.end()) {
            value.constant = &it->second;
            value.shape = it->second.shape();
            value.dataType = it->second.dataType();
        }
        valueOf[v.index] = static_cast<int>(p->m_values.size());
        p->m_values.push_back(std::move(value));
        return static_cast<int>(p->m_values.size() - 1);
    };
    for (const ir::ValueId in : main.inputs) {
        const int v = newValue(in);
        if (const auto given = inputShapes.find(model.value(in).name); given != inputShapes.end()) {
            Value &value = p->m_values[static_cast<std::size_t>(v)];
            value.shape = given->second;
            value.constant = nullptr; // a fed input whose initializer is only its default: the feed counts
        }
        p->m_inputValues.push_back(v);
    }
    auto valueFor = [&](ir::ValueId v) -> int {
        if (!v.valid())
            return -1;
        if (auto it = valueOf.find(v.index); it != valueOf.end())
            return it->second;
        return model.value(v).isInitializer() ? newValue(v) : -1;
    };
    auto root = [&](int v) {
        while (p->m_values[static_cast<std::size_t>(v)].aliasOf >= 0)
            v = p->m_values[static_cast<std::size_t>(v)].aliasOf;
        return v;
    };

    MemoryBudget noBudget;
    NoSubgraphs noSubgraphs("no subgraphs at compile time");
    Setup setup(*p);
    std::string refused;
    PrecisionPolicy policy; // the CPU executor's rules for what stays at fp32 (and, for int8, its ranges)
    const bool int8 = options.precision == "int8";
    policy.precision = int8                           ? Precision::Int8
                       : p->m_storage == Storage::F16  ? Precision::Fp16
                       : p->m_storage == Storage::BF16 ? Precision::Bf16
                                                       : Precision::Fp32;
    policy.keepFp32 = options.keepFp32;
    policy.calibration = options.calibration;
    // a value in another storage than a step computes on: its twin in that storage. A constant's is
    // uploaded as such; a feed's or a fallback's output's, from its host copy by the first step that
    // reads it; a CUDA step's output is converted on the device by that step
    std::map<std::pair<int, Storage>, int> twins;
    // A view of a weight or a host value (a Reshape of a feed) is a view of that one's twin, so a kept
    // node reads it unrounded.
    std::function<int(int, Storage, Step &)> twinOf = [&](int v, Storage storage, Step &step) {
        const auto key = std::make_pair(v, storage);
        if (const auto it = twins.find(key); it != twins.end())
            return it->second;
        const int r = root(v);
        const Value &rootValue = p->m_values[static_cast<std::size_t>(r)];
        const int rootTwin = r != v && (rootValue.constant || !rootValue.deviceProduced) ? twinOf(r, storage, step) : -1;
        Value twin;
        const Value &original = p->m_values[static_cast<std::size_t>(v)];
        twin.id = original.id;
        twin.dataType = original.dataType;
        twin.shape = original.shape;
        twin.storage = storage;
        twin.onDevice = true;
        if (rootTwin >= 0) {
            twin.aliasOf = rootTwin;
        } else {
            twin.constant = original.constant;
            twin.converted = !original.constant && original.deviceProduced;
            twin.hostTwinOf = !original.constant && !original.deviceProduced ? v : -1;
        }
        const int t = static_cast<int>(p->m_values.size());
        if (twin.converted)
            step.conversions.emplace_back(v, t);
        else if (twin.hostTwinOf >= 0)
            step.uploads.emplace_back(v, t);
        p->m_values.push_back(std::move(twin));
        twins[key] = t;
        return t;
    };
    for (const ir::NodeId n : *order) {
        const ir::Node &node = model.node(n);
        const int opset = model.opsetVersion(node.domain).value_or(1);
        Step step;
        step.node = n;
        CudaNodeProfile profile;
        profile.name = displayName(node);
        profile.opType = node.opType;
        if (outputsKnown(node, constants)) { // a Constant node, or one folded when the executor was made
            step.precomputed = true;
            for (const ir::ValueId out : node.outputs)
                step.outputs.push_back(out.valid() ? newValue(out) : -1);
            profile.implementation = node.isConstant() ? "constant" : "folded";
            p->m_nodes.push_back(std::move(profile));
            p->m_steps.push_back(std::move(step));
            continue;
        }
        KernelContext attributes(model, node, opset, {}, noBudget, noSubgraphs);
        NodeBinding binding{model, node, opset, {}, {}, attributes};
        bool allStatic = true;
        for (const ir::ValueId in : node.inputs) {
            const int v = valueFor(in);
            if (in.valid() && v < 0)
                return makeError("missing-value", "input '" + model.value(in).name + "' is produced by no node", model.sourcePath,
                                 profile.name);
            step.inputs.push_back(v);
            BoundTensor bound;
            if (v >= 0) {
                const Value &value = p->m_values[static_cast<std::size_t>(v)];
                bound.present = true;
                bound.dataType = value.dataType;
                if (value.constant)
                    bound.constant = *value.constant;
                if (value.shape)
                    bound.shape = *value.shape;
                else
                    allStatic = false;
            }
            binding.inputs.push_back(std::move(bound));
        }
        for (const ir::ValueId out : node.outputs) {
            BoundTensor bound;
            const int v = out.valid() ? newValue(out) : -1;
            if (v >= 0) {
                const Value &value = p->m_values[static_cast<std::size_t>(v)];
                bound.present = true;
                bound.dataType = value.dataType;
                if (value.shape)
                    bound.shape = *value.shape;
                else
                    allStatic = false;
            }
            step.outputs.push_back(v);
            binding.outputs.push_back(std::move(bound));
        }
        // what the node computes on: the run's storage; fp32 for a node the policy keeps; for data
        // movement, whatever its first float input is stored in (it neither rounds nor widens)
        step.storage = p->m_storage;
        if (p->m_storage != Storage::F32) {
            if (movesDataOnly(node)) {
                for (const int v : step.inputs)
                    if (v >= 0 && p->m_values[static_cast<std::size_t>(v)].dataType == onnx::TensorProto::FLOAT) {
                        step.storage = p->m_values[static_cast<std::size_t>(v)].storage;
                        break;
                    }
                if (step.storage != p->m_storage)
                    profile.whyPrecision = "moves data a node kept at fp32 produced";
            } else if (const NodePrecision chosen = choosePrecision(node, policy); chosen.precision == Precision::Fp32) {
                step.storage = Storage::F32;
                profile.whyPrecision = chosen.why;
            }
        }
        profile.precision = step.storage == Storage::F16 ? "fp16" : step.storage == Storage::BF16 ? "bf16" : "fp32";
        setup.setStorage(step.storage);
        if (int8 && !movesDataOnly(node))
            if (auto planned = p->planInt8(model, binding, allStatic, policy, setup, step, profile); !planned)
                return planned.error();
        if (!step.kernel && !step.int8OnHost) {
            const CudaKernelFactory factory = findCudaKernel(node.domain, node.opType, opset);
            if (!factory)
                profile.whyFallback = "no CUDA kernel for " + node.opType; // If, Loop and Scan among them
            else if (!allStatic)
                profile.whyFallback = "a shape is unknown at compile time";
            else
                try {
                    step.kernel = factory(binding, setup, profile.whyFallback);
                    if (step.kernel)
                        if (const auto ignored = ignoredAttribute(attributes)) { // the CPU's kernels may have it
                            step.kernel.reset();
                            profile.whyFallback = "the CUDA kernel does not implement attribute " + *ignored;
                        }
                } catch (const std::exception &e) { // a library that declines (no cuBLASLt algorithm…): the CPU runs it
                    profile.whyFallback = e.what();
                }
        }
        if (allStatic)
            profile.flops = boundFlops(binding);
        if (step.kernel) {
            // float inputs stored otherwise are read through their twins; outputs are stored as computed
            for (std::size_t k = 0; k < step.inputs.size(); ++k) {
                const int v = step.inputs[k];
                if (v < 0 || !step.kernel->readsInput(k))
                    continue;
                const Value &value = p->m_values[static_cast<std::size_t>(v)];
                if (value.dataType == onnx::TensorProto::FLOAT && value.storage != step.storage)
                    step.inputs[k] = twinOf(v, step.storage, step);
            }
            for (const int v : step.outputs)
                if (v >= 0) {
                    p->m_values[static_cast<std::size_t>(v)].storage = step.storage;
                    p->m_values[static_cast<std::size_t>(v)].deviceProduced = true;
                }
            profile.implementation = step.kernel->implementation();
            // what the kernel moves: each input it reads and each output, once, as stored
            if (step.kernel->aliasedInput(0) < 0) { // a view moves nothing
                profile.bytes += step.kernel->ownConstantBytes();
                for (std::size_t k = 0; k < step.inputs.size(); ++k)
                    if (step.inputs[k] >= 0 && step.kernel->readsInput(k))
                        profile.bytes += p->deviceBytes(p->m_values[static_cast<std::size_t>(step.inputs[k])]);
                for (const int v : step.outputs)
                    if (v >= 0)
                        profile.bytes += p->deviceBytes(p->m_values[static_cast<std::size_t>(v)]);
            }
            for (std::size_t k = 0; k < step.outputs.size(); ++k)
                if (const int aliased = step.kernel->aliasedInput(k); aliased >= 0 && step.outputs[k] >= 0)
                    p->m_values[static_cast<std::size_t>(step.outputs[k])].aliasOf = step.inputs[static_cast<std::size_t>(aliased)];
            for (std::size_t k = 0; k < step.inputs.size(); ++k)
                if (step.inputs[k] >= 0 && step.kernel->readsInput(k))
                    p->m_values[static_cast<std::size_t>(step.inputs[k])].onDevice = true;
            for (const auto &[from, to] : step.conversions)
                p->m_values[static_cast<std::size_t>(from)].onDevice = true;
            for (const int v : step.outputs)
                if (v >= 0)
                    p->m_values[static_cast<std::size_t>(v)].onDevice = true;
        } else {
            profile.implementation = "cpu-fallback";
            p->m_allOnDevice = false;
            if (!findReferenceKernel(node.domain, node.opType, opset))
                return makeError("no-kernel", "no CUDA or reference kernel for " + node.opType + " at opset " + std::to_string(opset),
                                 model.sourcePath, profile.name);
            if (!options.allowFallback)
                refused += (refused.empty() ? "" : "; ") + profile.name + " (" + node.opType + "): " + profile.whyFallback;
            if (!node.attributes.empty())
                for (const ir::ValueId captured : ir::capturedValues(model, n))
                    if (const int v = valueFor(captured); v >= 0)
                        step.captured.emplace_back(captured, v);
            for (const int v : step.inputs)
                if (v >= 0)
                    p->m_values[static_cast<std::size_t>(v)].readOnHost = true;
            for (const int v : step.outputs) // computed on the host; stored on the device as the step says
                if (v >= 0)
                    p->m_values[static_cast<std::size_t>(v)].storage = step.storage;
            for (const auto &[id, v] : step.captured)
                p->m_values[static_cast<std::size_t>(v)].readOnHost = true;
        }
        p->m_nodes.push_back(std::move(profile));
        p->m_steps.push_back(std::move(step));
    }
    if (!refused.empty())
        return makeError("no-kernel", "without fallback, these nodes have no CUDA kernel: " + refused, model.sourcePath);
    for (const ir::ValueId out : main.outputs) {
        const int v = valueFor(out);
        if (v < 0)
            return makeError("missing-value", "output '" + model.value(out).name + "' is produced by no node", model.sourcePath);
        p->m_outputValues.push_back(v);
        p->m_values[static_cast<std::size_t>(v)].readOnHost = true;
    }

    // Constants a CUDA step reads go up once; every other device value gets a buffer in the arena,
    // alive from its producer (step 0 for feeds) to its last reader through any of its views.
    const auto end = static_cast<std::uint32_t>(p->m_steps.size());
    std::vector<std::uint32_t> firstStep(p->m_values.size(), 0), lastStep(p->m_values.size(), 0);
    std::vector<int> lastReader(p->m_values.size(), -1);
    for (std::size_t i = 0; i < p->m_steps.size(); ++i) {
        const Step &step = p->m_steps[i];
        for (const int v : step.outputs)
            if (v >= 0)
                firstStep[static_cast<std::size_t>(v)] = static_cast<std::uint32_t>(i);
        // a converted twin lives from the step that converts it; an uploaded one from step 0, as the
        // feeds do (a CUDA Graph replay uploads them all before its first kernel)
        for (const auto &[from, to] : step.conversions)
            firstStep[static_cast<std::size_t>(to)] = static_cast<std::uint32_t>(i);
        auto read = [&](int v) {
            if (v < 0)
                return;
            lastReader[static_cast<std::size_t>(v)] = static_cast<int>(i);
            const auto r = static_cast<std::size_t>(root(v));
            lastStep[r] = std::max(lastStep[r], static_cast<std::uint32_t>(i));
        };
        for (const int v : step.inputs)
            read(v);
        for (const auto &copies : {step.conversions, step.uploads})
            for (const auto &[from, to] : copies)
                read(from);
        for (const auto &[id, v] : step.captured)
            read(v);
    }
    for (const int v : p->m_outputValues) {
        lastStep[static_cast<std::size_t>(root(v))] = end;
        lastReader[static_cast<std::size_t>(v)] = std::numeric_limits<int>::max();
    }
    std::vector<BufferLifetime> buffers;
    std::vector<int> bufferValue;
    try {
        for (std::size_t v = 0; v < p->m_values.size(); ++v) {
            Value &value = p->m_values[v];
            if (!value.onDevice || value.aliasOf >= 0)
                continue;
            if (value.constant) {
                setup.setStorage(value.storage);
                value.fixed = setup.upload(*value.constant);
                continue;
            }
            if (!value.shape)
                return makeError("internal", "device value '" + model.value(value.id).name + "' has no static shape", model.sourcePath);
            value.buffer = static_cast<int>(buffers.size());
            buffers.push_back({p->deviceBytes(value), firstStep[v], std::max(firstStep[v], lastStep[v])});
        }
        p->m_plan = planMemory(buffers);
        p->m_arena = DeviceMemory(p->m_plan.arenaBytes);
        if (p->m_scratchBytes > 0)
            p->m_scratch = DeviceMemory(p->m_scratchBytes);
    } catch (const std::exception &e) {
        return makeError("cuda-failed", std::string("setting up device memory: ") + e.what(), model.sourcePath);
    }
    for (std::size_t v = 0; v < lastReader.size(); ++v)
        if (lastReader[v] >= 0 && lastReader[v] < static_cast<int>(end))
            p->m_steps[static_cast<std::size_t>(lastReader[v])].releaseAfter.push_back(static_cast<int>(v));
    return p;
}

void *CudaProfile::deviceAddress(int v) const
{
    const Value &value = m_values[static_cast<std::size_t>(v)];
    if (value.fixed)
        return value.fixed;
    if (value.aliasOf >= 0)
        return deviceAddress(value.aliasOf);
    return static_cast<std::byte *>(m_arena.data()) + m_plan.offsets[static_cast<std::size_t>(value.buffer)];
}

void *CudaProfile::onDevice(int v)
{
    Value &value = m_values[static_cast<std::size_t>(v)];
    void *address = deviceAddress(v);
    if (value.fixed || value.deviceValid)
        return address;
    if (value.aliasOf >= 0) {
        onDevice(value.aliasOf); // a view is valid where its root is
        value.deviceValid = true;
        return address;
    }
    // a host twin goes up from its original's host copy, in its own storage
    const RuntimeValue &host = value.hostTwinOf >= 0 ? onHost(value.hostTwinOf) : value.host;
    if ((value.hostTwinOf < 0 && !value.hostValid) || !host.isTensor())
        throw CudaError("value '" + m_model.value(value.id).name + "' is on neither side");
    // fp16/bf16 storage: rounded on the host, then sent at half the bytes. Waited for: CUDA does not
    // promise that a copy from pageable memory has read it on return, and both the rounded temporary
    // and a host copy released after its last reader may go right after.
    const Tensor t = stored(host.tensor, value.storage);
    if (t.byteSize() != deviceBytes(value))
        throw CudaError("value '" + m_model.value(value.id).name + "' is " + shapeString(t.shape()) + ", but the profile planned " +
                        shapeString(*value.shape));
    if (t.byteSize() > 0) { // an empty value may have no address on either side
        checkCuda(cudaMemcpyAsync(address, t.rawData(), t.byteSize(), cudaMemcpyHostToDevice, streamOf(m_device)), "upload");
        checkCuda(cudaStreamSynchronize(streamOf(m_device)), "waiting for an upload");
    }
    m_transfers.uploadBytes += t.byteSize();
    ++m_transfers.uploads;
    value.deviceValid = true;
    return address;
}

const RuntimeValue &CudaProfile::onHost(int v)
{
    Value &value = m_values[static_cast<std::size_t>(v)];
    if (value.hostValid)
        return value.host;
    if (value.constant) {
        value.host = RuntimeValue::ofTensor(*value.constant);
        value.hostValid = true;
        return value.host;
    }
    if (!value.deviceValid && value.aliasOf < 0)
        throw CudaError("value '" + m_model.value(value.id).name + "' is on neither side");
    Tensor t = Tensor::uninitialized(storedType(value.dataType, value.storage), *value.shape);
    if (t.byteSize() > 0) {
        checkCuda(cudaMemcpyAsync(const_cast<std::byte *>(t.rawData()), deviceAddress(v), t.byteSize(), cudaMemcpyDeviceToHost,
                                  streamOf(m_device)),
                  "download");
        checkCuda(cudaStreamSynchronize(streamOf(m_device)), "waiting for a download");
    }
    m_transfers.downloadBytes += t.byteSize();
    ++m_transfers.downloads;
    value.host = RuntimeValue::ofTensor(t.dataType() == value.dataType ? std::move(t) : kernels::convertTensor(t, value.dataType));
    value.hostValid = true;
    return value.host;
}

std::vector<ObservedDownloads::Output> CudaProfile::observedOutputs(const Step &step, const ir::Node &node,
                                                                   const RunObserver &observer)
{
    std::vector<ObservedDownloads::Output> outputs(step.outputs.size());
    for (std::size_t k = 0; k < step.outputs.size(); ++k) {
        const int v = step.outputs[k];
        if (v < 0 || !observer.wantsOutput(node, k))
            continue;
        const Value &value = m_values[static_cast<std::size_t>(v)];
        ObservedDownloads::Output &output = outputs[k];
        // a value the host needs anyway (a graph output, a fallback's input) comes down once, now
        if (value.hostValid || value.readOnHost || !value.shape || (!value.deviceValid && value.aliasOf < 0)) {
            output.ready = onHost(v);
            continue;
        }
        output.device = deviceAddress(v);
        output.storedType = storedType(value.dataType, value.storage);
        output.dataType = value.dataType;
        output.shape = *value.shape;
    }
    return outputs;
}

void CudaProfile::enqueue(Step &step)
{
    for (const auto &[from, to] : step.conversions) {
        Value &target = m_values[static_cast<std::size_t>(to)];
        launchConvertStorage(m_values[static_cast<std::size_t>(from)].storage, target.storage, onDevice(from), deviceAddress(to),
                             elementCount(*target.shape), m_device.context.multiprocessors, m_device.context.stream);
        target.deviceValid = true;
    }
    std::vector<DeviceTensor> inputs, outputs;
    for (std::size_t k = 0; k < step.inputs.size(); ++k) {
        DeviceTensor t;
        if (const int v = step.inputs[k]; v >= 0 && step.kernel->readsInput(k)) {
            const Value &value = m_values[static_cast<std::size_t>(v)];
            t = {onDevice(v), value.dataType, *value.shape};
        }
        inputs.push_back(std::move(t));
    }
    for (const int v : step.outputs) {
        DeviceTensor t;
        if (v >= 0) {
            const Value &value = m_values[static_cast<std::size_t>(v)];
            t = {deviceAddress(v), value.dataType, *value.shape};
        }
        outputs.push_back(std::move(t));
    }
    CudaContext context = m_device.context;
    context.scratch = m_scratch.data();
    step.kernel->enqueue(inputs, outputs, context);
    checkCuda(cudaGetLastError(), "launching the kernel");
    for (const int v : step.outputs)
        if (v >= 0)
            m_values[static_cast<std::size_t>(v)].deviceValid = true;
}

NamedValues CudaProfile::downloadOutputs()
{
    NamedValues results;
    const ir::Graph &main = m_model.graph(m_model.mainGraph());
    for (std::size_t i = 0; i < m_outputValues.size(); ++i)
        results.emplace_back(m_model.value(main.outputs[i]).name, onHost(m_outputValues[i]));
    checkCuda(cudaStreamSynchronize(streamOf(m_device)), "finishing the run");
    for (Value &value : m_values) // drop the feeds and host copies
        value.host = RuntimeValue{};
    return results;
}

support::Expected<NamedValues> CudaProfile::runAsGraph()
{
    const auto stream = streamOf(m_device);
    try {
        // the feeds go up first, into the arena places the graph reads them from (uploads wait on the
        // host, so they cannot be captured)
        for (const int v : m_inputValues)
            if (m_values[static_cast<std::size_t>(v)].onDevice && m_values[static_cast<std::size_t>(v)].hostValid)
                onDevice(v);
        for (const Step &step : m_steps)
            for (const auto &[from, to] : step.uploads)
                onDevice(to);
        if (!m_graph) {
            checkCuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
            try {
                for (Step &step : m_steps)
                    if (step.kernel)
                        enqueue(step);
            } catch (...) {
                cudaGraph_t broken = nullptr;
                cudaStreamEndCapture(stream, &broken); // leaves capture mode
                if (broken)
                    cudaGraphDestroy(broken);
                throw;
            }
            cudaGraph_t graph = nullptr;
            checkCuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
            cudaGraphExec_t exec = nullptr;
            const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
            cudaGraphDestroy(graph);
            checkCuda(instantiated, "cudaGraphInstantiate");
            m_graph = exec;
        } else {
            for (Step &step : m_steps) { // what the graph computes is on the device once it has run
                for (const int v : step.outputs)
                    if (step.kernel && v >= 0)
                        m_values[static_cast<std::size_t>(v)].deviceValid = true;
                for (const auto &[from, to] : step.conversions)
                    m_values[static_cast<std::size_t>(to)].deviceValid = true;
            }
        }
        checkCuda(cudaGraphLaunch(static_cast<cudaGraphExec_t>(m_graph), stream), "cudaGraphLaunch");
        NamedValues results = downloadOutputs();
        m_lastRunWasGraph = true;
        return results;
    } catch (const std::exception &e) { // the profile runs step by step from now on
        m_whyNoGraph = e.what();
        cudaGetLastError();
        return makeError("cuda-graph", std::string("running the profile as a CUDA Graph: ") + e.what(), m_model.sourcePath);
    }
}

support::Expected<NamedValues> CudaProfile::run(const std::vector<const RuntimeValue *> &feeds, const RunOptions &options,
                                                Interpreter &reference, bool profile)
{
    const auto start = [&] { // nothing anywhere but the feeds, on the host
        m_transfers = {};
        for (Value &value : m_values) {
            value.host = RuntimeValue{};
            value.hostValid = value.deviceValid = false;
        }
        for (std::size_t i = 0; i < m_inputValues.size(); ++i) {
            Value &value = m_values[static_cast<std::size_t>(m_inputValues[i])];
            if (i < feeds.size() && feeds[i]) {
                value.host = *feeds[i];
                value.hostValid = true;
            }
        }
    };
    start();
    m_lastRunWasGraph = false;
    // from the second run on, a profile wholly on the device replays as one CUDA Graph
    if (m_allOnDevice && !options.observer && !profile && m_completedRuns > 0 && m_whyNoGraph.empty()) {
        if (auto replayed = runAsGraph()) {
            ++m_completedRuns;
            return replayed;
        }
        start(); // capture failed (m_whyNoGraph says why): step by step, from scratch
    }
    std::optional<ObservedDownloads> observed;
    if (options.observer)
        observed.emplace(*options.observer, streamOf(m_device), m_observedStaging, options.observerBatchBytes, m_transfers);
    std::vector<double> hostMilliseconds(m_steps.size(), 0);
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        Step &step = m_steps[i];
        if (options.cancel && options.cancel->load())
            return makeError("cancelled", "the run was cancelled", m_model.sourcePath);
        const ir::Node &node = m_model.node(step.node);
        try {
            if (step.precomputed) {
                for (const int v : step.outputs)
                    if (v >= 0)
                        onHost(v);
            } else if (step.kernel) {
                if (profile && !step.started) {
                    checkCuda(cudaEventCreate(&step.started), "cudaEventCreate");
                    checkCuda(cudaEventCreate(&step.finished), "cudaEventCreate");
                }
                // inputs that must go up first do so before the node's timed span opens (converted ones
                // are made from theirs in it)
                for (const auto &[from, to] : step.conversions)
                    onDevice(from);
                for (std::size_t k = 0; k < step.inputs.size(); ++k)
                    if (const int v = step.inputs[k]; v >= 0 && step.kernel->readsInput(k) && !m_values[static_cast<std::size_t>(v)].converted)
                        onDevice(v);
                if (profile)
                    checkCuda(cudaEventRecord(step.started, streamOf(m_device)), "cudaEventRecord");
                enqueue(step);
                if (profile)
                    checkCuda(cudaEventRecord(step.finished, streamOf(m_device)), "cudaEventRecord");
            } else {
                std::vector<const RuntimeValue *> in;
                for (const int v : step.inputs)
                    in.push_back(v >= 0 ? &onHost(v) : nullptr);
                RuntimeValue quantized[2];
                if (step.int8OnHost)
                    for (std::size_t k = 0; k < 2 && k < in.size(); ++k) {
                        if (!in[k] || !in[k]->isTensor() || in[k]->tensor.dataType() != onnx::TensorProto::FLOAT)
                            continue;
                        Tensor q = step.int8OnHost->constants[k].defined() ? step.int8OnHost->constants[k] : in[k]->tensor.clone();
                        if (!step.int8OnHost->constants[k].defined())
                            fakeQuantize(q, step.int8OnHost->scales[k]);
                        quantized[k] = RuntimeValue::ofTensor(std::move(q));
                        in[k] = &quantized[k];
                    }
                std::unordered_map<std::uint32_t, RuntimeValue> captured;
                for (const auto &[id, v] : step.captured)
                    captured[id.index] = onHost(v);
                const auto start = std::chrono::steady_clock::now();
                auto produced = reference.runNode(node, in, captured, options);
                hostMilliseconds[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                if (!produced)
                    return produced.takeError();
                for (std::size_t k = 0; k < step.outputs.size() && k < produced->size(); ++k) {
                    const int v = step.outputs[k];
                    if (v < 0)
                        continue;
                    Value &value = m_values[static_cast<std::size_t>(v)];
                    RuntimeValue &result = (*produced)[k];
                    if (value.onDevice && value.shape && (!result.isTensor() || result.tensor.shape() != *value.shape))
                        return makeError("shape-mismatch", "output '" + m_model.value(value.id).name + "' is " + result.describe() +
                                                               ", but shape inference planned " + shapeString(*value.shape),
                                         m_model.sourcePath, displayName(node));
                    value.host = std::move(result);
                    value.hostValid = true;
                }
            }
            if (observed && node.graph == m_model.mainGraph())
                observed->add(node, observedOutputs(step, node, *options.observer));
        } catch (const std::exception &e) { // CudaError, or an allocation that failed
            return makeError("cuda-failed", (step.kernel ? step.kernel->implementation() : std::string("cpu-fallback")) + ": " + e.what(),
                             m_model.sourcePath, displayName(node));
        }
        // host copies past their last reader go (an upload from pageable memory has taken its bytes by
        // the time cudaMemcpyAsync returns); device buffers are the plan's to reuse
        for (const int v : step.releaseAfter) {
            Value &value = m_values[static_cast<std::size_t>(v)];
            value.host = RuntimeValue{};
            value.hostValid = false;
        }
    }
    NamedValues results;
    try {
        if (observed)
            observed->flush();
        results = downloadOutputs();
    } catch (const std::exception &e) {
        return makeError("cuda-failed", e.what(), m_model.sourcePath);
    }
    ++m_completedRuns;
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        CudaNodeProfile &node = m_nodes[i];
        const Step &step = m_steps[i];
        if (step.kernel) // a kernel may have changed course on its first run (a fusion cuDNN declined)
            node.implementation = step.kernel->implementation();
        if (!profile || step.precomputed)
            continue;
        float ms = static_cast<float>(hostMilliseconds[i]);
        if (step.kernel)
            cudaEventElapsedTime(&ms, step.started, step.finished);
        node.milliseconds += ms;
        ++node.runs;
    }
    return results;
}

} // namespace portolan::runtime::cuda
