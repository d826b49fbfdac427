// What the GUI's compare panel asks the workbench for, and what it gets back: the reference
// interpreter against the compiled CPU executor at a precision, or against another runtime (its
// imported tensors, or a command that runs it), tensor by tensor.
#pragma once

#include "compare/Divergence.h"
#include "compare/KernelCheck.h"
#include "compare/RunComparison.h"
#include "passes/PassManager.h"
#include "runtime/AcceleratorProfile.h"
#include "runtime/Feeds.h"
#include "runtime/Tensor.h"
#include "runtime/cpu/CpuExecutor.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::session {

struct ComparisonRequest {
    /// Run A: the reference interpreter on the model as loaded, or "cpu:PRECISION" (fp32, fp16,
    /// bf16) — the compiled executor after the same pipeline as B, which must then be compiled too
    /// (fp32 against fp16 tells precision apart from kernels).
    std::string sideA = "reference";
    std::string pipeline = "-O2";       ///< what B is compiled with ("-O1"…"-O3" or pipeline text)
    std::string precision = "fp32";     ///< B's precision: fp32, fp16, bf16 or int8
    /// B's executor when B is compiled: "cpu", or a plugged one ("cuda": runtime/ExecutorRegistry.h,
    /// fp32/fp16/bf16; the comparison says so when this build or machine has none).
    std::string executorB = "cpu";
    std::string calibration = "random:8"; ///< int8: a folder of test_data_set_N or random:N[:SEED]
    /// When set, B is another runtime's tensors instead of the compiled executor: a folder of .pb or
    /// .npy files, an .npz, or Polygraphy's --save-outputs .json[#RUNNER] (pipeline and precision unused).
    std::string importFrom;
    /// When set, B is another runtime run as a command on the model file as loaded:
    /// "CMD {model} {inputs} {outputs}" (compare::ExternalCommand), killed past externalTimeout seconds.
    std::string externalCommand;
    double externalTimeout = 600;
    /// The inputs: a test set, files by input name, and random values by the seed rule
    /// (runtime/Feeds.h) for the rest; `feeds.shapes` also shapes int8's random calibration batches.
    runtime::FeedSpec feeds{.seed = runtime::kDefaultSeed};
    std::optional<compare::Tolerance> tolerance;  ///< default: the precision's
    bool kernelCheck = true;            ///< re-run failing suspects alone on the reference kernels
    /// Set (from any thread) to stop the runs: compare() then fails with "cancelled".
    std::shared_ptr<std::atomic<bool>> cancel;
    /// When set, compare() keeps it at the permille of both runs done (for a progress bar).
    std::shared_ptr<std::atomic<int>> progress;

    /// True when B is the compiled executor, not another runtime's tensors or command.
    bool compiledB() const { return importFrom.empty() && externalCommand.empty(); }
    /// The tolerance asked for, else the precision's default (fp32's for another runtime).
    compare::Tolerance effectiveTolerance() const
    {
        return tolerance.value_or(compare::defaultTolerance(compiledB() ? precision : "fp32"));
    }
    /// "cpu:fp16", "cuda:bf16", "import:PATH" or "external:CMD …".
    std::string sideLabel() const
    {
        return !importFrom.empty()          ? "import:" + importFrom
               : !externalCommand.empty()   ? "external:" + externalCommand
                                            : executorB + ":" + precision;
    }
};

/// Everything a comparison produced. Suspects and the first divergence point into `result`: keep
/// the outcome where it was made (it is handed out as a shared_ptr).
struct ComparisonOutcome {
    ComparisonRequest request;
    std::shared_ptr<const passes::CompileResult> compiled; ///< B's model and the provenance
    compare::ComparisonResult result;
    std::vector<compare::Suspect> suspects;                ///< ranked, most suspect first
    std::vector<compare::Suspect> failingSuspects;         ///< the ones out of tolerance
    std::vector<compare::KernelCheck> kernelChecks;        ///< one per failing suspect
    const compare::ComparedTensor *firstDivergence = nullptr;
    std::optional<runtime::cpu::ProfileFigures> figures;   ///< B's compiled profile: arena, weights, FLOPs, fallbacks
    std::optional<runtime::AcceleratorProfile> accelerator; ///< B's, when it ran on a plugged executor that measures (the GPU)
    std::vector<std::string> unknownImported;              ///< imported tensors no value of the model is named

    ComparisonOutcome() = default;
    ComparisonOutcome(const ComparisonOutcome &) = delete;
    ComparisonOutcome &operator=(const ComparisonOutcome &) = delete;
};

} // namespace portolan::session
