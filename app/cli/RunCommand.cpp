// `portolan run MODEL [--executor reference|cpu|cuda[:fp16|bf16|int8]|external:CMD] [--pipeline P | -O0 | -O1 | -O2] [--no-fallback]
//  [--precision fp32|fp16|bf16|int8 [--keep-fp32 RULE]… [--calibration DIR|random:N[:SEED]]
//   [--calibration-method M] [--calibration-table FILE] [--save-calibration FILE]]
//  [--input NAME=FILE.pb|NAME=random[:SEED]]… [--inputs DIR] [--shape NAME=D,…]… [--output-dir DIR]
//  [--dump-all DIR] [--max-memory SIZE] [--repeat N] [--warmup K] [--stats] [--json] [--force]`:
// runs the model on the reference interpreter, the compiled CPU executor or the CUDA executor (after
// the passes, -O2 by default for cpu and cuda, none for reference) or an external command, and writes outputs (and, with --dump-all, every
// intermediate) as TensorProto files.
#include "cli/Arguments.h"
#include "cli/Command.h"
#include "cli/CudaRun.h"
#include "cli/ExternalOptions.h"
#include "cli/Feeds.h"
#include "cli/PassOptions.h"
#include "cli/PrecisionOptions.h"

#include "ir/ModelLoader.h"
#include "passes/PassManager.h"
#include "passes/Pipeline.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/TensorStats.h"
#include "runtime/TestDataSet.h"
#include "runtime/reference/Interpreter.h"
#include "support/JsonWriter.h"
#include "support/StagedFile.h"
#include "support/TextColumn.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

namespace portolan::cli {

namespace fs = std::filesystem;
using runtime::NamedValues;
using runtime::RuntimeValue;

namespace {

int fail(const std::string &message)
{
    std::fprintf(stderr, "portolan run: error: %s\n", message.c_str());
    return kExitUsage;
}

// A file name for a tensor name: keeps letters, digits, '.', '-', '_'.
std::string safeName(const std::string &name)
{
    std::string out;
    for (const char c : name)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
    return out.empty() ? "unnamed" : out.substr(0, 120);
}

// A folder to write into: created if missing; refused if it holds files, unless forced.
support::Status prepareDirectory(const std::string &dir, bool force)
{
    std::error_code ec;
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec))
            return support::makeError("not-a-directory", "exists and is not a directory", dir);
        if (!force && !fs::is_empty(dir, ec))
            return support::makeError("directory-not-empty", "already holds files (use --force to write into it)", dir);
        return support::Status::ok();
    }
    if (!fs::create_directories(dir, ec))
        return support::makeError("cannot-write", "cannot create the directory: " + ec.message(), dir);
    return support::Status::ok();
}

std::string manifestEntry(support::JsonWriter &w, const std::string &name, const std::string &file, const RuntimeValue &v)
{
    w.beginObject().field("name", name).field("file", file).field("type", v.describe());
    return {};
}

// Streams every node output to disk as it is produced, so dumping costs no extra memory.
class DumpObserver final : public runtime::RunObserver {
public:
    DumpObserver(const ir::Model &model, std::string dir) : m_model(model), m_dir(std::move(dir)) { m_manifest.beginArray(); }

    void nodeFinished(const ir::Node &node, std::span<const RuntimeValue> outputs) override
    {
        for (std::size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k) {
            if (!node.outputs[k].valid() || !m_error.empty())
                continue;
            const std::string &name = m_model.value(node.outputs[k]).name;
            char prefix[16];
            std::snprintf(prefix, sizeof prefix, "%06zu_", m_count++);
            const std::string file = prefix + safeName(name) + ".pb";
            if (auto st = runtime::writeValueFile(outputs[k], name, m_dir + "/" + file, true); !st)
                m_error = st.error().format();
            manifestEntry(m_manifest, name, file, outputs[k]);
            m_manifest.field("node", node.name).field("op_type", node.opType).endObject();
        }
    }

    support::Status finish()
    {
        m_manifest.endArray();
        if (!m_error.empty())
            return support::makeError("cannot-write", m_error, m_dir);
        return support::writeFileWhole(m_dir + "/manifest.json", m_manifest.str() + "\n", support::Overwrite::Allow);
    }

    std::size_t count() const { return m_count; }

private:
    const ir::Model &m_model;
    std::string m_dir;
    support::JsonWriter m_manifest;
    std::size_t m_count = 0;
    std::string m_error;
};

