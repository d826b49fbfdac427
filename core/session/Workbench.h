// The facade every client (CLI, GUI, tests) calls: one method per user-visible operation.
#pragma once

#include "analysis/ModelSummary.h"
#include "diagnose/DynamicShapes.h"
#include "diagnose/TargetCheck.h"
#include "ir/Model.h"
#include "ir/ModelLoader.h"
#include "passes/Pass.h"
#include "passes/PassManager.h"
#include "compare/PrecisionBisection.h"
#include "compare/Repro.h"
#include "conform/Conformance.h"
#include "session/Comparison.h"
#include "session/ModelRun.h"
#include "session/PortReportBuilder.h"
#include "support/Expected.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace portolan::session {

/// What `optimize` runs and where it writes.
struct OptimizeRequest {
    passes::Pipeline pipeline;
    passes::PassManagerOptions options;
    std::string outputPath;
    bool overwrite = false; ///< replace an existing output file
};

/// What `optimize` produced: the passes' result (model, provenance, numeric checks) and where the weights went.
struct OptimizeOutcome {
    passes::CompileResult optimized;
    std::string weightsPath; ///< the external data file written beside the output; "" when embedded
};

/// What `conform` runs: backend-test folders (model.onnx + test_data_set_N/, or folders of them), the
/// tests whose folder name matches `filter` (a regular expression; empty: all), on `executor`
/// (reference, cpu or cuda).
struct ConformRequest {
    std::vector<std::string> roots;
    std::string filter;
    std::string executor = "reference";
    conform::Tolerances tolerances; ///< ONNX's runner's by default (rtol 1e-3, atol 1e-7), overridden by case name
};

/// What `repro` cuts and where it writes it.
struct ReproRequest {
    std::string node;      ///< the node of B's model to cut around, by display name; "": the first divergence
    int depth = 0;         ///< levels of producers to include before the node, before shrinking
    bool shrink = true;    ///< drop nodes while the failure still reproduces
    std::string outputDir; ///< created; a folder that holds files needs `overwrite`
    bool overwrite = false;
    std::string tool = "`portolan repro`"; ///< what cut it, for the README
    std::string command;   ///< the command line that made it, for the README ("" when none)
};

/// A repro written: what it holds, and the node it was cut around.
struct ReproWritten {
    compare::Repro repro;
    std::string node, opType;
};

/// What the port report holds beyond the comparison, and where it goes.
struct ReportRequest {
    std::string outputPath;  ///< .json, .md, .html or .pdf (with `pdf`)
    bool overwrite = false;
    /// The report also checks the model as loaded against this target profile.
    std::optional<diagnose::TargetProfile> target;
    PdfWriter pdf;           ///< views::reportPdfWriter(); core has no renderer of its own
};

class Workbench {
public:
    /// Loads a model file (replacing any open one). Load errors leave the previous model open.
    support::Status open(const std::string &path, const ir::LoadOptions &options = {});
    /// Loads serialized bytes (e.g. a model embedded as a resource); external data resolves in `baseDir`.
    support::Status openBytes(std::span<const std::byte> bytes, const std::string &displayName,
                              const std::string &baseDir = {}, const ir::LoadOptions &options = {});

    bool hasModel() const { return m_model != nullptr; }
    const ir::Model &model() const { return *m_model; }

    /// Load warnings, checker findings, shape-inference findings and export pitfalls (judged against
    /// the shipped target profiles), computed once per model.
    const support::Diagnostics &findings();
    /// The `portolan inspect` summary of the open model.
    analysis::ModelSummary inspect();

    /// Every node of the open model against a target profile, with the fixes tried on copies.
    diagnose::TargetCheck checkTarget(const diagnose::TargetProfile &profile,
                                      const diagnose::CheckOptions &options = {}) const;

    /// The dims of a test set's inputs (input_K.pb), by input name: the sizes the model runs with.
    support::Expected<std::map<std::string, std::vector<std::int64_t>>> inputSizesOf(const std::string &testDataDir) const;

    /// Where the open model's dynamic dims come from and what they reach (`portolan shapes`).
    /// `inputsDir`, a test set (input_K.pb), adds its inputs' dims to options.freeze: the analysis
    /// and its advice are then at the sizes the model is actually run with.
    support::Expected<diagnose::ShapeAnalysis> analyzeShapes(const diagnose::ShapeOptions &options = {},
                                                             const std::string &inputsDir = {}) const;

