// The pass manager: one Rewriter per pass over a working copy, and the instrumentation around it.
#include "passes/PassManager.h"

#include "analysis/ModelChecker.h"
#include "analysis/ModelValidation.h"
#include "ir/ModelSaver.h"
#include "passes/FreezeShapes.h"
#include "passes/NumericCheck.h"
#include "passes/Pass.h"
#include "passes/Verifier.h"
#include "support/StagedFile.h"

#include <chrono>
#include <filesystem>

namespace portolan::passes {

namespace {

// Live nodes of the main graph (fused ops' bodies would count their copies of removed nodes).
std::size_t mainGraphNodes(const ir::Model &model)
{
    std::size_t n = 0;
    for (const ir::NodeId id : model.graph(model.mainGraph()).nodes)
        n += model.node(id).alive ? 1 : 0;
    return n;
}

PassOptions optionsFor(const PassInvocation &invocation, const PassInfo &info)
{
    std::map<std::string, std::string> values;
    for (const PassOption &o : info.options)
        values[o.name] = o.defaultValue;
    for (const auto &[key, value] : invocation.options)
        values[key] = value;
    return PassOptions(std::move(values));
}

std::string dumpName(std::size_t index, const std::string &pass)
{
    const std::string number = std::to_string(index + 1);
    return std::string(number.size() < 2 ? "0" : "") + number + "-" + pass + ".onnx";
}

// Writes the failing pass's input and the pass as a reproducer; returns where (or "" when it could not).
std::string writeReproducer(const std::string &dumpDir, const ir::Model &input, const PassInvocation &invocation)
{
    if (dumpDir.empty())
        return {};
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(dumpDir) / "reproducer";
    std::filesystem::create_directories(dir, ec);
    if (!ir::saveModelFile(input, (dir / "model.onnx").string(), ir::Overwrite::Allow))
        return {};
    if (!support::writeFileWhole((dir / "pipeline.txt").string(), invocation.str() + "\n", support::Overwrite::Allow))
        return {};
    return dir.string();
}

struct PassRun {
    support::Status status = support::Status::ok();
    std::string lastPattern;
};

// Runs one pass over `model` with at most `budget` rewrites.
PassRun applyPass(ir::Model &model, Provenance &provenance, const PassInvocation &invocation, const PassOptions &options,
                  bool standardOnly, std::size_t budget, PassResult *result)
{
    const PassInfo *info = findPass(invocation.name);
    Rewriter rewriter(model, provenance, invocation.name);
    rewriter.setRewriteBudget(budget);
    PassContext context{model, rewriter, options, standardOnly};
    PassRun run;
    try {
        run.status = info->create()->run(context);
    } catch (const std::exception &e) {
        run.status = support::makeError("pass-threw", std::string("threw: ") + e.what());
    }
    run.lastPattern = rewriter.currentPattern();
    if (!run.status)
        return run;
    rewriter.finish();
    if (result != nullptr) {
        result->changed = rewriter.changed();
        result->rewrites = rewriter.takeRecords();
        result->matchFailures = rewriter.takeMatchFailures();
        result->statistics = rewriter.takeStatistics();
    }
    return run;
}

support::Error passError(const PassInvocation &invocation, const std::string &pattern, const support::Error &cause,
                         const std::string &reproducer)
{
    std::string message = "pass '" + invocation.str() + "'";
    if (!pattern.empty())
        message += " (rewrite '" + pattern + "')";
    message += " failed: " + cause.primary.message;
    if (!cause.primary.node.empty())
        message += " [node " + cause.primary.node + "]";
    if (!reproducer.empty())
        message += "; reproducer written to " + reproducer;
    support::Error error = support::makeError("pass-failed", message, cause.primary.model);
    error.related = cause.related;
    error.related.insert(error.related.begin(), cause.primary);
    return error;
}

// Finds the first rewrite of the pass that alone takes the outputs out of tolerance: the smallest
// budget k whose run fails, by bisection (the pass is deterministic).
std::string bisectRewrite(const ir::Model &before, const Provenance &provenance, const PassInvocation &invocation,
                          const PassOptions &options, const PassManagerOptions &pm, const runtime::NamedValues &feeds,
                          const runtime::NamedValues &expected, const std::vector<RewriteRecord> &rewrites)
{
    std::size_t good = 0, bad = rewrites.size();
    while (bad - good > 1) {
        const std::size_t mid = (good + bad) / 2;
        ir::Model trial = before;
        Provenance scratch = provenance;
        PassResult partial;
        if (!applyPass(trial, scratch, invocation, options, pm.standardOnly, mid, &partial).status)
            break;
        auto outputs = referenceOutputs(trial, feeds);
        const bool ok = outputs && compareOutputs(expected, *outputs, pm.atol, pm.rtol).withinTolerance;
        (ok ? good : bad) = mid;
    }
    if (bad == 0 || bad > rewrites.size())
        return {};
    const RewriteRecord &culprit = rewrites[bad - 1];
    return culprit.pattern + (culprit.detail.empty() ? "" : ": " + culprit.detail) + " (rewrite " + std::to_string(bad) +
           " of " + std::to_string(rewrites.size()) + ")";
}

} // namespace

support::Expected<CompileResult> runPipeline(const ir::Model &model, const Pipeline &pipeline, const PassManagerOptions &options)
{
    // Patterns read operands by position and attributes by type: a malformed model is refused up front.
    if (auto gate = analysis::executionGate(model); !gate)
        return gate.error();
    CompileResult result;
    result.input = std::make_shared<const ir::Model>(model);
    result.model = std::make_shared<ir::Model>(model);
    result.provenance = Provenance(static_cast<std::uint32_t>(model.nodeCapacity()),
                                   static_cast<std::uint32_t>(model.valueCapacity()));
    ir::Model &working = *result.model;

    runtime::NamedValues feeds;
    runtime::NamedValues lastOutputs;
    runtime::NamedValues originalOutputs;
    std::string numericsUnavailable;
    if (options.checkNumerics) {
        // Inputs a freeze-shapes pass fixes are fed its dims, so the model runs before and after it.
        std::map<std::string, std::vector<std::int64_t>> shapes = options.inputShapes;
        for (const PassInvocation &invocation : pipeline.passes)
            if (invocation.name == "freeze-shapes")
                if (auto frozen = frozenInputShapes(working, optionsFor(invocation, *findPass(invocation.name)).text("input")))
                    shapes.insert(frozen->begin(), frozen->end());
        // Symbolic dims get 3 (a 1 hides broadcasting and transposition mistakes); a model whose
        // reshapes bake in other sizes gets a second try with 1.
        for (const std::int64_t symbolicDim : {3, 1}) {
            auto f = seededFeeds(working, options.seed, shapes, symbolicDim);
            auto outputs = f ? referenceOutputs(working, *f) : support::Expected<runtime::NamedValues>(f.error());
            if (outputs) {
                feeds = std::move(*f);
                lastOutputs = std::move(*outputs);
                originalOutputs = lastOutputs; // shares the tensors
                numericsUnavailable.clear();
                break;
            }
            numericsUnavailable = "the input model does not run on the reference interpreter: " + outputs.error().format();
        }
    }
    if (!options.dumpDir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(options.dumpDir, ec);
        if (ec)
            return support::makeError("cannot-write", "cannot create the dump directory: " + ec.message(), options.dumpDir);
    }

    for (std::size_t index = 0; index < pipeline.passes.size(); ++index) {
        if (options.stopAfter >= 0 && index >= static_cast<std::size_t>(options.stopAfter)) {
            result.skippedPasses = pipeline.passes.size() - index;
            break;
        }
        const PassInvocation &invocation = pipeline.passes[index];
        const PassInfo *info = findPass(invocation.name);
        if (info == nullptr)
            return support::makeError("unknown-pass", "unknown pass '" + invocation.name + "'");
        const PassOptions passOptions = optionsFor(invocation, *info);

        PassResult pass;
        pass.invocation = invocation.str();
        pass.name = invocation.name;
        pass.nodesBefore = mainGraphNodes(working);
        // The reproducer and the bisection need the pass's input; keep it only when they may be needed.
        std::optional<ir::Model> before;
        if (!options.dumpDir.empty() || (options.checkNumerics && numericsUnavailable.empty()))
            before.emplace(working);
        const Provenance provenanceBefore = result.provenance;

        const auto start = std::chrono::steady_clock::now();
        const PassRun run = applyPass(working, result.provenance, invocation, passOptions, options.standardOnly,
                                      static_cast<std::size_t>(-1), &pass);
        pass.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (!run.status) {
            const std::string repro = before ? writeReproducer(options.dumpDir, *before, invocation) : std::string();
            return passError(invocation, run.lastPattern, run.status.error(), repro);
        }
        pass.nodesAfter = mainGraphNodes(working);

        if (options.verifyEach) {
            pass.verifyFindings = verifyInvariants(working);
            for (auto &d : analysis::checkModel(working))
                if (d.severity == support::Severity::Error)
                    pass.verifyFindings.push_back(std::move(d));
            if (!pass.verifyFindings.empty()) {
                const std::string repro = before ? writeReproducer(options.dumpDir, *before, invocation) : std::string();
                support::Error cause = support::makeError("verify-failed", "the model is invalid after the pass: " +
                                                                               pass.verifyFindings.front().format());
                cause.related = pass.verifyFindings;
                const std::string pattern = pass.rewrites.empty() ? std::string() : pass.rewrites.back().pattern;
                return passError(invocation, pattern, cause, repro);
            }
        }

        if (options.checkNumerics) {
            if (!numericsUnavailable.empty()) {
                pass.numerics.skippedReason = numericsUnavailable;
            } else if (!pass.changed) {
                pass.numerics.skippedReason = "the pass changed nothing";
            } else if (auto outputs = referenceOutputs(working, feeds); !outputs) {
                pass.numerics.ran = true;
                pass.numerics.withinTolerance = false;
                pass.numerics.worstOutput = "the optimized model does not run: " + outputs.error().format();
            } else {
                pass.numerics = compareOutputs(lastOutputs, *outputs, options.atol, options.rtol);
                if (!pass.numerics.withinTolerance && before)
                    pass.numerics.culpritRewrite = bisectRewrite(*before, provenanceBefore, invocation, passOptions, options,
                                                                 feeds, lastOutputs, pass.rewrites);
                lastOutputs = std::move(*outputs);
            }
        }

        if (!options.dumpDir.empty() && (options.printAfterAll || (options.printAfterChange && pass.changed))) {
            const auto path = (std::filesystem::path(options.dumpDir) / dumpName(index, invocation.name)).string();
            if (auto st = ir::saveModelFile(working, path, ir::Overwrite::Allow); !st)
                return st.error();
        }
        if (options.snapshots)
            pass.snapshot = std::make_shared<const ir::Model>(working);
        result.passes.push_back(std::move(pass));
    }
    if (options.checkNumerics) {
        bool changed = false;
        for (const PassResult &p : result.passes)
            changed = changed || p.changed;
        if (!numericsUnavailable.empty())
            result.overall.skippedReason = numericsUnavailable;
        else if (!changed)
            result.overall.skippedReason = "no pass changed the model";
        else
            result.overall = compareOutputs(originalOutputs, lastOutputs, options.atol, options.rtol);
    }
    return result;
}

} // namespace portolan::passes
