// Workbench::compare and what follows from a comparison: the repro around a node and the nodes to
// keep at fp32 (`portolan compare`, `repro`, `bisect-precision` and the compare dock alike).
#include "session/Workbench.h"

#include "compare/CaptureObserver.h"
#include "compare/RoundingDepth.h"
#include "compare/ReproReadme.h"
#include "runtime/Feeds.h"
#include "runtime/cpu/CpuExecutor.h"

#include <algorithm>
#include "runtime/reference/Interpreter.h"
#include "session/ComparisonSides.h"

namespace portolan::session {

namespace {

/// Which value of B is which of A: through the passes' provenance when exactly one side runs the
/// compiled model, else by name.
compare::Alignment alignSides(const ComparisonOutcome &outcome)
{
    const ir::Model &a = *outcome.modelA, &b = *outcome.modelB;
    if (&a == &b || !outcome.compiled || outcome.compiled->model.get() == outcome.loaded.get())
        return compare::alignByName(a, b);
    const passes::Provenance &provenance = outcome.compiled->provenance;
    if (&b == outcome.compiled->model.get())
        return compare::alignByProvenance(a, b, provenance);
    compare::Alignment alignment; // A compiled, B as loaded: align the other way round
    for (const auto &[vb, va] : compare::alignByProvenance(b, a, provenance))
        alignment[va] = vb;
    return alignment;
}

compare::ComparisonOptions comparisonOptions(const ComparisonRequest &request)
{
    compare::ComparisonOptions options;
    options.precision = request.precisionModel();
    options.tolerance = request.tolerance;
    options.quantile = request.errorQuantile;
    options.allowDrift = request.allowDrift;
    options.overrides = request.tensorTolerances;
    options.memoryBudget = request.memoryBudget;
    options.cancel = request.cancel.get();
    options.progress = request.progress.get();
    return options;
}

} // namespace

support::Expected<std::shared_ptr<ComparisonOutcome>> Workbench::prepareComparison(const ComparisonRequest &request) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    for (const SideSpec *side : {&request.a, &request.b})
        if (side->isCompiled())
            if (auto p = runtime::parsePrecision(side->precision); !p)
                return p.takeError();
    auto outcome = std::make_shared<ComparisonOutcome>();
    outcome->request = request;
    outcome->loaded = m_model;
    if (request.compiles()) {
        auto pipeline = pipelineFromText(request.pipeline);
        if (!pipeline)
            return pipeline.takeError();
        outcome->pipelineLabel = request.pipeline;
        if (!pipeline->passes.empty()) {
            auto compiled = passes::runPipeline(*m_model, *pipeline, {});
            if (!compiled)
                return compiled.takeError();
            outcome->compiled = std::make_shared<const passes::CompileResult>(std::move(*compiled));
        }
    }
    const ir::Model *compiledModel = outcome->compiled ? outcome->compiled->model.get() : m_model.get();
    outcome->modelA = request.a.isCompiled() ? compiledModel : m_model.get();
    outcome->modelB = request.b.isCompiled() ? compiledModel : m_model.get();
    return outcome;
}

support::Expected<std::shared_ptr<const ComparisonOutcome>> Workbench::compare(const ComparisonRequest &request) const
{
    // The request's text and the feeds first: a wrong one is said before a big model is compiled.
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    if (request.compiles())
        if (auto pipeline = pipelineFromText(request.pipeline); !pipeline)
            return pipeline.takeError();
    auto feeds = runtime::buildFeeds(*m_model, request.feeds);
    if (!feeds)
        return feeds.takeError();
    auto prepared = prepareComparison(request);
    if (!prepared)
        return prepared.takeError();
    std::shared_ptr<ComparisonOutcome> outcome = std::move(*prepared);
    const ir::Model &compiledModel = outcome->compiled ? *outcome->compiled->model : *m_model;

    ComparisonSides sides(request, *m_model, compiledModel, m_model->sourcePath);
    auto a = sides.make(request.a);
    if (!a)
        return a.takeError();
    auto b = sides.make(request.b, request.profileB);
    if (!b)
        return b.takeError();
    runtime::Executor *compiledB = request.b.isCompiled() ? sides.lastCompiled() : nullptr;

    const compare::ComparisonOptions comparison = comparisonOptions(request);
    auto result = compare::compareRuns(*a, *b, alignSides(*outcome), *feeds, comparison);
    if (!result)
        return result.takeError();
    outcome->result = std::move(*result);
    outcome->unknownImported = sides.unknownImported();
    if (const auto *cpu = dynamic_cast<const runtime::cpu::CpuExecutor *>(compiledB))
        outcome->figures = cpu->lastFigures();
    // B's profile from one more run, unobserved: the comparison's run carried every compared
    // tensor's download and the first launch's costs
    else if (compiledB && request.profileB && compiledB->run(*feeds, {}))
        outcome->accelerator = compiledB->acceleratorProfile(true);
    auto judged = compare::judgeSuspects(outcome->result, *b, *feeds, comparison, request.suspectLimit, request.kernelCheck);
    if (!judged)
        return judged.takeError();
    outcome->suspects = std::move(judged->suspects);
    outcome->kernelChecks = std::move(judged->checks);
    outcome->firstDivergence = compare::firstDivergence(outcome->result, *outcome->modelB);
    return std::shared_ptr<const ComparisonOutcome>(std::move(outcome));
}

