// Workbench::compare: the CLI's `compare` for the GUI's pairings (the reference against cpu:PRECISION,
// an imported run or an external command), as a facade call it can run on a worker thread.
#include "session/Workbench.h"

#include "compare/CaptureObserver.h"
#include "compare/ExternalRun.h"
#include "compare/ImportedRun.h"
#include "runtime/ExecutorRegistry.h"
#include "runtime/Feeds.h"
#include "runtime/cpu/Calibration.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/reference/Interpreter.h"

namespace portolan::session {

namespace {

/// Run B: `executor` on `optimized`; a model of its own (a repro, a kernel check) gets an executor of its own.
compare::RunSide compiledSide(runtime::cpu::CpuExecutor &executor, const ir::Model &optimized, const std::string &precision)
{
    return {"cpu:" + precision, &optimized,
            [&executor](const runtime::NamedValues &f, const runtime::RunOptions &o) { return executor.run(f, o); },
            [options = executor.options()](const ir::Model &other, const runtime::NamedValues &f) {
                return runtime::cpu::CpuExecutor(other, options).run(f);
            }};
}

/// B's compile options (the CPU executor's, or a plugged one's policy): the precision, and for int8
/// the ranges calibrated on `optimized`.
support::Expected<runtime::cpu::CompileOptions> compileOptionsFor(const ComparisonRequest &request, const ir::Model &optimized)
{
    auto precision = runtime::cpu::parsePrecision(request.precision);
    if (!precision)
        return precision.takeError();
    runtime::cpu::CompileOptions options;
    options.precision.precision = *precision;
    if (*precision != runtime::cpu::Precision::Int8)
        return options;
    auto batches = runtime::cpu::calibrationBatches(request.calibration, optimized, request.feeds.shapes);
    if (!batches)
        return batches.takeError();
    runtime::RunOptions run;
    run.cancel = request.cancel.get();
    auto table = runtime::cpu::calibrate(optimized, *batches, {}, run);
    if (!table)
        return table.takeError();
    options.precision.calibration = std::make_shared<const runtime::cpu::CalibrationTable>(std::move(*table));
    return options;
}

/// B as a plugged executor (the CUDA executor) on `optimized` at `policy`; a model of its own gets
/// one of its own.
support::Expected<compare::RunSide> pluggedSide(const ComparisonRequest &request, const ir::Model &optimized,
                                                const runtime::cpu::PrecisionPolicy &policy,
                                                std::shared_ptr<runtime::PluggedExecutor> &plugged)
{
    const runtime::PluggedExecutorFactory factory = runtime::findExecutor(request.executorB);
    if (!factory)
        return support::makeError("no-executor", "this build of Portolan has no " + request.executorB + " executor", optimized.sourcePath);
    auto made = factory(optimized, policy);
    if (!made)
        return made.takeError();
    std::shared_ptr<runtime::PluggedExecutor> executor = std::move(*made);
    executor->setProfiling(true); // the outcome (and the report) show where B's time went
    plugged = executor;
    return compare::RunSide{request.sideLabel(), &optimized,
                            [executor](const runtime::NamedValues &f, const runtime::RunOptions &o) { return executor->run(f, o); },
                            [factory, policy](const ir::Model &other,
                                              const runtime::NamedValues &f) -> support::Expected<runtime::NamedValues> {
                                auto again = factory(other, policy);
                                if (!again)
                                    return again.takeError();
                                return (*again)->run(f, {});
                            }};
}

/// B as the request names it: the compiled executor on `optimized` (made into `executor`), a plugged
/// executor (into `plugged`), an imported run, or an external command on the model file at `modelPath`.
support::Expected<compare::RunSide> sideB(const ComparisonRequest &request, const ir::Model &optimized, const std::string &modelPath,
                                          std::unique_ptr<runtime::cpu::CpuExecutor> &executor,
                                          std::shared_ptr<runtime::PluggedExecutor> &plugged, std::vector<std::string> *unknownImported)
{
    if (!request.importFrom.empty()) {
        auto run = compare::readImportedRun(request.importFrom, optimized);
        if (!run)
            return run.takeError();
        if (unknownImported)
            *unknownImported = run->unknownNames;
        return compare::importedSide(optimized, std::make_shared<const compare::ImportedRun>(std::move(*run)));
    }
    if (!request.externalCommand.empty()) {
        const compare::ExternalCommand command{request.externalCommand, request.externalTimeout};
        if (auto st = compare::checkExternalCommand(command); !st)
            return st.error();
        return compare::externalSide(optimized, modelPath, command);
    }
    auto options = compileOptionsFor(request, optimized);
    if (!options)
        return options.takeError();
    if (request.executorB != "cpu")
        return pluggedSide(request, optimized, options->precision, plugged);
    executor = std::make_unique<runtime::cpu::CpuExecutor>(optimized, *options);
    return compiledSide(*executor, optimized, request.precision);
}

} // namespace

support::Expected<std::shared_ptr<const ComparisonOutcome>> Workbench::compare(const ComparisonRequest &request) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    const ir::Model &model = *m_model;
    const bool elsewhere = !request.compiledB();
    auto precision = runtime::cpu::parsePrecision(request.precision);
    if (!precision)
        return precision.takeError();
    const bool compiledA = request.sideA != "reference";
    if (compiledA) {
        if (!request.sideA.starts_with("cpu:"))
            return support::makeError("bad-side", "run A is 'reference' or cpu:fp32|fp16|bf16, not '" + request.sideA + "'");
        auto precisionA = runtime::cpu::parsePrecision(request.sideA.substr(4));
        if (!precisionA)
            return precisionA.takeError();
        if (*precisionA == runtime::cpu::Precision::Int8)
            return support::makeError("bad-side", "run A at int8 is not offered: compare int8 as B against A at fp32");
        if (elsewhere)
            return support::makeError("bad-side", "run A as the compiled executor goes with B compiled too (the two share the pipeline)");
    }
    // another runtime runs the model as loaded: its tensors align by name, through no passes
    auto pipeline = elsewhere ? support::Expected<passes::Pipeline>(passes::Pipeline{}) : pipelineFromText(request.pipeline);
    if (!pipeline)
        return pipeline.takeError();
    auto compiled = passes::runPipeline(model, *pipeline, {});
    if (!compiled)
        return compiled.takeError();
    auto feeds = runtime::buildFeeds(model, request.feeds);
    if (!feeds)
        return feeds.takeError();