void writeStats(support::JsonWriter &w, const RuntimeValue &v)
{
    w.field("type", v.describe());
    if (!v.isTensor())
        return;
    const runtime::TensorStats s = runtime::tensorStats(v.tensor);
    if (!s.numeric)
        return;
    w.field("min", s.min).field("max", s.max).field("mean", s.mean).field("std", s.stddev);
    w.field("nan", s.nans).field("inf", s.infs);
}

double mib(std::size_t bytes)
{
    return static_cast<double>(bytes) / (1 << 20);
}

std::size_t fallbackCount(const runtime::cpu::CompiledGraph &profile)
{
    return static_cast<std::size_t>(std::count_if(profile.nodes().begin(), profile.nodes().end(),
                                                  [](const auto &n) { return n.implementation == "reference"; }));
}

void writeCompiledStats(support::JsonWriter &w, const runtime::cpu::CpuExecutor &cpu, bool withProfile)
{
    const runtime::cpu::CompiledGraph &profile = *cpu.lastProfile();
    const auto &plan = profile.memoryPlan();
    w.field("flops", static_cast<std::int64_t>(profile.flops()));
    w.field("nodes_run", static_cast<std::uint64_t>(profile.nodes().size()))
        .field("fallback_nodes", static_cast<std::uint64_t>(fallbackCount(profile)));
    w.key("memory").beginObject().field("arena_bytes", static_cast<std::uint64_t>(plan.arenaBytes))
        .field("naive_bytes", static_cast<std::uint64_t>(plan.naiveBytes))
        .field("live_peak_bytes", static_cast<std::uint64_t>(plan.livePeakBytes))
        .field("fallback_peak_bytes", static_cast<std::uint64_t>(profile.fallbackPeakBytes()))
        .field("weight_bytes", static_cast<std::uint64_t>(cpu.weightBytes())).endObject();
    w.field("blocked_values", static_cast<std::uint64_t>(profile.blockedValues()));
    writePrecisionJson(w, profile, cpu.options().precision);
    w.key("profiles").beginObject().field("compiled", static_cast<std::uint64_t>(cpu.stats().profilesCompiled))
        .field("cache_hits", static_cast<std::uint64_t>(cpu.stats().cacheHits))
        .field("compile_seconds", cpu.stats().compileSeconds).endObject();
    if (!withProfile)
        return;
    w.key("nodes").beginArray();
    for (const auto &n : profile.nodes()) {
        w.beginObject().field("name", n.name).field("op_type", n.opType).field("implementation", n.implementation);
        if (!n.whyFallback.empty() && n.implementation == "reference")
            w.field("why_fallback", n.whyFallback);
        w.field("precision", n.precision);
        if (!n.whyPrecision.empty())
            w.field("why_precision", n.whyPrecision);
        w.field("ms_per_run", n.runs ? n.seconds * 1e3 / static_cast<double>(n.runs) : 0.0).endObject();
    }
    w.endArray();
}

void printCompiledSummary(const std::string &path, const std::string &pipeline, const runtime::cpu::CpuExecutor &cpu,
                          double seconds)
{
    const runtime::cpu::CompiledGraph &profile = *cpu.lastProfile();
    const auto &plan = profile.memoryPlan();
    std::printf("Ran %s on the compiled CPU executor after %s: %zu nodes (%zu on reference kernels) in %.2f ms "
                "(%.3f GFLOP, %.1f GFLOP/s)\n",
                path.c_str(), pipeline.empty() ? "no passes" : pipeline.c_str(), profile.nodes().size(),
                fallbackCount(profile), seconds * 1e3, static_cast<double>(profile.flops()) / 1e9,
                seconds > 0 ? static_cast<double>(profile.flops()) / 1e9 / seconds : 0.0);
    std::printf("  memory: arena %.2f MiB (allocate-per-tensor would take %.2f MiB, the live peak is %.2f MiB), "
                "fallback outputs peak %.2f MiB, weights %.2f MiB\n",
                mib(plan.arenaBytes), mib(plan.naiveBytes), mib(plan.livePeakBytes), mib(profile.fallbackPeakBytes()),
                mib(cpu.weightBytes()));
    if (profile.blockedValues())
        std::printf("  layouts: %zu values stay in the convolutions' own layouts between them (no reorder)\n",
                    profile.blockedValues());
    printPrecisionSummary(profile, cpu.options().precision);
    std::printf("  profiles: %zu compiled (%.3f s), %zu cache hits\n", cpu.stats().profilesCompiled,
                cpu.stats().compileSeconds, cpu.stats().cacheHits);
}

