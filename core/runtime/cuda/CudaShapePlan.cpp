// Compiling a CUDA shape plan (see CudaShapePlan.h): shapes at the plan's dims, each node bound to a
// CUDA kernel or left to the host's reference kernel, device memory planned, weights uploaded.
// Running it: CudaShapePlanRun.cpp.
#include "runtime/cuda/CudaShapePlanParts.h"

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


CudaShapePlan::CudaShapePlan(const ir::Model &model, DeviceState &device, Storage storage)
    : m_model(model), m_device(device), m_storage(storage)
{
}

int CudaShapePlan::storedType(int dataType, Storage storage)
{
    if (dataType != onnx::TensorProto::FLOAT || storage == Storage::F32)
        return dataType;
    return storage == Storage::F16 ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::BFLOAT16;
}

Tensor CudaShapePlan::stored(const Tensor &t, Storage storage)
{
    const int type = storedType(t.dataType(), storage);
    return type == t.dataType() ? t : kernels::convertTensor(t, type);
}

std::size_t CudaShapePlan::deviceBytes(const Value &value) const
{
    return value.shape ? static_cast<std::size_t>(elementCount(*value.shape)) * ir::dataTypeSize(storedType(value.dataType, value.storage)) : 0;
}

CudaShapePlan::~CudaShapePlan()
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

support::Status CudaShapePlan::planInt8(const ir::Model &model, const NodeBinding &binding, bool allStatic,
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

support::Expected<std::unique_ptr<CudaShapePlan>> CudaShapePlan::compile(const ir::Model &model,
                                                                     const std::map<std::string, Shape> &inputShapes,
                                                                     const std::unordered_map<std::uint32_t, Tensor> &constants,
                                                                     const CudaExecutorOptions &options, DeviceState &device)
{
    std::unique_ptr<CudaShapePlan> p(new CudaShapePlan(model, device, options.precision == "fp16"   ? Storage::F16
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

} // namespace portolan::runtime::cuda
