// One shape plan of a model (compiled for one set of input shapes): the main graph at one set of input shapes, as a flat list of
// steps (a native kernel or a reference fallback per node), each value in a slot, and the
// intermediates of the native kernels placed in one planned arena. Running it does no graph analysis.
#pragma once

#include "ir/Model.h"
#include "runtime/cpu/CpuKernel.h"
#include "runtime/MemoryPlanner.h"
#include "runtime/Precision.h"
#include "runtime/reference/Interpreter.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace portolan::runtime::cpu {

/// How one node runs in a shape plan, and what it cost.
struct NodeProfile {
    ir::NodeId node;
    std::string name;           ///< display name
    std::string opType;
    std::string implementation; ///< the native kernel's, or "reference"
    std::string whyFallback;    ///< for a reference fallback: why no native kernel applies
    std::string precision;      ///< what it computes at: "fp32", "fp16", "bf16", "int8"
    std::string whyPrecision;   ///< why not the policy's precision (kept fp32, data movement…)
    std::int64_t flops = 0;     ///< per run: 2 per multiply-add of its products (analysis/Flops.h)
    double seconds = 0;         ///< summed over the runs timed with profiling on
    std::uint64_t runs = 0;
};

struct CompileOptions {
    /// Run nodes without a native kernel on their reference kernel (false: such nodes fail the compile).
    bool allowFallback = true;
    PrecisionPolicy precision;
    /// Asked first for every node with static shapes: a kernel it returns runs the node in place of
    /// the table's (how a test plants a faulty kernel, or a port substitutes its own); nullptr
    /// leaves the choice to the table.
    std::function<std::unique_ptr<CpuKernel>(const NodeBinding &binding, std::string &whyNot)> kernelOverride;
};

class CompiledGraph {
public:
    /// Compiles `model`'s main graph for the given input dims (every non-initializer input).
    /// `constants` are the initializers as tensors, by value id; they must outlive the result.
    static support::Expected<std::unique_ptr<CompiledGraph>>
    compile(const ir::Model &model, const std::map<std::string, Shape> &inputShapes,
            const std::unordered_map<std::uint32_t, Tensor> &constants, const CompileOptions &options);
    ~CompiledGraph();

    /// Runs on `feeds` (bound per main-graph input, as bindFeeds gives them, at the compiled shapes).
    support::Expected<NamedValues> run(const std::vector<const RuntimeValue *> &feeds, const RunOptions &options,
                                       Interpreter &reference, bool profile);

    const MemoryPlan &memoryPlan() const { return m_plan; }
    /// Bytes the native kernels hold beyond the arena: packed weights, scratchpads, layout buffers.
    const std::vector<NodeProfile> &nodes() const { return m_profiles; }
    /// Floating-point operations of one run (the products; see analysis/Flops.h).
    std::int64_t flops() const;
    /// Values kept in a native kernel's blocked layout from writer to readers (no reorder between).
    std::size_t blockedValues() const { return m_blockedValues; }
    /// Peak bytes of the reference fallbacks' outputs alive at once, over the runs so far.
    std::size_t fallbackPeakBytes() const { return m_fallbackPeak; }

private:
    struct Slot;
    struct Step;
    CompiledGraph(const ir::Model &model);
    /// Keeps buffers in a blocked layout where all their writers and readers compute in it.
    template <typename Root, typename SlotFor>
    void keepBlockedLayouts(std::vector<BufferLifetime> &buffers, const Root &root, const SlotFor &slotFor);
    /// A slot's buffer as a flat tensor (all of a blocked layout's bytes, padding included).
    Tensor wholeBuffer(const Slot &slot) const;
    /// A row-major copy of a slot held in a blocked layout.
    Tensor rowMajorCopy(const Slot &slot) const;

    const ir::Model &m_model;
    std::vector<Slot> m_slots;
    std::vector<Step> m_steps;
    std::vector<int> m_inputSlots;  ///< per main-graph input
    std::vector<int> m_outputSlots; ///< per main-graph output
    std::vector<NodeProfile> m_profiles;
    MemoryPlan m_plan;
    std::shared_ptr<std::byte[]> m_arena;
    std::size_t m_fallbackPeak = 0;
    std::size_t m_blockedValues = 0;
};

} // namespace portolan::runtime::cpu
