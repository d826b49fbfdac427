// The reference interpreter: runs a model node by node in topological order on the reference kernels,
// accurate first. Intermediates are released after their last use unless an observer keeps them.
#pragma once

#include "ir/Model.h"
#include "runtime/Executor.h"
#include "runtime/KernelContext.h"
#include "support/Expected.h"

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace portolan::runtime {

struct RunStats {
    std::size_t nodesRun = 0;
    std::size_t peakBytes = 0;
};

class Interpreter final : public Executor {
public:
    explicit Interpreter(const ir::Model &model);
    ~Interpreter() override;

    /// Fails listing every op (with its domain and opset) that has no reference kernel.
    support::Status checkSupported() const override;

    /// Runs the main graph. `feeds` name every graph input that is not an initializer; outputs come
    /// back in graph-output order.
    support::Expected<NamedValues> run(const NamedValues &feeds, const RunOptions &options = {}) override;

    /// Runs one node of the model on its reference kernel with the given inputs (nullptr for an
    /// omitted one). `captured` holds the outer-scope values its subgraphs read, by value id
    /// (ir::capturedValues). The compiled executor's fallback, and how a divergence is re-checked.
    support::Expected<std::vector<RuntimeValue>> runNode(const ir::Node &node, std::vector<const RuntimeValue *> inputs,
                                                         const std::unordered_map<std::uint32_t, RuntimeValue> &captured,
                                                         const RunOptions &options = {});

    const RunStats &lastStats() const { return m_stats; }

private:
    class Execution;
    const ir::Model &m_model;
    RunStats m_stats;
    std::unordered_map<std::uint32_t, RuntimeValue> m_constants; // initializers, converted once per interpreter
};

} // namespace portolan::runtime