    /// "-O0"…"-O3" or pipeline text ("infer-shapes,fuse-gelu{…}"), checked against the pass registry.
    static support::Expected<passes::Pipeline> pipelineFromText(const std::string &text);
    /// Optimizing is running a pipeline of passes (compiling is what an executor does to a model at
    /// given input shapes). This one runs `pipeline` on a copy of the open model, in memory; the GUI
    /// keeps the model after every pass (options.snapshots: stepping, undo and the before/after
    /// diff). Reads the model only: safe beside other readers.
    support::Expected<passes::CompileResult> optimize(const passes::Pipeline &pipeline,
                                                      const passes::PassManagerOptions &options = {}) const;
    /// `portolan optimize`: optimize, then save the result to request.outputPath (with its weights
    /// beside it when they are external data). The model's own file is never the output.
    support::Expected<OptimizeOutcome> optimize(const OptimizeRequest &request) const;
    /// Every pass pipelines may name, with its options (`portolan passes`).
    static const std::vector<passes::PassInfo> &passCatalog();

    /// What a plugged executor ("cuda") says of its build and devices; "" when this build has none.
    static std::string executorDescription(const std::string &name);

    /// The shipped and user target profiles (`portolan check --list-targets`).
    static diagnose::TargetListing targetProfiles();
    /// A target profile by id, or from a profile .json file.
    static support::Expected<diagnose::TargetProfile> findTarget(const std::string &idOrPath);

    /// `portolan run`: one executor on the open model after the request's pipeline, timed over its
    /// repeats, its outputs (and every intermediate) written where asked. Reads the model only.
    support::Expected<RunOutcome> run(const RunRequest &request) const;

    /// `portolan compare`: two runs of the open model (by default the reference interpreter on it as
    /// loaded against the compiled CPU executor after -O2), compared tensor by tensor, aligned through
    /// the passes' provenance where one side runs the optimized copy. Reads the model only.
    support::Expected<std::shared_ptr<const ComparisonOutcome>> compare(const ComparisonRequest &request) const;
    /// `portolan repro` for a comparison made here: the subgraph around `node` (of the outcome's
    /// compiled model, `depth` producers back) as a standalone model fed with what B gave it,
    /// shrunk while it still fails. Runs B once more; reads the model only.
    support::Expected<compare::Repro> extractRepro(const ComparisonOutcome &outcome, ir::NodeId node, int depth = 0,
                                                  bool shrink = true) const;
    /// `portolan repro`: extractRepro around the node `request` names, written to its folder with a
    /// README that says where it came from.
    support::Expected<ReproWritten> writeRepro(const ComparisonOutcome &outcome, const ReproRequest &request) const;
    /// `portolan bisect-precision`: the nodes of B's compiled model to keep at fp32 for its outputs to
    /// meet the request's tolerance (B is cpu at fp16, bf16 or int8). Runs B many times; reads the model only.
    support::Expected<compare::BisectionResult> bisectPrecision(const ComparisonRequest &request) const;
    /// `portolan report`: the one-page port report of `outcome` (made here) with the model's findings,
    /// its dynamic dims and, when asked, a target check, written to request.outputPath.
    support::Expected<report::PortReport> report(const ComparisonOutcome &outcome, const ReportRequest &request);

    /// The values of main-graph tensor `value` of the open model, from a reference run on the inputs
    /// `inputs` names (as a comparison's A gets them): what the inspector shows of an activation.
    support::Expected<runtime::Tensor> referenceValue(const ComparisonRequest &inputs, ir::ValueId value) const;

    /// `portolan conform`: runs ONNX backend-test folders; needs no open model. A wrong request (no
    /// folder, no test in them, a bad filter, an executor this build or machine lacks) is an error,
    /// not a report of errors.
    static support::Expected<conform::Report> conform(const ConformRequest &request);
    /// The executor names conform takes, as a report's title says them ("Compiled CPU executor").
    static std::string conformExecutorTitle(const std::string &executor);

private:
    /// The outcome's frame: the request, the compiled model (when a side is compiled), each side's model.
    support::Expected<std::shared_ptr<ComparisonOutcome>> prepareComparison(const ComparisonRequest &request) const;
    support::Status adopt(support::Expected<ir::LoadedModel> loaded);

    std::shared_ptr<ir::Model> m_model; ///< shared with comparison outcomes, which outlive a reopen
    support::Diagnostics m_loadWarnings;
    std::optional<support::Diagnostics> m_findings;
};

} // namespace portolan::session
