// The compiled CPU executor: runs a (usually optimized) model on native kernels — oneDNN
// convolutions, matrix products and pooling with fused post-ops, zero-copy views — and on the
// reference kernels for everything else. Each distinct set of input shapes is compiled once into a
// CompiledGraph and cached.
#pragma once

#include "runtime/cpu/CompiledGraph.h"
#include "runtime/reference/Interpreter.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace portolan::runtime::cpu {

struct ExecutorStats {
    std::size_t shapePlansCompiled = 0; ///< shape plans compiled (one per distinct set of input shapes)
    std::size_t cacheHits = 0;        ///< runs that reused a shape plan
    double compileSeconds = 0;
};

/// What the last run's shape plan costs: the port report's speed-and-memory figures.
struct PlanFigures {
    std::uint64_t arenaBytes = 0, weightBytes = 0, flops = 0;
    std::map<std::string, int> fallbacks; ///< op type → nodes left on reference kernels
};

class CpuExecutor final : public Executor {
public:
    explicit CpuExecutor(const ir::Model &model, CompileOptions options = {});
    ~CpuExecutor() override;

    /// Fails listing every op with neither a native nor a reference kernel (without fallback: every
    /// op with no native kernel), so a model is refused before anything runs.
    support::Status checkSupported() const override;

    /// Runs the main graph, compiling a shape plan for the feeds' shapes first if none matches.
    support::Expected<NamedValues> run(const NamedValues &feeds, const RunOptions &options = {}) override;

    /// Time every node of the following runs (NodeProfile::seconds).
    void setProfiling(bool on) override { m_profiling = on; }
    const ExecutorStats &stats() const { return m_stats; }
    const CompileOptions &options() const { return m_options; }
    /// The shape plan the last run used, or nullptr before the first run.
    const CompiledGraph *lastPlan() const { return m_last; }
    /// Bytes of the model's initializers (what the weights cost, beside the arena).
    std::size_t weightBytes() const { return m_weightBytes; }
    /// The last run's shape plan in figures; nullopt before the first run.
    std::optional<PlanFigures> lastFigures() const;

private:
    const ir::Model &m_model;
    CompileOptions m_options;
    Interpreter m_reference;
    std::unordered_map<std::uint32_t, Tensor> m_constants;
    std::size_t m_weightBytes = 0;
    std::map<std::string, std::unique_ptr<CompiledGraph>> m_plans; // by input-shape signature
    const CompiledGraph *m_last = nullptr;
    ExecutorStats m_stats;
    bool m_profiling = false;
};

} // namespace portolan::runtime::cpu