/// The nodes by time, most first, then the fallbacks with their reasons.
void printCompiledProfile(const runtime::cpu::CpuExecutor &cpu)
{
    std::vector<runtime::cpu::NodeProfile> nodes = cpu.lastProfile()->nodes();
    double total = 0;
    for (const auto &n : nodes)
        total += n.seconds;
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto &a, const auto &b) { return a.seconds > b.seconds; });
    std::printf("  profile (time per run, by node):\n");
    for (std::size_t i = 0; i < nodes.size() && i < 25; ++i) {
        const auto &n = nodes[i];
        std::printf("    %8.3f ms %5.1f%%  %s %-22s %-4s %s\n", n.runs ? n.seconds * 1e3 / static_cast<double>(n.runs) : 0.0,
                    total > 0 ? 100 * n.seconds / total : 0.0, support::tailColumn(n.name, 40).c_str(), n.opType.c_str(),
                    n.precision.c_str(), n.implementation.c_str());
    }
    if (nodes.size() > 25)
        std::printf("    … %zu more nodes\n", nodes.size() - 25);
    std::map<std::string, int> reasons;
    for (const auto &n : nodes)
        if (n.implementation == "reference")
            ++reasons[n.opType + ": " + n.whyFallback];
    if (!reasons.empty())
        std::printf("  fallbacks to reference kernels:\n");
    for (const auto &[reason, count] : reasons)
        std::printf("    %4d × %s\n", count, reason.c_str());
}

runtime::RunOptions quietOptions(runtime::RunOptions options)
{
    options.observer = nullptr;
    return options;
}

} // namespace

