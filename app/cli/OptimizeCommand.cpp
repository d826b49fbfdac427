// `portolan optimize MODEL -o OUT.onnx [--pipeline P | -O1 | -O2 | -O3 [--precision fp16]] [--standard-only]
//  [--verify-each] [--check-numerics [--atol A --rtol R --seed S --shape NAME=D,…]] [--dump-dir D
//  [--print-after-all | --print-after-change]] [--stop-after N] [--stats] [--why-not] [--json] [--force]`
#include "cli/Arguments.h"
#include "cli/Command.h"

#include "passes/CompileReport.h"
#include "session/Workbench.h"

#include <cstdio>

namespace portolan::cli {

static int fail(const std::string &message)
{
    std::fprintf(stderr, "portolan optimize: error: %s\n", message.c_str());
    return kExitUsage;
}

int runOptimize(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption output({"o", "output"}, "Write the optimized model to FILE.", "FILE");
    const QCommandLineOption pipeline("pipeline", "Passes to run, e.g. 'infer-shapes,fuse-layer-norm,eliminate-dead' "
                                                  "(see `portolan passes`).", "P");
    const QCommandLineOption o1("O1", "Cleanup: shapes, constants, identities, canonical forms, dead code.");
    const QCommandLineOption o2("O2", "Cleanup and fusions (the default).");
    const QCommandLineOption o3("O3", "-O2 plus precision lowering to --precision.");
    const QCommandLineOption precision("precision", "With -O3: fp16, bf16 or int8.", "TYPE");
    const QCommandLineOption standardOnly("standard-only", "Create only standard ONNX ops (no ai.portolan fused ops).");
    const QCommandLineOption verifyEach("verify-each", "Check IR invariants and run the ONNX checker after every pass.");
    const QCommandLineOption checkNumerics("check-numerics", "Run the model before and after every pass on the "
                                                             "reference interpreter and report the error each introduced.");
    const QCommandLineOption atol("atol", "Absolute tolerance of the numeric check.", "A", "1e-5");
    const QCommandLineOption rtol("rtol", "Relative tolerance of the numeric check.", "R", "1e-5");
    const QCommandLineOption seed("seed", "Seed of the numeric check's random inputs (the K-th graph input gets S+K).", "S",
                                  QString::number(runtime::kDefaultSeed));
    const QCommandLineOption shape("shape", "Dims for an input with dynamic dims in the numeric check. Repeatable.",
                                   "NAME=D0,D1,…");
    const QCommandLineOption dumpDir("dump-dir", "Write dumps and, on failure, a reproducer into DIR.", "DIR");
    const QCommandLineOption printAfterAll("print-after-all", "Dump the model after every pass into --dump-dir.");
    const QCommandLineOption printAfterChange("print-after-change", "Dump the model after every pass that changed it.");
    const QCommandLineOption stopAfter("stop-after", "Run only the first N passes (for bisection).", "N");
    const QCommandLineOption stats("stats", "Print each pass's statistics.");
    const QCommandLineOption whyNot("why-not", "Print each pass's near-misses: what it looked at and why it declined.");
    const QCommandLineOption json("json", "Print the run as JSON (schema: docs/optimize-json.md).");
    const QCommandLineOption force("force", "Overwrite an existing output file.");
    parser.addOptions({output, pipeline, o1, o2, o3, precision, standardOnly, verifyEach, checkNumerics, atol, rtol, seed,
                       shape, dumpDir, printAfterAll, printAfterChange, stopAfter, stats, whyNot, json, force});
    parser.addPositionalArgument("MODEL", "The .onnx model to optimize.");
    if (auto exit = parseArguments(parser, "optimize", "Run compiler passes over a model and save the result.", arguments, 1, 1))
        return *exit;

    const std::string modelPath = parser.positionalArguments().front().toStdString();
    if (!parser.isSet(output))
        return fail("-o OUT.onnx is required");
    const std::string outputPath = parser.value(output).toStdString();

    const int levels = int(parser.isSet(o1)) + int(parser.isSet(o2)) + int(parser.isSet(o3));
    if (levels > 1 || (levels == 1 && parser.isSet(pipeline)))
        return fail("give one of --pipeline, -O1, -O2, -O3");
    if (parser.isSet(precision) && !parser.isSet(o3))
        return fail("--precision goes with -O3 (or put lower-precision{to=…} in --pipeline)");
    auto parsed = parser.isSet(pipeline) ? passes::parsePipeline(parser.value(pipeline).toStdString())
                  : parser.isSet(o1)     ? passes::presetPipeline(1)
                  : parser.isSet(o3)     ? passes::presetPipeline(3, parser.value(precision).toStdString())
                                         : passes::presetPipeline(2);
    if (!parsed)
        return fail(parsed.error().format());

    passes::PassManagerOptions options;
    options.verifyEach = parser.isSet(verifyEach);
    options.checkNumerics = parser.isSet(checkNumerics);
    options.standardOnly = parser.isSet(standardOnly);
    bool ok = true;
    options.atol = parser.value(atol).toDouble(&ok);
    if (!ok || options.atol < 0)
        return fail("--atol must be a non-negative number");
    options.rtol = parser.value(rtol).toDouble(&ok);
    if (!ok || options.rtol < 0)
        return fail("--rtol must be a non-negative number");
    options.seed = parser.value(seed).toULongLong(&ok);
    if (!ok)
        return fail("--seed must be a non-negative integer");
    auto shapes = parseShapeSpecs(parser.values(shape));
    if (!shapes)
        return fail(shapes.error().format());
    options.inputShapes = std::move(*shapes);
    options.dumpDir = parser.value(dumpDir).toStdString();
    options.printAfterAll = parser.isSet(printAfterAll);
    options.printAfterChange = parser.isSet(printAfterChange);
    if ((options.printAfterAll || options.printAfterChange) && options.dumpDir.empty())
        return fail("--print-after-all and --print-after-change need --dump-dir");
    if (parser.isSet(stopAfter)) {
        options.stopAfter = parser.value(stopAfter).toInt(&ok);
        if (!ok || options.stopAfter < 0)
            return fail("--stop-after must be a non-negative integer");
    }

    session::Workbench workbench;
    if (auto st = workbench.open(modelPath); !st)
        return fail(st.error().format());
    auto optimized = workbench.optimize({*parsed, options, outputPath, parser.isSet(force)});
    if (!optimized)
        return fail(optimized.error().format());
    const passes::CompileResult *result = &optimized->optimized;

    passes::CompileReportOptions report;
    report.modelPath = modelPath;
    report.outputPath = outputPath;
    report.pipeline = parsed->str();
    report.statistics = parser.isSet(stats);
    report.matchFailures = parser.isSet(whyNot);
    if (parser.isSet(json)) {
        std::fputs(passes::compileReportJson(*result, report).c_str(), stdout);
    } else {
        const std::string &data = optimized->weightsPath;
        std::fputs((passes::compileReportText(*result, report) + "Wrote " + outputPath +
                    (data.empty() ? "" : " and its weights, " + data) + "\n").c_str(), stdout);
    }
    if (!passes::numericsWithinTolerance(*result)) {
        std::fprintf(stderr, "portolan optimize: a pass changed the outputs beyond atol %g + rtol %g\n", options.atol,
                     options.rtol);
        return kExitFindings;
    }
    return kExitOk;
}

} // namespace portolan::cli
