// Running a CUDA shape plan: a value lives where its readers need it — a CUDA step's outputs on the
// device, a fallback's on the host — and is copied to the other side only when a reader there asks,
// each copy counted; an all-device plan replays as one captured CUDA Graph.
#include "runtime/cuda/CudaShapePlanParts.h"

#include "ir/Type.h"
#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/ObservedDownloads.h"
#include "runtime/reference/Interpreter.h"
#include "runtime/Dispatch.h"

#include <algorithm>
#include <chrono>

namespace portolan::runtime::cuda {

using support::makeError;

void *CudaShapePlan::deviceAddress(int v) const
{
    const Value &value = m_values[static_cast<std::size_t>(v)];
    if (value.fixed)
        return value.fixed;
    if (value.aliasOf >= 0)
        return deviceAddress(value.aliasOf);
    return static_cast<std::byte *>(m_arena.data()) + m_plan.offsets[static_cast<std::size_t>(value.buffer)];
}

void *CudaShapePlan::onDevice(int v)
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
        throw CudaError("value '" + m_model.value(value.id).name + "' is " + shapeString(t.shape()) + ", but the shape plan planned " +
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

const RuntimeValue &CudaShapePlan::onHost(int v)
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

std::vector<ObservedDownloads::Output> CudaShapePlan::observedOutputs(const Step &step, const ir::Node &node,
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

void CudaShapePlan::enqueue(Step &step)
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

NamedValues CudaShapePlan::downloadOutputs()
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

support::Expected<NamedValues> CudaShapePlan::runAsGraph()
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
    } catch (const std::exception &e) { // the plan runs step by step from now on
        m_whyNoGraph = e.what();
        cudaGetLastError();
        return makeError("cuda-graph", std::string("running the shape plan as a CUDA Graph: ") + e.what(), m_model.sourcePath);
    }
}

support::Expected<NamedValues> CudaShapePlan::run(const std::vector<const RuntimeValue *> &feeds, const RunOptions &options,
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
    // from the second run on, a plan wholly on the device replays as one CUDA Graph
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