    auto outcome = std::make_shared<ComparisonOutcome>();
    outcome->request = request;
    outcome->compiled = std::make_shared<const passes::CompileResult>(std::move(*compiled));
    const ir::Model &optimized = *outcome->compiled->model;

    runtime::Interpreter interpreter(model);
    std::unique_ptr<runtime::cpu::CpuExecutor> executorA;
    compare::RunSide a{"reference", &model,
                       [&](const runtime::NamedValues &f, const runtime::RunOptions &o) { return interpreter.run(f, o); },
                       [](const ir::Model &other, const runtime::NamedValues &f) { return runtime::Interpreter(other).run(f); }};
    if (compiledA) { // the compiled executor after the same pipeline, at A's precision
        ComparisonRequest asA = request;
        asA.precision = request.sideA.substr(4);
        auto options = compileOptionsFor(asA, optimized);
        if (!options)
            return options.takeError();
        executorA = std::make_unique<runtime::cpu::CpuExecutor>(optimized, *options);
        a = compiledSide(*executorA, optimized, asA.precision);
    }
    std::unique_ptr<runtime::cpu::CpuExecutor> executor;
    std::shared_ptr<runtime::PluggedExecutor> plugged;
    auto side = sideB(request, optimized, model.sourcePath, executor, plugged, &outcome->unknownImported);
    if (!side)
        return side.takeError();
    const compare::RunSide &b = *side;

    compare::ComparisonOptions comparison;
    comparison.tolerance = request.effectiveTolerance();
    comparison.cancel = request.cancel.get();
    comparison.progress = request.progress.get();
    const auto alignment = elsewhere || compiledA ? compare::alignByName(*a.model, optimized)
                                                  : compare::alignByProvenance(model, optimized, outcome->compiled->provenance);
    auto result = compare::compareRuns(a, b, alignment, *feeds, comparison);
    if (!result)
        return result.takeError();
    outcome->result = std::move(*result);
    if (executor)
        outcome->figures = executor->lastFigures();
    if (plugged && plugged->run(*feeds, {})) // profiled unobserved: the comparison's run carried its downloads
        outcome->accelerator = plugged->lastProfile();
    outcome->suspects = compare::rankSuspects(outcome->result, optimized);
    outcome->firstDivergence = compare::firstDivergence(outcome->result, optimized);
    if (request.kernelCheck && !outcome->result.outputsPassed()) {
        outcome->failingSuspects = compare::failingSuspects(outcome->suspects);
        auto checks = compare::checkSuspectKernels(b, *feeds, outcome->failingSuspects, comparison);
        if (!checks)
            return checks.takeError();
        outcome->kernelChecks = std::move(*checks);
    }
    return std::shared_ptr<const ComparisonOutcome>(std::move(outcome));
}

