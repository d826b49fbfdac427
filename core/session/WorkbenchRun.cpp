// Workbench::run: one executor on the open model, timed, its values written where asked
// (`portolan run`; the GUI's run of a model goes through the same call).
#include "session/Workbench.h"

#include "compare/ExternalRun.h"
#include "compare/OnnxRuntime.h"
#include "runtime/cpu/CpuExecutor.h"
#include "session/CompiledExecutor.h"
#include "runtime/ValueDump.h"

#include <algorithm>
#include <chrono>

namespace portolan::session {

namespace {

using Execute = std::function<support::Expected<runtime::NamedValues>(const runtime::RunOptions &)>;

CpuRunRecord cpuRecord(const runtime::cpu::CpuExecutor &cpu)
{
    const runtime::cpu::CompiledGraph &plan = *cpu.lastPlan();
    CpuRunRecord record;
    record.nodes = plan.nodes();
    record.flops = static_cast<std::uint64_t>(plan.flops());
    record.arenaBytes = plan.memoryPlan().arenaBytes;
    record.naiveBytes = plan.memoryPlan().naiveBytes;
    record.livePeakBytes = plan.memoryPlan().livePeakBytes;
    record.fallbackPeakBytes = plan.fallbackPeakBytes();
    record.weightBytes = cpu.weightBytes();
    record.blockedValues = plan.blockedValues();
    record.stats = cpu.stats();
    record.policy = cpu.options().precision;
    return record;
}

/// The warm-ups (untimed), then the timed runs; the first timed run alone is observed (a dump).
support::Status timeRuns(const RunRequest &request, const Execute &execute, const runtime::RunOptions &observed, RunOutcome &outcome)
{
    runtime::RunOptions quiet = observed;
    quiet.observer = nullptr;
    for (int i = 0; i < request.warmup; ++i)
        if (auto r = execute(quiet); !r)
            return r.error();
    for (int i = 0; i < request.repeat; ++i) {
        const auto start = std::chrono::steady_clock::now();
        auto outputs = execute(i == 0 ? observed : quiet);
        outcome.latencies.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (!outputs)
            return outputs.error();
        outcome.outputs = std::move(*outputs);
    }
    std::sort(outcome.latencies.begin(), outcome.latencies.end());
    return support::Status::ok();
}

} // namespace

std::size_t CpuRunRecord::fallbackCount() const
{
    return static_cast<std::size_t>(std::count_if(nodes.begin(), nodes.end(), [](const auto &n) { return n.implementation == "reference"; }));
}

support::Expected<RunOutcome> Workbench::run(const RunRequest &request) const
{
    using Kind = SideSpec::Kind;
    if (!m_model)
        return support::makeError("no-model", "no model is open");
    const SideSpec &side = request.executor;
    if (side.kind == Kind::Imported)
        return support::makeError("bad-usage", "run takes the reference interpreter, a compiled executor or an external command, "
                                               "not an imported run");
    if (request.repeat < 1 || request.warmup < 0)
        return support::makeError("bad-usage", "a run repeats at least once, after no fewer than 0 warm-ups");
    auto pipeline = pipelineFromText(request.pipeline);
    if (!pipeline)
        return pipeline.takeError();
    if ((side.kind == Kind::External || side.kind == Kind::OnnxRuntime) && !pipeline->passes.empty())
        return support::makeError("bad-usage", "an external runtime runs the model file as it is (it compiles it itself): drop the "
                                               "pipeline options");
    if (side.isCompiled())
        if (auto p = runtime::parsePrecision(side.precision); !p)
            return p.takeError();
    // The feeds first: a missing one is said before a big model is compiled.
    auto feeds = runtime::buildFeeds(*m_model, request.feeds);
    if (!feeds)
        return feeds.takeError();

    RunOutcome outcome;
    outcome.request = request;
    outcome.modelPath = m_model->sourcePath;
    std::shared_ptr<ir::Model> compiled; // kept alive while its executors run
    if (!pipeline->passes.empty()) {
        auto result = passes::runPipeline(*m_model, *pipeline, {});
        if (!result)
            return result.takeError();
        compiled = result->model;
        outcome.pipelineLabel = pipeline->str(); // the passes as run, presets spelled out
    }
    const ir::Model &target = compiled ? *compiled : *m_model;

    runtime::RunOptions options;
    options.maxMemoryBytes = request.maxMemoryBytes;
    options.cancel = request.cancel.get();
    for (const std::string *dir : {&request.outputDir, &request.dumpDir})
        if (!dir->empty())
            if (auto st = runtime::prepareOutputFolder(*dir, request.overwrite); !st)
                return st.error();
    std::unique_ptr<runtime::DumpObserver> dump;
    if (!request.dumpDir.empty()) {
        dump = std::make_unique<runtime::DumpObserver>(target, request.dumpDir);
        options.observer = dump.get();
    }
    runtime::RunOptions calibrationRun = options;
    calibrationRun.observer = nullptr;
    auto policy = [&]() -> support::Expected<runtime::PrecisionPolicy> {
        return resolvePrecisionPolicy(side.precision, request.lowering, target, request.feeds.shapes, calibrationRun);
    };

    std::unique_ptr<runtime::Interpreter> interpreter;
    std::unique_ptr<runtime::Executor> compiledExecutor;
    Execute execute;
    if (side.kind == Kind::Reference) {
        interpreter = std::make_unique<runtime::Interpreter>(target);
        execute = [&](const runtime::RunOptions &o) { return interpreter->run(*feeds, o); };
    } else if (side.kind == Kind::External || side.kind == Kind::OnnxRuntime) {
        compare::ExternalCommand command{side.command, side.timeoutSeconds};
        if (side.kind == Kind::OnnxRuntime) {
            auto install = compare::installOnnxRuntime(side.timeoutSeconds);
            if (!install)
                return install.takeError();
            command = compare::onnxRuntimeCommand(*install, side.ortLevel, side.timeoutSeconds);
        }
        if (auto st = compare::checkExternalCommand(command); !st)
            return st.error();
        execute = [&, external = compare::externalSide(*m_model, m_model->sourcePath, command)](const runtime::RunOptions &o) {
            return external.run(*feeds, o);
        };
    } else {
        auto resolved = policy();
        if (!resolved)
            return resolved.takeError();
        auto made = makeCompiledExecutor(side.executor, target, {std::move(*resolved), request.allowFallback});
        if (!made)
            return made.takeError();
        compiledExecutor = std::move(*made);
        compiledExecutor->setProfiling(request.profile);
        execute = [&](const runtime::RunOptions &o) { return compiledExecutor->run(*feeds, o); };
    }

    if (auto st = timeRuns(request, execute, options, outcome); !st)
        return st.error();
    if (dump) {
        if (auto st = dump->finish(); !st)
            return st.error();
        outcome.dumped = dump->count();
    }
    if (!request.outputDir.empty())
        if (auto st = runtime::writeOutputFolder(outcome.outputs, request.outputDir); !st)
            return st.error();
    if (interpreter)
        outcome.reference = interpreter->lastStats();
    if (const auto *cpu = dynamic_cast<const runtime::cpu::CpuExecutor *>(compiledExecutor.get()))
        outcome.cpu = cpuRecord(*cpu);
    else if (compiledExecutor)
        outcome.accelerator = compiledExecutor->acceleratorProfile(request.profile);
    return outcome;
}

} // namespace portolan::session