support::Expected<compare::Repro> Workbench::extractRepro(const ComparisonOutcome &outcome, ir::NodeId node, int depth,
                                                        bool shrink) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    const ir::Model &modelB = *outcome.modelB;
    if (node.index >= modelB.nodeCapacity() || !modelB.node(node).alive)
        return support::makeError("bad-node", "the node is not in the compared model");
    if (outcome.request.b.kind == SideSpec::Kind::Imported)
        return support::makeError("bad-usage", "B is an imported run, which cannot run the repro: cut it with B the compiled "
                                               "executor or an external command");
    auto feeds = runtime::buildFeeds(*outcome.loaded, outcome.request.feeds);
    if (!feeds)
        return feeds.takeError();
    const ir::Model &compiledModel = outcome.compiled ? *outcome.compiled->model : *outcome.loaded;
    ComparisonSides sides(outcome.request, *outcome.loaded, compiledModel, outcome.loaded->sourcePath);
    auto b = sides.make(outcome.request.b);
    if (!b)
        return b.takeError();
    return compare::extractRepro(*b, *feeds, {node, depth, outcome.request.effectiveTolerance(), shrink});
}

support::Expected<ReproWritten> Workbench::writeRepro(const ComparisonOutcome &outcome, const ReproRequest &request) const
{
    const compare::ComparedTensor *first = outcome.firstDivergence;
    const std::string wanted = !request.node.empty() ? request.node : first ? first->node : std::string();
    if (wanted.empty())
        return support::makeError("bad-usage", "no tensor goes out of tolerance on its own: name the node to cut around");
    const ir::Model &modelB = *outcome.modelB;
    ir::NodeId target;
    for (const ir::NodeId n : modelB.graph(modelB.mainGraph()).nodes)
        if (modelB.node(n).alive && compare::displayNameOf(modelB.node(n)) == wanted)
            target = n;
    if (!target.valid())
        return support::makeError("bad-node", "run " + outcome.result.labelB + "'s model has no node named '" + wanted + "'");
    auto repro = extractRepro(outcome, target, request.depth, request.shrink);
    if (!repro)
        return repro.takeError();
    std::string verdict; // the whole-model kernel check of that node, when it was made
    for (const compare::KernelCheck &check : outcome.kernelChecks)
        if (check.tensor->node == wanted)
            verdict = check.explanation;
    ReproWritten written{std::move(*repro), wanted, modelB.node(target).opType};
    const compare::ReproStory story{outcome.loaded->sourcePath, wanted, written.opType, outcome.request.b.label(),
                                    outcome.pipelineLabel, request.tool, request.command, verdict,
                                    outcome.request.effectiveTolerance()};
    if (auto st = compare::writeRepro(written.repro, request.outputDir, compare::reproReadme(written.repro, story), request.overwrite); !st)
        return st.error();
    return written;
}

support::Expected<compare::BisectionResult> Workbench::bisectPrecision(const ComparisonRequest &request) const
{
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    if (!request.b.isCompiled())
        return support::makeError("bad-usage", "B is another runtime: bisection lowers nodes of the compiled executor");
    if (request.b.executor != "cpu")
        return support::makeError("bad-usage", "bisection lowers nodes of the CPU executor's precision policy: compare against "
                                               "cpu:" + request.b.precision + " to bisect");
    auto precision = runtime::parsePrecision(request.b.precision);
    if (!precision)
        return precision.takeError();
    if (*precision == runtime::Precision::Fp32)
        return support::makeError("bad-usage", "B runs at fp32: there is no precision to bisect (give fp16, bf16 or int8)");
    auto feeds = runtime::buildFeeds(*m_model, request.feeds);
    if (!feeds)
        return feeds.takeError();
    auto prepared = prepareComparison(request);
    if (!prepared)
        return prepared.takeError();
    const ir::Model &compiledModel = *(*prepared)->modelB;
    runtime::RunOptions run;
    run.cancel = request.cancel.get();
    auto expected = runtime::Interpreter(*m_model).run(*feeds, run);
    if (!expected) {
        support::Error error = expected.takeError();
        error.primary.message = "the reference run: " + error.primary.message;
        return error;
    }
    ComparisonSides sides(request, *m_model, compiledModel, m_model->sourcePath);
    auto policy = sides.policy(request.b.precision);
    if (!policy)
        return policy.takeError();
    // the outputs are held to the default of the deepest one (each output's own would need a check per output)
    int deepest = 1;
    const auto depths = compare::roundingDepths(*m_model);
    for (const ir::ValueId out : m_model->graph(m_model->mainGraph()).outputs)
        if (const auto it = depths.find(out); it != depths.end())
            deepest = std::max(deepest, it->second);
    return compare::bisectPrecision(compiledModel, *policy, *feeds, *expected, request.effectiveTolerance(deepest));
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
