// What `portolan compare` and the GUI's compare dock ask the workbench for, and what they get back:
// two runs of a model (the reference interpreter, a compiled executor at a precision, another
// runtime's tensors or a command that runs it), compared tensor by tensor.
#pragma once

#include "compare/Divergence.h"
#include "compare/KernelCheck.h"
#include "compare/RunComparison.h"
#include "passes/PassManager.h"
#include "runtime/AcceleratorProfile.h"
#include "runtime/Feeds.h"
#include "runtime/Tensor.h"
#include "runtime/cpu/CpuExecutor.h"
#include "session/SideSpec.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::session {

struct ComparisonRequest {
    /// Run A, compared against: the reference interpreter on the model as loaded by default; a
    /// compiled side runs after the same pipeline as B (fp32 against fp16 tells precision apart from kernels).
    SideSpec a = SideSpec::reference();
    /// Run B, checked: the compiled CPU executor at fp32 by default; a plugged executor ("cuda":
    /// runtime/ExecutorRegistry.h; the comparison says so when this build or machine has none), or
    /// another runtime's tensors or command, which run the model as loaded.
    SideSpec b = SideSpec::compiled("cpu", "fp32");
    std::string pipeline = "-O2"; ///< what compiled sides run after ("-O0"…"-O3" or pipeline text)
    LoweringSettings lowering;    ///< compiled sides' nodes kept at fp32, int8's calibration
    /// The inputs: a test set, files by input name, and random values by the seed rule
    /// (runtime/Feeds.h) for the rest; `feeds.shapes` also shapes int8's random calibration batches.
    runtime::FeedSpec feeds = [] {
        runtime::FeedSpec spec;
        spec.seed = runtime::kDefaultSeed;
        return spec;
    }();
    /// Every tensor's tolerance; by default each tensor gets the runs' precision's, grown with its
    /// depth and stated for its magnitude (compare/Tolerance.h).
    std::optional<compare::Tolerance> tolerance;
    double errorQuantile = 1; ///< the fraction of a tensor's elements that must be within (1: all of them)
    /// false: every tensor out of tolerance is a bug, however little past it (the tolerance alone
    /// decides, as in Polygraphy); true: up to what the precision explains, it is drift.
    bool allowDrift = true;
    std::map<std::string, compare::Tolerance> tensorTolerances; ///< by A's tensor name
    std::size_t memoryBudget = 0;  ///< bytes of A's tensors held before spilling; 0: a quarter of RAM
    std::size_t suspectLimit = 10; ///< how many suspects are ranked (and kernel-checked when failing)
    bool kernelCheck = true;       ///< re-run failing suspects alone on the reference kernels
    bool profileB = true;          ///< a plugged B measures where its time went (one more run)
    /// Set (from any thread) to stop the runs: compare() then fails with "cancelled".
    std::shared_ptr<std::atomic<bool>> cancel;
    /// When set, compare() keeps it at the permille of both runs done (for a progress bar).
    std::shared_ptr<std::atomic<int>> progress;

    /// Whether the model is compiled at all: a side is.
    bool compiles() const { return a.isCompiled() || b.isCompiled(); }
    /// What the runs' precision explains: the coarser of the compiled sides' (fp32 for the reference
    /// and another runtime).
    compare::PrecisionModel precisionModel() const
    {
        const auto of = [](const SideSpec &side) { return compare::PrecisionModel::of(side.isCompiled() ? side.precision : "fp32"); };
        return compare::PrecisionModel::coarser(of(a), of(b));
    }
    /// The tolerances as a header states them (compare::describeTolerances).
    std::string toleranceText() const
    {
        return compare::describeTolerances(tolerance, precisionModel(), errorQuantile, allowDrift);
    }
    /// The tolerance asked for, else the edge of what the precision explains at `depth` rounding
    /// steps: what checks of a cut-out part (repros) or of the outputs alone (the precision
    /// bisection) hold a run to, so that drift passes them and a bug does not.
    compare::Tolerance effectiveTolerance(int depth = 1) const
    {
        const compare::PrecisionModel precision = precisionModel();
        compare::Tolerance t = tolerance.value_or(allowDrift ? precision.explainedTolerance(depth) : precision.defaultTolerance(depth));
        t.quantile = errorQuantile;
        return t;
    }
};

/// Everything a comparison produced. Suspects and the first divergence point into `result`: keep
/// the outcome where it was made (it is handed out as a shared_ptr).
struct ComparisonOutcome {
    ComparisonRequest request;
    std::shared_ptr<const ir::Model> loaded;               ///< the model as loaded
    /// The compiled sides' model and the provenance; with no compiled side, a copy of the model
    /// through no passes (what B's repro and the canvas look at).
    std::shared_ptr<const passes::CompileResult> compiled;
    std::string pipelineLabel;                             ///< "-O2" or the pipeline text; "" with no compiled side
    const ir::Model *modelA = nullptr, *modelB = nullptr;  ///< what each side ran: `loaded` or compiled->model
    compare::ComparisonResult result;
    std::vector<compare::Suspect> suspects;                ///< ranked, most suspect first
    /// One per suspect out of tolerance (bug or drift), each re-run alone: a drift whose kernel
    /// differs past one rounding step was made a bug (compare::judgeOwnErrors).
    std::vector<compare::KernelCheck> kernelChecks;
    const compare::ComparedTensor *firstDivergence = nullptr;
    std::optional<runtime::cpu::PlanFigures> figures;   ///< B's compiled profile: arena, weights, FLOPs, fallbacks
    std::optional<runtime::AcceleratorProfile> accelerator; ///< B's, when it ran on a plugged executor that measures (the GPU)
    std::vector<std::string> unknownImported;              ///< imported tensors no value of the model is named

    ComparisonOutcome() = default;
    ComparisonOutcome(const ComparisonOutcome &) = delete;
    ComparisonOutcome &operator=(const ComparisonOutcome &) = delete;
};

} // namespace portolan::session
