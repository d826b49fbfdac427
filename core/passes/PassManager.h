// Runs a pipeline over a copy of a model with MLIR-style instrumentation: timing and statistics per
// pass, verify-each, snapshots, print-after(-change) dumps, stop-after-N, and a numeric check of
// every pass on the reference interpreter (bisected to the rewrite that broke the numbers).
#pragma once

#include "runtime/Feeds.h"
#include "ir/Model.h"
#include "passes/Pipeline.h"
#include "passes/RewriteRecord.h"
#include "support/Diagnostic.h"
#include "support/Expected.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::passes {

struct PassManagerOptions {
    bool verifyEach = false;     ///< IR invariants + ONNX checker after every pass
    bool checkNumerics = false;  ///< run before/after each pass on the reference interpreter
    double atol = 1e-5;
    double rtol = 1e-5;
    std::uint64_t seed = runtime::kDefaultSeed; ///< the numeric check's random inputs (runtime/Feeds.h's rule)
    /// Dims for inputs with symbolic or unknown dims, by input name (others: 3, or 1 when 3 does not run).
    std::map<std::string, std::vector<std::int64_t>> inputShapes;
    std::string dumpDir;         ///< where dumps and reproducers go ("" for none)
    bool printAfterAll = false;
    bool printAfterChange = false;
    int stopAfter = -1;          ///< run only the first N passes (bisection); -1 for all
    bool snapshots = false;      ///< keep a copy of the model after every pass (GUI step/undo, diff)
    bool standardOnly = false;   ///< create no ai.portolan ops
};

/// The numeric effect of one pass: its outputs against the outputs before it.
struct NumericCheck {
    bool ran = false;
    std::string skippedReason;   ///< why it did not run (nothing changed, the model cannot run…)
    std::size_t comparedOutputs = 0;
    std::size_t comparedElements = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    std::string worstOutput;
    bool withinTolerance = true;
    /// When outside tolerance: the first rewrite that alone breaks it (bisected), as "pattern: detail".
    std::string culpritRewrite;
};

struct PassResult {
    std::string invocation;      ///< "fuse-layer-norm{max-epsilon=1e-3}"
    std::string name;
    double milliseconds = 0;
    bool changed = false;
    std::size_t nodesBefore = 0;
    std::size_t nodesAfter = 0;
    Statistics statistics;
    std::vector<RewriteRecord> rewrites;
    std::vector<MatchFailure> matchFailures;
    support::Diagnostics verifyFindings;
    NumericCheck numerics;
    std::shared_ptr<const ir::Model> snapshot; ///< the model after this pass, when asked for
};

struct CompileResult {
    std::shared_ptr<ir::Model> model;  ///< the optimized model
    Provenance provenance;
    std::vector<PassResult> passes;
    std::size_t skippedPasses = 0;     ///< passes not run because of stop-after
    std::shared_ptr<const ir::Model> input; ///< the model the pipeline started from
    /// With the numeric check: the final outputs against the input model's (errors of passes add up).
    NumericCheck overall;
};

/// Runs `pipeline` on a copy of `model`. A pass that fails, throws or breaks an invariant stops the
/// pipeline: the error names the pass and its last rewrite, `model` is untouched, and with a dump
/// directory a reproducer (the pass's input model and the pass) is written there.
support::Expected<CompileResult> runPipeline(const ir::Model &model, const Pipeline &pipeline,
                                             const PassManagerOptions &options);

} // namespace portolan::passes