int runRun(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption outputDir("output-dir", "Write each output as output_K.pb, with manifest.json.", "DIR");
    const QCommandLineOption dumpAll("dump-all", "Write every intermediate tensor as it is produced, with manifest.json.", "DIR");
    const QCommandLineOption maxMemory("max-memory", "Stop the run before live tensors exceed SIZE (e.g. 4G; default: half of RAM).", "SIZE");
    const QCommandLineOption json("json", "Print the outputs' statistics as JSON.");
    const QCommandLineOption force("force", "Write into folders that already hold files.");
    const QCommandLineOption repeat("repeat", "Time N runs and print min/median/max latency.", "N", "1");
    const QCommandLineOption warmup("warmup", "Untimed runs before the timed ones.", "K", "0");
    const QCommandLineOption executor("executor", "reference (the accurate interpreter, the default), cpu (the "
                                                  "compiled executor: native oneDNN kernels, planned memory), cuda[:fp16|:bf16|:int8] "
                                                  "(the compiled graph on the local GPU, at fp32 or the precision named; int8 takes "
                                                  "the calibration options), or "
                                                  "'external:CMD {model} {inputs} {outputs}' (another runtime, run as a command "
                                                  "that reads input_K.pb or NAME.npy and writes .pb or .npy outputs).", "NAME",
                                      "reference");
    const QCommandLineOption externalTimeout = externalTimeoutOption();
    const QCommandLineOption noFallback("no-fallback", "cpu, cuda: refuse nodes without a native (CUDA) kernel instead of "
                                                       "running them on their reference kernel.");
    const QCommandLineOption stats("stats", "cpu, cuda: print the per-node profile, the fallbacks, the memory plan and "
                                            "(cpu) the profile cache or (cuda) the transfers.");
    parser.addOptions({outputDir, dumpAll, maxMemory, json, force, repeat, warmup, executor, noFallback, stats, externalTimeout});
    const FeedCommandOptions feedOptions;
    feedOptions.addTo(parser);
    const PassOptions passOptions;
    passOptions.addTo(parser);
    const PrecisionOptions precisionOptions;
    precisionOptions.addTo(parser);
    parser.addPositionalArgument("MODEL", "The .onnx model to run.");
    if (auto exit = parseArguments(parser, "run", "Run a model on the reference interpreter, the compiled CPU executor or the CUDA executor.",
                                   arguments, 1, 1))
        return *exit;

    const std::string executorName = parser.value(executor).toStdString();
    const bool external = executorName.starts_with("external:");
    const bool gpu = executorName == "cuda" || executorName.starts_with("cuda:");
    if (executorName != "reference" && executorName != "cpu" && !gpu && !external)
        return fail("--executor '" + executorName + "' is not one of: reference, cpu, cuda[:fp16|:bf16|:int8], external:CMD {model} {inputs} "
                    "{outputs}");
    const bool compiled = executorName == "cpu";
    const std::string gpuPrecision = executorName.starts_with("cuda:") ? executorName.substr(5) : "fp32";
    if (gpu && gpuPrecision != "fp32" && gpuPrecision != "fp16" && gpuPrecision != "bf16" && gpuPrecision != "int8")
        return fail("--executor '" + executorName + "': the CUDA executor runs at fp32, fp16, bf16 or int8");
    std::optional<compare::ExternalCommand> externalRun;
    if (external) {
        auto command = externalCommand(parser, externalTimeout, executorName);
        if (!command)
            return fail(command.error().format());
        externalRun = *command;
    }
    if ((parser.isSet(noFallback) || parser.isSet(stats)) && !compiled && !gpu)
        return fail("--no-fallback and --stats go with --executor cpu or cuda");
    if (precisionOptions.anySet(parser) && !compiled && !(gpu && !parser.isSet(precisionOptions.precision)))
        return fail("the precision options go with --executor cpu (name the CUDA executor's precision as cuda:fp16, cuda:bf16 or "
                    "cuda:int8; --keep-fp32 and the calibration options go with either)");
    if (auto st = passOptions.check(parser); !st)
        return fail(st.error().format());

    const std::string path = parser.positionalArguments().front().toStdString();
    auto loaded = ir::loadModelFile(path);
    if (!loaded)
        return fail(loaded.error().format());
    const ir::Model &model = *loaded->model;

    // The feeds first: a missing one is said before a big model is compiled.
    auto shapes = feedOptions.shapes(parser);
    auto built = feedOptions.feeds(parser, model);
    if (!shapes || !built)
        return fail((shapes ? built.error() : shapes.error()).format());
    const NamedValues feeds = std::move(*built);

    // The passes, when asked for (or by default for the compiled executor).
    auto requested = passOptions.run(parser, model, compiled || gpu ? 2 : 0);
    if (!requested)
        return fail(requested.error().format());
    const std::string pipelineText = requested->text;
    const std::shared_ptr<ir::Model> optimized = requested->result ? requested->result->model : nullptr;
    const ir::Model &target = optimized ? *optimized : model;
    if (external && optimized)
        return fail("an external runtime runs the model file as it is (it compiles it itself): drop the pipeline options");

    runtime::RunOptions options;
    if (parser.isSet(maxMemory)) {
        const auto bytes = parseSize(parser.value(maxMemory));
        if (!bytes)
            return fail("--max-memory '" + parser.value(maxMemory).toStdString() + "' is not a size such as 4G or 512M");
        options.maxMemoryBytes = *bytes;
    }
    for (const QCommandLineOption *dirOption : {&outputDir, &dumpAll})
        if (parser.isSet(*dirOption))
            if (auto st = prepareDirectory(parser.value(*dirOption).toStdString(), parser.isSet(force)); !st)
                return fail(st.error().format());
    std::unique_ptr<DumpObserver> dump;
    if (parser.isSet(dumpAll)) {
        dump = std::make_unique<DumpObserver>(target, parser.value(dumpAll).toStdString());
        options.observer = dump.get();
    }

    bool countsOk = true, warmupOk = true;
    const int repeats = parser.value(repeat).toInt(&countsOk);
    const int warmups = parser.value(warmup).toInt(&warmupOk);
    if (!countsOk || !warmupOk || repeats < 1 || warmups < 0)
        return fail("--repeat takes a count of at least 1 and --warmup one of at least 0");

    runtime::Interpreter interpreter(target);
    runtime::cpu::CompileOptions compileOptions;
    compileOptions.allowFallback = !parser.isSet(noFallback);
    if (compiled) {
        auto policy = resolvePrecisionPolicy(parser, precisionOptions, target, *shapes, parser.isSet(force), quietOptions(options));
        if (!policy)
            return fail(policy.error().format());
        compileOptions.precision = std::move(*policy);
    }
    runtime::cpu::CpuExecutor cpu(target, compileOptions);
    cpu.setProfiling(parser.isSet(stats));
    std::unique_ptr<GpuRun> cuda;
    if (gpu) {
        auto policy = resolvePrecisionPolicy(parser, precisionOptions, target, *shapes, parser.isSet(force), quietOptions(options),
                                             gpuPrecision);
        if (!policy)
            return fail(policy.error().format());
        auto opened = openGpuRun(target, {gpuPrecision, !parser.isSet(noFallback), parser.isSet(stats), std::move(policy->keepFp32),
                                          policy->calibration});
        if (!opened)
            return fail(opened.error().format());
        cuda = std::move(*opened);
    }
    const compare::RunSide externalSide = external ? compare::externalSide(model, path, *externalRun) : compare::RunSide{};
    auto execute = [&](const runtime::RunOptions &o) {
        return external ? externalSide.run(feeds, o) : compiled ? cpu.run(feeds, o) : cuda ? cuda->run(feeds, o) : interpreter.run(feeds, o);
    };
    const runtime::RunOptions quiet = quietOptions(options); // warm-ups and repeats dump nothing
    for (int i = 0; i < warmups; ++i)
        if (auto r = execute(quiet); !r)
            return fail(r.error().format());
    std::vector<double> latencies;
    support::Expected<NamedValues> outputs = NamedValues{};
    for (int i = 0; i < repeats; ++i) {
        const auto start = std::chrono::steady_clock::now();
        outputs = execute(i == 0 ? options : quiet);
        latencies.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (!outputs)
            return fail(outputs.error().format());
    }
    std::vector<double> sorted = latencies;
    std::sort(sorted.begin(), sorted.end());
    const double seconds = sorted[sorted.size() / 2];
    if (dump)
        if (auto st = dump->finish(); !st)
            return fail(st.error().format());

    if (parser.isSet(outputDir)) {
        const std::string dir = parser.value(outputDir).toStdString();
        support::JsonWriter manifest;
        manifest.beginArray();
        for (std::size_t k = 0; k < outputs->size(); ++k) {
            const std::string file = "output_" + std::to_string(k) + ".pb";
            const auto &[name, value] = (*outputs)[k];
            if (auto st = runtime::writeValueFile(value, name, dir + "/" + file, true); !st)
                return fail(st.error().format());
            manifestEntry(manifest, name, file, value);
            manifest.endObject();
        }
        manifest.endArray();
        if (auto st = support::writeFileWhole(dir + "/manifest.json", manifest.str() + "\n", support::Overwrite::Allow); !st)
            return fail(st.error().format());
    }

    const auto &referenceStats = interpreter.lastStats();
    const runtime::cpu::CompiledGraph *profile = compiled ? cpu.lastProfile() : nullptr;
    if (parser.isSet(json)) {
        support::JsonWriter w;
        w.beginObject().field("model", path).field("executor", executorName).field("pipeline", pipelineText).field("seconds", seconds);
        w.key("latency_ms").beginObject().field("min", sorted.front() * 1e3).field("median", seconds * 1e3)
            .field("max", sorted.back() * 1e3).field("runs", repeats).field("warmup", warmups).endObject();
        if (profile)
            writeCompiledStats(w, cpu, parser.isSet(stats));
        else if (cuda)
            cuda->writeJson(w, parser.isSet(stats));
        else
            w.field("nodes_run", static_cast<std::uint64_t>(referenceStats.nodesRun)).field("peak_bytes", static_cast<std::uint64_t>(referenceStats.peakBytes));
        w.key("outputs").beginArray();
        for (const auto &[name, value] : *outputs) {
            w.beginObject().field("name", name);
            writeStats(w, value);
            w.endObject();
        }
        w.endArray().endObject();
        std::printf("%s\n", w.str().c_str());
        return kExitOk;
    }
    if (profile)
        printCompiledSummary(path, pipelineText, cpu, seconds);
    else if (cuda)
        cuda->printSummary(path, pipelineText, seconds, parser.isSet(stats));
    else if (external)
        std::printf("Ran %s on the external command '%s' in %.3f s (writing the feeds, running it, reading what it wrote)\n",
                    path.c_str(), externalRun->text.c_str(), seconds);
    else
        std::printf("Ran %s on the reference interpreter%s: %zu nodes in %.3f s, peak %.1f MiB of live tensors\n", path.c_str(),
                    pipelineText.empty() ? "" : (" after " + pipelineText).c_str(), referenceStats.nodesRun, seconds,
                    static_cast<double>(referenceStats.peakBytes) / (1 << 20));
    if (repeats > 1)
        std::printf("  latency over %d runs (after %d warm-up): min %.2f ms, median %.2f ms, max %.2f ms\n", repeats,
                    warmups, sorted.front() * 1e3, seconds * 1e3, sorted.back() * 1e3);
    if (profile && parser.isSet(stats))
        printCompiledProfile(cpu);
    for (const auto &[name, value] : *outputs) {
        std::printf("  %s  %s", name.c_str(), value.describe().c_str());
        if (value.isTensor()) {
            const auto s = runtime::tensorStats(value.tensor);
            if (s.numeric)
                std::printf("  min %.6g  max %.6g  mean %.6g  std %.6g%s", s.min, s.max, s.mean, s.stddev,
                            s.nans || s.infs ? ("  (" + std::to_string(s.nans) + " NaN, " + std::to_string(s.infs) + " Inf)").c_str() : "");
        }
        std::printf("\n");
    }
    if (dump)
        std::printf("Dumped %zu intermediate tensors to %s\n", dump->count(), qPrintable(parser.value(dumpAll)));
    return kExitOk;
}

} // namespace portolan::cli
