// One shape plan of the CUDA executor (compiled for one set of input shapes): the main graph at one set of input shapes as a flat list
// of steps (a CUDA kernel, a view, or a CPU fallback per node), every value where its readers need it
// (device buffers planned in one arena, constants uploaded once, host copies made on demand).
#pragma once

#include "runtime/MemoryPlanner.h"
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/CudaExecutor.h"
#include "runtime/cuda/DeviceState.h"
#include "runtime/cuda/ObservedDownloads.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace portolan::runtime::cuda {

class CudaShapePlan {
public:
    /// Compiles `model`'s main graph for the given input dims; `constants` by value id (initializers,
    /// Constant nodes' outputs and folded nodes' outputs, runtime/reference/ModelConstants.h: uploaded once, their
    /// nodes run nothing). Fails naming every node without a kernel when fallback is off.
    static support::Expected<std::unique_ptr<CudaShapePlan>> compile(const ir::Model &model,
                                                                   const std::map<std::string, Shape> &inputShapes,
                                                                   const std::unordered_map<std::uint32_t, Tensor> &constants,
                                                                   const CudaExecutorOptions &options, DeviceState &device);
    ~CudaShapePlan();

    /// Runs on `feeds` (per main-graph input, as bindFeeds gives them).
    support::Expected<NamedValues> run(const std::vector<const RuntimeValue *> &feeds, const RunOptions &options,
                                       Interpreter &reference, bool profile);

    const std::vector<CudaNodeProfile> &nodes() const { return m_nodes; }
    /// Whether the last run replayed the plan as a CUDA Graph; why not, when it could not.
    bool lastRunWasGraph() const { return m_lastRunWasGraph; }
    const std::string &whyNoGraph() const { return m_whyNoGraph; }
    const TransferFigures &transfers() const { return m_transfers; }
    const MemoryPlan &memoryPlan() const { return m_plan; }
    std::size_t weightBytes() const { return m_weightBytes; }

private:
    struct Value;
    struct HostInt8;
    struct Step;
    class Setup;
    CudaShapePlan(const ir::Model &model, DeviceState &device, Storage storage);

    /// Under int8, for a node the policy puts at int8: its int8 kernel in `step`, or where it has
    /// none, its operands' quantization on the host for the CPU fallback (`profile` says why); an
    /// error when the calibration lacks one of its operands. Other nodes: `profile` says why fp32.
    support::Status planInt8(const ir::Model &model, const NodeBinding &binding, bool allStatic, const PrecisionPolicy &policy,
                             DeviceSetup &setup, Step &step, CudaNodeProfile &profile);

    /// The run as one CUDA Graph launch (captured on the first call): feeds up, the graph, outputs
    /// down. For plans whose every node runs on the device, with no observer or profiling.
    support::Expected<NamedValues> runAsGraph();
    /// The step's tensors on the device, then its kernel enqueued.
    void enqueue(Step &step);
    /// The outputs to the host, once the stream is done.
    NamedValues downloadOutputs();
    /// The device address of value `v` (uploading its host copy first when the device has none).
    void *onDevice(int v);
    /// The host copy of value `v` (downloading it first when the host has none).
    const RuntimeValue &onHost(int v);
    /// What an observer is shown of the step's outputs: those it wants, as host values or device storage.
    std::vector<ObservedDownloads::Output> observedOutputs(const Step &step, const ir::Node &node, const RunObserver &observer);
    /// Device storage of `v`: its constant's, its view root's, or its place in the arena.
    void *deviceAddress(int v) const;
    /// The element type a tensor of `dataType` has on the device (float as the storage says).
    static int storedType(int dataType, Storage storage);
    /// `t` as the device stores it (rounded to fp16/bf16 where the storage says so).
    static Tensor stored(const Tensor &t, Storage storage);
    std::size_t deviceBytes(const Value &value) const;

    const ir::Model &m_model;
    DeviceState &m_device;
    Storage m_storage;
    std::vector<Value> m_values;
    std::vector<Step> m_steps;
    std::vector<int> m_inputValues, m_outputValues; ///< per main-graph input / output
    std::vector<CudaNodeProfile> m_nodes;
    std::vector<DeviceMemory> m_weights;
    std::size_t m_weightBytes = 0;
    MemoryPlan m_plan;
    DeviceMemory m_arena;
    std::size_t m_scratchBytes = 0; ///< the largest scratch a kernel reserved
    DeviceMemory m_scratch;
    TransferFigures m_transfers;
    PinnedBuffer m_observedStaging; ///< where an observer's tensors come down to, kept from run to run
    bool m_allOnDevice = true;     ///< no CPU fallback among the steps
    std::uint64_t m_completedRuns = 0;
    void *m_graph = nullptr;       ///< cudaGraphExec_t, after the first replay
    bool m_lastRunWasGraph = false;
    std::string m_whyNoGraph;      ///< set when capture failed: the plan then runs step by step
};

} // namespace portolan::runtime::cuda