support::Expected<compare::Repro> Workbench::extractRepro(const ComparisonOutcome &outcome, ir::NodeId node, int depth,
                                                        bool shrink) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    const ir::Model &optimized = *outcome.compiled->model;
    if (node.index >= optimized.nodeCapacity() || !optimized.node(node).alive)
        return support::makeError("bad-node", "the node is not in the compared model");
    auto feeds = runtime::buildFeeds(*m_model, outcome.request.feeds);
    if (!feeds)
        return feeds.takeError();
    if (!outcome.request.importFrom.empty())
        return support::makeError("bad-usage", "B is an imported run, which cannot run the repro: cut it with B the compiled "
                                               "executor or an external command");
    std::unique_ptr<runtime::cpu::CpuExecutor> executor;
    std::shared_ptr<runtime::PluggedExecutor> plugged;
    auto b = sideB(outcome.request, optimized, m_model->sourcePath, executor, plugged, nullptr);
    if (!b)
        return b.takeError();
    const compare::Tolerance tolerance = outcome.request.effectiveTolerance();
    return compare::extractRepro(*b, *feeds, {node, depth, tolerance, shrink});
}

support::Expected<compare::BisectionResult> Workbench::bisectPrecision(const ComparisonOutcome &outcome) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    if (!outcome.request.compiledB())
        return support::makeError("bad-usage", "B is another runtime: bisection lowers nodes of the compiled executor");
    if (outcome.request.executorB != "cpu")
        return support::makeError("bad-usage", "bisection lowers nodes of the CPU executor's precision policy: compare against "
                                               "cpu:" + outcome.request.precision + " to bisect");
    auto precision = runtime::cpu::parsePrecision(outcome.request.precision);
    if (!precision)
        return precision.takeError();
    if (*precision == runtime::cpu::Precision::Fp32)
        return support::makeError("bad-usage", "B runs at fp32: there is no precision to bisect");
    auto feeds = runtime::buildFeeds(*m_model, outcome.request.feeds);
    if (!feeds)
        return feeds.takeError();
    auto expected = runtime::Interpreter(*m_model).run(*feeds);
    if (!expected)
        return expected.takeError();
    auto options = compileOptionsFor(outcome.request, *outcome.compiled->model); // int8: calibrated again
    if (!options)
        return options.takeError();
    return compare::bisectPrecision(*outcome.compiled->model, options->precision, *feeds, *expected,
                                    outcome.request.effectiveTolerance());
}

support::Expected<runtime::Tensor> Workbench::referenceValue(const ComparisonRequest &inputs, ir::ValueId value) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    const ir::Model &model = *m_model;
    if (value.index >= model.valueCapacity() || model.value(value).graph != model.mainGraph())
        return support::makeError("bad-value", "not a tensor of the main graph");
    auto feeds = runtime::buildFeeds(model, inputs.feeds);
    if (!feeds)
        return feeds.takeError();
    const std::string &name = model.value(value).name;
    for (const auto &[feedName, fed] : *feeds)
        if (feedName == name && fed.isTensor())
            return fed.tensor;
    const std::unordered_set<std::uint32_t> wanted{value.index};
    compare::CaptureObserver capture(wanted);
    runtime::RunOptions options;
    options.observer = &capture;
    options.cancel = inputs.cancel.get();
    if (auto run = runtime::Interpreter(model).run(*feeds, options); !run)
        return run.takeError();
    const auto it = capture.values.find(value.index);
    if (it == capture.values.end() || !it->second.isTensor())
        return support::makeError("not-produced", "the reference run produced no tensor for it", name);
    return it->second.tensor;
}

} // namespace portolan::session
