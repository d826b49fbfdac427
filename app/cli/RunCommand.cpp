// `portolan run MODEL [--executor reference|cpu|cuda[:fp16|bf16|int8]|external:CMD] [--pipeline P | -O0 | -O1 | -O2] [--no-fallback]
//  [--precision fp32|fp16|bf16|int8 [--keep-fp32 RULE]… [--calibration DIR|random:N[:SEED]]
//   [--calibration-method M] [--calibration-table FILE] [--save-calibration FILE]]
//  [--input NAME=FILE.pb|NAME=random[:SEED]]… [--inputs DIR] [--shape NAME=D,…]… [--output-dir DIR]
//  [--dump-all DIR] [--max-memory SIZE] [--repeat N] [--warmup K] [--stats] [--json] [--force]`:
// parse → session::RunRequest → Workbench::run → render. Runs the model on the reference
// interpreter, the compiled CPU executor or the CUDA executor (after the passes, -O2 by default for
// cpu and cuda, none for reference) or an external command, and writes outputs (and, with
// --dump-all, every intermediate) as TensorProto files.
#include "cli/Arguments.h"
#include "cli/Command.h"
#include "cli/ExternalOptions.h"
#include "cli/Feeds.h"
#include "cli/PassOptions.h"
#include "cli/PrecisionOptions.h"
#include "cli/RunRender.h"
#include "session/RunJson.h"
#include "session/Workbench.h"

#include <cstdio>

namespace portolan::cli {

namespace {

int fail(const std::string &message)
{
    std::fprintf(stderr, "portolan run: error: %s\n", message.c_str());
    return kExitUsage;
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
                                                  "that reads input_K.pb or NAME.npy and writes .pb or .npy outputs), or "
                                                  "ort[:disabled|basic|extended|all] (ONNX Runtime, installed on first use with npm).",
                                      "NAME",
                                      "reference");
    const QCommandLineOption timeoutOption = externalTimeoutOption();
    const QCommandLineOption noFallback("no-fallback", "cpu, cuda: refuse nodes without a native (CUDA) kernel instead of "
                                                       "running them on their reference kernel.");
    const QCommandLineOption stats("stats", "cpu, cuda: print the per-node profile, the fallbacks, the memory plan and "
                                            "(cpu) the shape-plan cache or (cuda) the transfers.");
    parser.addOptions({outputDir, dumpAll, maxMemory, json, force, repeat, warmup, executor, noFallback, stats, timeoutOption});
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
    auto side = session::SideSpec::parse(executorName);
    if (!side || side->kind == session::SideSpec::Kind::Imported || executorName.starts_with("cpu:"))
        return fail("--executor '" + executorName + "' is not one of: reference, cpu, cuda[:fp16|:bf16|:int8], external:CMD {model} "
                    "{inputs} {outputs}, ort[:disabled|basic|extended|all]" + (side ? std::string() : " (" + side.error().primary.message + ")"));
    const bool compiled = side->isCompiled() && side->executor == "cpu";
    const bool gpu = side->isCompiled() && side->executor == "cuda";
    if (side->kind == session::SideSpec::Kind::External || side->kind == session::SideSpec::Kind::OnnxRuntime) {
        auto seconds = externalTimeout(parser, timeoutOption);
        if (!seconds)
            return fail(seconds.error().format());
        side->timeoutSeconds = *seconds;
    }
    if ((parser.isSet(noFallback) || parser.isSet(stats)) && !compiled && !gpu)
        return fail("--no-fallback and --stats go with --executor cpu or cuda");
    if (precisionOptions.anySet(parser) && !compiled && !(gpu && !parser.isSet(precisionOptions.precision)))
        return fail("the precision options go with --executor cpu (name the CUDA executor's precision as cuda:fp16, cuda:bf16 or "
                    "cuda:int8; --keep-fp32 and the calibration options go with either)");
    if (compiled) {
        side->precision = parser.value(precisionOptions.precision).toStdString();
        if (auto p = runtime::parsePrecision(side->precision); !p)
            return fail(p.error().format());
    }
    if (auto st = passOptions.check(parser); !st)
        return fail(st.error().format());

    session::RunRequest request;
    request.executor = std::move(*side);
    request.pipeline = passOptions.text(parser, compiled || gpu ? 2 : 0);
    auto lowering = loweringSettings(parser, precisionOptions, (compiled || gpu) && request.executor.precision == "int8", parser.isSet(force));
    if (!lowering)
        return fail(lowering.error().format());
    request.lowering = std::move(*lowering);
    request.allowFallback = !parser.isSet(noFallback);
    request.profile = parser.isSet(stats);
    auto feeds = feedOptions.spec(parser);
    if (!feeds)
        return fail(feeds.error().format());
    request.feeds = std::move(*feeds);
    if (parser.isSet(maxMemory)) {
        const auto bytes = parseSize(parser.value(maxMemory));
        if (!bytes)
            return fail("--max-memory '" + parser.value(maxMemory).toStdString() + "' is not a size such as 4G or 512M");
        request.maxMemoryBytes = *bytes;
    }
    bool countsOk = true, warmupOk = true;
    request.repeat = parser.value(repeat).toInt(&countsOk);
    request.warmup = parser.value(warmup).toInt(&warmupOk);
    if (!countsOk || !warmupOk || request.repeat < 1 || request.warmup < 0)
        return fail("--repeat takes a count of at least 1 and --warmup one of at least 0");
    request.outputDir = parser.value(outputDir).toStdString();
    request.dumpDir = parser.value(dumpAll).toStdString();
    request.overwrite = parser.isSet(force);

    session::Workbench workbench;
    if (auto st = workbench.open(parser.positionalArguments().front().toStdString()); !st)
        return fail(st.error().format());
    auto outcome = workbench.run(request);
    if (!outcome)
        return fail(withFeedHint(outcome.takeError()).format());
    if (parser.isSet(json))
        std::printf("%s\n", session::runJson(*outcome).c_str());
    else
        printRun(*outcome);
    return kExitOk;
}

} // namespace portolan::cli
