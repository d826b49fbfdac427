// Comparing two runs of one model tensor by tensor, without marking every tensor an output: run A
// keeps the tensors B will be compared at (in memory up to a budget, spilled to disk past it), run
// B computes each tensor's metrics as it is produced and lets A's copy go. Tensors are aligned
// through pass provenance (a fused node's output is the original chain's last output) or by name.
#pragma once

#include "compare/TensorMetrics.h"
#include "compare/Verdict.h"
#include "ir/Model.h"
#include "passes/RewriteRecord.h"
#include "runtime/reference/Interpreter.h"
#include "support/Expected.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace portolan::compare {

/// One side of a comparison: the model it runs and how.
struct RunSide {
    std::string label; ///< "reference", "cpu:fp16"…
    const ir::Model *model = nullptr;
    std::function<support::Expected<runtime::NamedValues>(const runtime::NamedValues &, const runtime::RunOptions &)> run;
    /// Runs another model (a repro cut from this side's) the way this side runs its own: the same
    /// executor and precision. Empty for a side that cannot (an imported run).
    std::function<support::Expected<runtime::NamedValues>(const ir::Model &, const runtime::NamedValues &)> runModel = {};

    /// Makes the same kind of executor, set up the same way, for another model.
    using Remake = std::function<support::Expected<std::unique_ptr<runtime::Executor>>(const ir::Model &)>;
    /// The side `executor` runs over `model` (the side keeps the executor alive); `remake`, when
    /// given, is how it runs a model other than its own.
    static RunSide of(std::string label, const ir::Model &model, std::shared_ptr<runtime::Executor> executor, Remake remake = {});
};

/// A node as reports name it: its name, or "(OpType)" when it has none.
std::string displayNameOf(const ir::Node &node);
/// The producer of a compared tensor with its op, "/enc/Mul_3 (Mul)", or its name alone where that
/// already ends in the op ("/enc/norm1/SkipLayerNormalization", a fused node's).
std::string producerWithOp(const std::string &node, const std::string &opType);

/// Which value of B is which value of A (main graphs).
using Alignment = std::unordered_map<ir::ValueId, ir::ValueId>; // B → A

/// B is `a` after passes: each B value that computes an original value (itself, or a replacement
/// the passes equated with it) is aligned with it.
Alignment alignByProvenance(const ir::Model &a, const ir::Model &b, const passes::Provenance &provenance);
/// Values of the same name.
Alignment alignByName(const ir::Model &a, const ir::Model &b);

struct ComparisonOptions {
    /// What the runs' precision explains: the default tolerances (growing with each tensor's rounding
    /// depth in A) and the error past which a tensor is a bug rather than drift.
    PrecisionModel precision;
    DriftCriteria criteria;
    std::optional<Tolerance> tolerance;         ///< every tensor's, instead of the precision's defaults
    double quantile = 1;                        ///< Tolerance::quantile of those (overrides keep their own)
    bool allowDrift = true;                     ///< false: whatever is out of tolerance is a bug
    std::map<std::string, Tolerance> overrides; ///< by A's tensor name
    std::size_t memoryBudget = 0;               ///< bytes of A's tensors held in memory; 0: a quarter of RAM
    double epsilon = 1e-8;
    const std::atomic<bool> *cancel = nullptr; ///< set from another thread: the runs stop with "cancelled"
    /// When set, kept at the permille of both runs' main-graph nodes finished, for a progress bar
    /// another thread reads; 1000 once both runs are done.
    std::atomic<int> *progress = nullptr;
};

struct ComparedTensor {
    std::string name;      ///< A's name
    std::string nameInB;
    ir::ValueId inA, inB;
    std::string node;      ///< B's producer, by display name
    std::string opType;    ///< B's producer's op
    bool output = false;   ///< a graph output of B
    int depth = 0;         ///< rounding steps from the inputs to A's value (compare/RoundingDepth.h)
    Tolerance tolerance;
    double explainedError = 0; ///< the error over the scale that the precision explains at this depth (0: no drift allowed)
    TensorMetrics metrics;
    Verdict verdict = Verdict::Bug;
    std::string verdictWhy;

    /// Not equivalent: out of tolerance, or not comparable.
    bool failed() const { return verdict != Verdict::Equivalent; }
};

struct ComparisonResult {
    std::string labelA, labelB;
    std::vector<ComparedTensor> tensors; ///< in the order B produced them
    std::size_t alignedValues = 0;       ///< B values with an A counterpart
    std::vector<std::string> notCompared; ///< aligned values neither run produced, with why
    std::size_t peakHeldBytes = 0, spilledBytes = 0;
    double secondsA = 0, secondsB = 0;

    /// The graph outputs, in B's output order.
    std::vector<const ComparedTensor *> outputs() const;
    bool outputsPassed() const;
    /// The worst verdict among the outputs (equivalent when there are none).
    Verdict outputsVerdict() const;
};

/// Runs A then B on `feeds` and compares every aligned tensor. Fails when either run fails, or when
/// nothing at all could be compared.
support::Expected<ComparisonResult> compareRuns(const RunSide &a, const RunSide &b, const Alignment &alignment,
                                                const runtime::NamedValues &feeds, const ComparisonOptions &options);

} // namespace portolan::compare
