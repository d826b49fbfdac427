// The executor contract every runtime meets — the reference interpreter, the compiled CPU executor,
// a plugged one (the CUDA executor): feeds in by input name, outputs back in graph-output order, an
// observer that sees every node's outputs, a memory cap and a cancel flag.
#pragma once

#include "ir/Model.h"
#include "runtime/AcceleratorProfile.h"
#include "runtime/PhysicalLayout.h"
#include "runtime/RuntimeValue.h"
#include "support/Expected.h"

#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace portolan::runtime {

using NamedValues = std::vector<std::pair<std::string, RuntimeValue>>;

/// Sees every node's outputs as they are produced (main graph and subgraphs). Copying a RuntimeValue
/// shares its storage, so an observer keeps a tensor alive cheaply.
class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void nodeFinished(const ir::Node &node, std::span<const RuntimeValue> outputs) = 0;
    /// False when the observer reads what it is handed only during nodeFinished and keeps none of it:
    /// an executor may then hand it views of memory it reuses later instead of copies.
    virtual bool keepsOutputs() const { return true; }
    /// False for an output the observer has no use for: an executor that has to copy, reorder or
    /// download a value to show it may hand an undefined tensor instead.
    virtual bool wantsOutput(const ir::Node &node, std::size_t k) const
    {
        (void)node;
        (void)k;
        return true;
    }
    /// True when the observer also reads outputs in an executor's own element order (a blocked
    /// layout): such an executor then calls nodeFinishedInLayouts instead, and saves a reorder.
    virtual bool readsPhysicalLayouts() const { return false; }
    /// layouts[k], when set, is the order of outputs[k]'s elements (the tensor has its logical shape).
    /// Called only on an observer that readsPhysicalLayouts().
    virtual void nodeFinishedInLayouts(const ir::Node &node, std::span<const RuntimeValue> outputs,
                                       std::span<const PhysicalLayout *const> layouts)
    {
        (void)layouts;
        nodeFinished(node, outputs);
    }
};

struct RunOptions {
    std::size_t maxMemoryBytes = 0;          ///< 0: defaultMaxMemory()
    const std::atomic<bool> *cancel = nullptr;
    RunObserver *observer = nullptr;
    /// An executor that downloads what the observer wants (a GPU's) gathers up to this many bytes
    /// before it waits for them and hands them over.
    std::size_t observerBatchBytes = std::size_t(64) << 20;
    std::int64_t maxLoopIterations = 10'000'000;
    /// Refuse feeds whose dims differ from the declared static dims (ONNX's test runner does not check;
    /// a few of its tests feed other shapes than their models declare).
    bool checkInputShapes = true;
};

/// Half of the machine's physical memory.
std::size_t defaultMaxMemory();

/// The feed of each main-graph input, in input order (nullptr for an initializer input left unfed),
/// after checking that every feed names an input, with its element type and static dims.
support::Expected<std::vector<const RuntimeValue *>> bindFeeds(const ir::Model &model, const NamedValues &feeds,
                                                              bool checkShapes);

/// Something that runs a model it was made for.
class Executor {
public:
    virtual ~Executor() = default;
    /// Fails listing every op it cannot run, before anything runs.
    virtual support::Status checkSupported() const = 0;
    /// Runs the main graph. `feeds` name every graph input that is not an initializer; outputs come
    /// back in graph-output order.
    virtual support::Expected<NamedValues> run(const NamedValues &feeds, const RunOptions &options = {}) = 0;
    /// Time every node of the following runs; off until asked (executors that time nothing ignore it).
    virtual void setProfiling(bool /*on*/) {}
    /// What an accelerator's executor measured of its last run (`withPeaks`: and the device's peaks,
    /// measured once); nothing for an executor that is not an accelerator's.
    virtual std::optional<AcceleratorProfile> acceleratorProfile(bool /*withPeaks*/) const { return std::nullopt; }
};

} // namespace portolan::runtime
