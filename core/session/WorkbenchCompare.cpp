// Workbench::compare: the CLI's `compare` for one pairing (reference against cpu:PRECISION), as a
// facade call the GUI can run on a worker thread.
#include "session/Workbench.h"

#include "runtime/InputGeneration.h"
#include "runtime/TestDataSet.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/reference/Interpreter.h"

namespace portolan::session {

namespace {

support::Expected<runtime::NamedValues> comparisonFeeds(const ir::Model &model, const ComparisonRequest &request)
{
    if (!request.inputsDir.empty())
        return runtime::readTestDataInputs(model, request.inputsDir);
    runtime::NamedValues feeds;
    std::uint64_t k = 0;
    for (auto v : model.graph(model.mainGraph()).inputs) {
        const ir::Value &input = model.value(v);
        if (input.isInitializer())
            continue;
        auto tensor = runtime::randomInput(input, request.seed + k++, request.shapes);
        if (!tensor)
            return tensor.takeError();
        feeds.emplace_back(input.name, runtime::RuntimeValue::ofTensor(std::move(*tensor)));
    }
    return feeds;
}

/// Run B: `executor` on `optimized`; a model of its own (a repro, a kernel check) gets an executor of its own.
compare::RunSide compiledSide(runtime::cpu::CpuExecutor &executor, const ir::Model &optimized, const std::string &precision)
{
    return {"cpu:" + precision, &optimized,
            [&executor](const runtime::NamedValues &f, const runtime::RunOptions &o) { return executor.run(f, o); },
            [options = executor.options()](const ir::Model &other, const runtime::NamedValues &f) {
                return runtime::cpu::CpuExecutor(other, options).run(f);
            }};
}

} // namespace

support::Expected<std::shared_ptr<const ComparisonOutcome>> Workbench::compare(const ComparisonRequest &request) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    const ir::Model &model = *m_model;
    auto precision = runtime::cpu::parsePrecision(request.precision);
    if (!precision)
        return precision.takeError();
    if (*precision == runtime::cpu::Precision::Int8)
        return support::makeError("bad-usage", "int8 needs a calibration: use `portolan compare --b cpu:int8 --calibration …`");
    auto pipeline = pipelineFromText(request.pipeline);
    if (!pipeline)
        return pipeline.takeError();
    auto compiled = passes::runPipeline(model, *pipeline, {});
    if (!compiled)
        return compiled.takeError();
    auto feeds = comparisonFeeds(model, request);
    if (!feeds)
        return feeds.takeError();

    auto outcome = std::make_shared<ComparisonOutcome>();
    outcome->request = request;
    outcome->compiled = std::make_shared<const passes::CompileResult>(std::move(*compiled));
    const ir::Model &optimized = *outcome->compiled->model;

    runtime::Interpreter interpreter(model);
    const compare::RunSide a{"reference", &model,
                             [&](const runtime::NamedValues &f, const runtime::RunOptions &o) { return interpreter.run(f, o); },
                             [](const ir::Model &other, const runtime::NamedValues &f) { return runtime::Interpreter(other).run(f); }};
    runtime::cpu::CompileOptions options;
    options.precision.precision = *precision;
    runtime::cpu::CpuExecutor executor(optimized, options);
    const compare::RunSide b = compiledSide(executor, optimized, request.precision);

    compare::ComparisonOptions comparison;
    comparison.tolerance = request.effectiveTolerance();
    comparison.cancel = request.cancel.get();
    const auto alignment = compare::alignByProvenance(model, optimized, outcome->compiled->provenance);
    auto result = compare::compareRuns(a, b, alignment, *feeds, comparison);
    if (!result)
        return result.takeError();
    outcome->result = std::move(*result);
    outcome->figures = executor.lastFigures();
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
    auto feeds = comparisonFeeds(*m_model, outcome.request);
    if (!feeds)
        return feeds.takeError();
    auto precision = runtime::cpu::parsePrecision(outcome.request.precision);
    if (!precision)
        return precision.takeError();
    runtime::cpu::CompileOptions options;
    options.precision.precision = *precision;
    runtime::cpu::CpuExecutor executor(optimized, options);
    const compare::Tolerance tolerance = outcome.request.effectiveTolerance();
    return compare::extractRepro(compiledSide(executor, optimized, outcome.request.precision), *feeds,
                                 {node, depth, tolerance, shrink});
}

support::Expected<compare::BisectionResult> Workbench::bisectPrecision(const ComparisonOutcome &outcome) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    auto precision = runtime::cpu::parsePrecision(outcome.request.precision);
    if (!precision)
        return precision.takeError();
    if (*precision == runtime::cpu::Precision::Fp32)
        return support::makeError("bad-usage", "B runs at fp32: there is no precision to bisect");
    auto feeds = comparisonFeeds(*m_model, outcome.request);
    if (!feeds)
        return feeds.takeError();
    auto expected = runtime::Interpreter(*m_model).run(*feeds);
    if (!expected)
        return expected.takeError();
    runtime::cpu::PrecisionPolicy policy;
    policy.precision = *precision;
    return compare::bisectPrecision(*outcome.compiled->model, policy, *feeds, *expected,
                                    outcome.request.effectiveTolerance());
}

} // namespace portolan::session
