// What a shape plan is made of — a slot per value, a step per node — shared by compiling it
// (CompiledGraph.cpp) and running it (CompiledGraphRun.cpp). Internal to the CPU executor.
#pragma once

#include "runtime/cpu/CompiledGraph.h"
#include "runtime/cpu/CpuKernel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace portolan::runtime::cpu {

struct CompiledGraph::Slot {
    enum class Kind { Input, Constant, Planned, Alias, Dynamic };
    Kind kind = Kind::Dynamic;
    ir::ValueId value;
    int dataType = 0;
    std::optional<Shape> shape; ///< known at compile time
    int buffer = -1;            ///< Planned: index into the memory plan
    int aliasOf = -1;           ///< Alias: the slot whose bytes it views
    int lastReader = -1;        ///< step index; INT_MAX for graph outputs
    RuntimeValue current;       ///< the value during a run (Planned: the arena view, set once)
    Precision storedAs = Precision::Fp32; ///< the precision its float values are rounded to
    /// Planned: the blocked layout its buffer holds, when every writer and reader shares one.
    std::optional<dnnl::memory::desc> nativeLayout;
    /// nativeLayout as an element order, when it is dense: what an observer reading layouts is handed.
    std::optional<PhysicalLayout> physicalLayout;
};

struct CompiledGraph::Step {
    ir::NodeId node;
    std::unique_ptr<CpuKernel> kernel; ///< nullptr: the reference kernel
    std::vector<int> inputs, outputs;  ///< slots; -1 for omitted ones
    std::vector<int> releaseAfter;     ///< slots this step reads last
    bool precomputed = false;          ///< a Constant node, or one folded, evaluated when the executor was made
    std::vector<std::pair<ir::ValueId, int>> captured; ///< outer values its subgraphs read, and their slots
    /// An activation input lowered on the way in: rounded to fp16/bf16, or quantized at `scale`.
    struct InputCast {
        std::size_t input;
        Precision to;
        float scale;
    };
    std::vector<InputCast> casts;
    Precision precision = Precision::Fp32;
    bool roundOutputs = false; ///< fp16/bf16: float outputs are stored rounded
};

} // namespace portolan::runtime::cpu
