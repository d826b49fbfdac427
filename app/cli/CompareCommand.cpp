// `portolan compare MODEL [--a reference|cpu[:PREC]] [--b reference|cpu[:PREC]] [--pipeline P | -O0 | -O1 | -O2]
//  [--keep-fp32 RULE]… [--calibration …] [--inputs DIR] [--input NAME=…]… [--shape NAME=D,…]… [--seed N]
//  [--atol A] [--rtol R] [--tolerance NAME=A,R]… [--max-memory SIZE] [--top N] [--all] [--json]`:
// runs the model twice (by default: the reference interpreter on the model as loaded, and the
// compiled CPU executor after -O2) and compares every tensor the two runs share, aligned through
// the passes' provenance. Exit 0 when every output is within tolerance, 1 when one is not.
#include "cli/Arguments.h"
#include "cli/CudaRun.h"
#include "cli/Command.h"
#include "cli/ExternalOptions.h"
#include "cli/Feeds.h"
#include "cli/PassOptions.h"
#include "cli/PrecisionOptions.h"
#include "session/PortReportBuilder.h"

#ifdef PORTOLAN_HAVE_GUI
#include "report/ReportPdf.h"
#endif
#include "cli/ToleranceOptions.h"

#include "compare/Divergence.h"
#include "compare/ExternalRun.h"
#include "compare/ImportedRun.h"
#include "compare/KernelCheck.h"
#include "compare/Repro.h"
#include "compare/ReproReadme.h"
#include "compare/RunComparison.h"
#include "diagnose/DynamicShapes.h"
#include "diagnose/TargetCheck.h"
#include "ir/ModelLoader.h"
#include "runtime/cpu/CpuExecutor.h"
#include "session/ModelFindings.h"
#include "support/JsonWriter.h"
#include "support/NumberText.h"
#include "support/TextColumn.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

namespace portolan::cli {

namespace {

/// The GUI library's PDF renderer, in builds that have it.
session::PdfWriter pdfWriter()
{
#ifdef PORTOLAN_HAVE_GUI
    return views::reportPdfWriter();
#else
    return {};
#endif
}

int fail(const std::string &message)
{
    std::fprintf(stderr, "portolan compare: error: %s\n", message.c_str());
    return kExitUsage;
}

/// "reference", "cpu", "cpu:PRECISION", "import:PATH" (another runtime's tensors) or
/// "external:CMD {model} {inputs} {outputs}" (another runtime, run).
struct SideSpec {
    bool compiled = false;
    bool gpu = false;        ///< the CUDA executor, floats stored at `precision` ("" is fp32)
    std::string precision;   ///< cpu: "" (the --precision option's) or the one named
    std::string importFrom;  ///< import: a folder of .pb / .npy files, an .npz, or Polygraphy's .json[#RUNNER]
    std::string external;    ///< external: the whole "external:CMD …"
};

support::Expected<SideSpec> parseSide(const std::string &text)
{
    SideSpec spec;
    if (text == "reference")
        return spec;
    if (text.starts_with("import:") && text.size() > 7) {
        spec.importFrom = text.substr(7);
        return spec;
    }
    if (text.starts_with("external:")) {
        spec.external = text;
        return spec;
    }
    spec.compiled = true;
    if (text == "cpu")
        return spec;
    if (text == "cuda" || text.starts_with("cuda:")) {
        spec.gpu = true;
        spec.precision = text == "cuda" ? "fp32" : text.substr(5);
        if (spec.precision != "fp32" && spec.precision != "fp16" && spec.precision != "bf16" && spec.precision != "int8")
            return support::makeError("bad-side", "'" + text + "': the CUDA executor runs at fp32, fp16, bf16 or int8");
        return spec;
    }
    if (text.starts_with("cpu:")) {
        if (auto p = runtime::cpu::parsePrecision(text.substr(4)); !p)
            return p.takeError();
        spec.precision = text.substr(4);
        return spec;
    }
    return support::makeError("bad-side", "'" + text + "' is not reference, cpu, cpu:PRECISION (fp32, fp16, bf16, int8), cuda, "
                                          "import:PATH or external:CMD {model} {inputs} {outputs}");
}

void writeMetrics(support::JsonWriter &w, const compare::ComparedTensor &t)
{
    const compare::TensorMetrics &m = t.metrics;
    auto number = [&](const char *key, double v) {
        if (std::isfinite(v))
            w.field(key, v);
        else
            w.key(key).value(std::string(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"));
    };
    w.beginObject().field("name", t.name);
    if (t.nameInB != t.name)
        w.field("name_in_b", t.nameInB);
    w.field("node", t.node).field("op_type", t.opType).field("output", t.output);
    if (!m.mismatch.empty()) {
        w.field("mismatch", m.mismatch).field("passed", false).endObject();
        return;
    }
    w.field("passed", m.passed).field("elements", m.elements);
    const std::pair<const char *, double> statistics[] = {
        {"max_abs", m.maxAbs},   {"mean_abs", m.meanAbs}, {"median_abs", m.medianAbs}, {"p99_abs", m.p99Abs},
        {"max_rel", m.maxRel},   {"mean_rel", m.meanRel}, {"median_rel", m.medianRel}, {"p99_rel", m.p99Rel},
        {"rmse", m.rmse},        {"cosine", m.cosine},    {"snr_db", m.snrDb}};
    for (const auto &[key, v] : statistics)
        number(key, v);
    number("reference_scale", t.metrics.referenceScale);
    number("normalized_error", compare::normalizedError(t));
    number("atol", t.tolerance.atol);
    number("rtol", t.tolerance.rtol);
    number("needed_atol", m.neededAtol);
    number("needed_rtol", m.neededRtol);
    w.key("nan").beginObject().field("a", m.referenceNans).field("b", m.actualNans).endObject();
    w.key("inf").beginObject().field("a", m.referenceInfs).field("b", m.actualInfs).endObject();
    if (m.worstIndex >= 0) {
        w.key("worst").beginObject().key("index").beginArray();
        for (const std::int64_t i : m.worstAt)
            w.value(i);
        w.endArray();
        number("a", m.worstReference);
        number("b", m.worstActual);
        w.endObject();
    }
    if (m.top1)
        w.field("top1", *m.top1).field("top5", *m.top5);
    w.endObject();
}

void printTensor(const compare::ComparedTensor &t)
{
    const compare::TensorMetrics &m = t.metrics;
    if (!m.mismatch.empty()) {
        std::printf("    %s %s\n", support::tailColumn(t.name, 40).c_str(), m.mismatch.c_str());
        return;
    }
    std::printf("    %s %-4s max abs %-8s (%-8s of scale)  cos %.6f  SNR %-6s dB", support::tailColumn(t.name, 40).c_str(),
                m.passed ? "ok" : "FAIL", support::shortNumber(m.maxAbs).c_str(), support::shortNumber(compare::normalizedError(t)).c_str(),
                m.cosine, support::shortNumber(m.snrDb).c_str());
    if (m.top1)
        std::printf("  top-1 %.3f top-5 %.3f", *m.top1, *m.top5);
    if (m.actualNans || m.actualInfs)
        std::printf("  (b: %lld NaN, %lld Inf)", static_cast<long long>(m.actualNans), static_cast<long long>(m.actualInfs));
    std::printf("\n");
}

} // namespace

namespace {


enum class Mode { Compare, Repro, Report };
int compareCommand(const QStringList &arguments, Mode mode);

} // namespace

int runCompare(const QStringList &arguments)
{
    return compareCommand(arguments, Mode::Compare);
}

int runRepro(const QStringList &arguments)
{
    return compareCommand(arguments, Mode::Repro);
}

int runReport(const QStringList &arguments)
{
    return compareCommand(arguments, Mode::Report);
}

namespace {

int compareCommand(const QStringList &arguments, Mode mode)
{
    const bool reproMode = mode == Mode::Repro;
    QCommandLineParser parser;
    const QCommandLineOption sideA("a", "The run compared against: reference (the default) or cpu[:PRECISION].", "RUN", "reference");
    const QCommandLineOption sideB("b", "The run checked: cpu (the default), cpu:fp16, cpu:bf16, cpu:int8, cuda, cuda:fp16, "
                                        "cuda:bf16, cuda:int8 (the local GPU), reference, or "
                                        "import:PATH (another runtime's tensors: a folder of .pb files named inside and .npy files named by "
                                        "file name, an .npz archive, or Polygraphy's --save-outputs FILE.json[#RUNNER]), or "
                                        "external:'CMD {model} {inputs} {outputs}' (another runtime: it reads input_K.pb or "
                                        "NAME.npy from {inputs} and writes .pb or .npy files into {outputs}).",
                                   "RUN", "cpu");
    const QCommandLineOption tolerance("tolerance", "Tolerance of one tensor (by A's name). Repeatable.", "NAME=A,R");
    const QCommandLineOption maxMemory("max-memory", "Bytes of A's tensors held in memory before spilling to disk (e.g. 2G).", "SIZE");
    const QCommandLineOption top("top", "How many suspects and worst tensors to list.", "N", "10");
    const QCommandLineOption all("all", "List every compared tensor.");
    const QCommandLineOption json("json", "Print the comparison as JSON.");
    const QCommandLineOption noKernelCheck("no-kernel-check", "Do not re-run the failing suspects' nodes alone on the "
                                                              "reference kernels (one more run of B, made when an output fails).");
    const QCommandLineOption externalTimeout = externalTimeoutOption();
    parser.addOptions({sideA, sideB, tolerance, maxMemory, top, all, json, noKernelCheck, externalTimeout});
    FeedCommandOptions feedOptions;
    feedOptions.withSeed = true;
    feedOptions.addTo(parser);
    const ToleranceOptions toleranceOptions;
    toleranceOptions.addTo(parser);
    const QCommandLineOption output({"o", "output"}, mode == Mode::Report ? "The report to write: .json, .md, .html or .pdf."
                                                                         : "The folder to write the repro into.",
                                    mode == Mode::Report ? "FILE" : "DIR");
    const QCommandLineOption reportFile("report", "Also write the port report (.json, .md, .html or .pdf).", "FILE");
    const QCommandLineOption node("node", "repro: cut around this node of run B's model (default: the first divergence).", "NAME");
    const QCommandLineOption depth("depth", "repro: levels of producers to include before the node, before shrinking.", "N", "0");
    const QCommandLineOption noShrink("no-shrink", "repro: keep the cut as asked for (by default nodes are dropped while "
                                                   "the failure still reproduces).");
    const QCommandLineOption force("force", "Replace an existing report, or write into a folder that holds files.");
    const QCommandLineOption target({"t", "target"}, "The report also checks the model as loaded against this target profile "
                                                     "(an id: portolan check --list-targets, or a profile .json).",
                                    "TARGET");
    if (reproMode)
        parser.addOptions({output, node, depth, noShrink, force});
    else if (mode == Mode::Report)
        parser.addOptions({output, force, target});
    else
        parser.addOptions({reportFile, force, target});
    const PassOptions passOptions;
    passOptions.addTo(parser);
    const PrecisionOptions precisionOptions;
    precisionOptions.addTo(parser);
    parser.addPositionalArgument("MODEL", "The .onnx model to compare two runs of.");
    const char *name = mode == Mode::Repro ? "repro" : mode == Mode::Report ? "report" : "compare";
    const char *summary = mode == Mode::Repro    ? "Cut the subgraph where two runs diverge into a standalone repro."
                          : mode == Mode::Report ? "Compare two runs and write the one-page port report."
                                                 : "Compare two runs of a model tensor by tensor.";
    if (auto exit = parseArguments(parser, name, summary, arguments, 1, 1))
        return *exit;
    if (mode == Mode::Report && !parser.isSet(output))
        return fail("report needs -o FILE (.json, .md, .html or .pdf)");
    const bool writesReport = mode == Mode::Report || (mode == Mode::Compare && parser.isSet(reportFile));
    std::optional<diagnose::TargetProfile> profile;
    if (!reproMode && parser.isSet(target)) {
        if (!writesReport)
            return fail("--target goes into the port report: give --report FILE too (or run portolan check)");
        auto found = diagnose::findTargetProfile(parser.value(target).toStdString());
        if (!found)
            return fail(found.error().format());
        profile = std::move(*found);
    }
    bool depthOk = true;
    const int depthValue = reproMode ? parser.value(depth).toInt(&depthOk) : 0;
    if (reproMode && (!parser.isSet(output) || !depthOk || depthValue < 0))
        return fail("repro needs -o DIR, and --depth a count of at least 0");

    auto specA = parseSide(parser.value(sideA).toStdString());
    auto specB = parseSide(parser.value(sideB).toStdString());
    if (!specA || !specB)
        return fail((specA ? specB : specA).error().format());
    if (auto st = passOptions.check(parser); !st)
        return fail(st.error().format());
    bool countOk = false;
    const int topCount = parser.value(top).toInt(&countOk);
    if (!countOk || topCount < 0)
        return fail("--top takes a count");

    const std::string path = parser.positionalArguments().front().toStdString();
    auto loaded = ir::loadModelFile(path);
    if (!loaded)
        return fail(loaded.error().format());
    const ir::Model &model = *loaded->model;

    // The feeds first: a wrong one is said before a big model is compiled.
    auto shapes = feedOptions.shapes(parser);
    auto feeds = feedOptions.feeds(parser, model);
    if (!shapes || !feeds)
        return fail((shapes ? feeds.error() : shapes.error()).format());

    // The compiled sides run the optimized model; alignment follows the passes' provenance.
    std::shared_ptr<ir::Model> optimized;
    passes::Provenance provenance;
    std::string pipelineText;
    if (specA->compiled || specB->compiled) {
        auto requested = passOptions.run(parser, model, 2);
        if (!requested)
            return fail(requested.error().format());
        if (requested->result) {
            optimized = requested->result->model;
            provenance = requested->result->provenance;
            pipelineText = requested->label;
        }
    }
    const ir::Model &compiledModel = optimized ? *optimized : model;

    runtime::Interpreter interpreter(model);
    std::vector<std::unique_ptr<runtime::cpu::CpuExecutor>> executors;
    std::vector<std::unique_ptr<GpuRun>> gpuRuns;
    std::vector<std::string> unknownImported;
    // the policy of each precision a side runs at: int8 calibrates once, however many sides use it
    std::map<std::string, runtime::cpu::PrecisionPolicy> policies;
    auto policyFor = [&](const std::string &precision) -> support::Expected<runtime::cpu::PrecisionPolicy> {
        if (const auto known = policies.find(precision); known != policies.end())
            return known->second;
        auto policy = resolvePrecisionPolicy(parser, precisionOptions, compiledModel, *shapes, false, {}, precision);
        if (policy)
            policies[precision] = *policy;
        return policy;
    };
    auto makeSide = [&](const SideSpec &spec) -> support::Expected<compare::RunSide> {
        if (!spec.external.empty()) {
            auto command = externalCommand(parser, externalTimeout, spec.external);
            if (!command)
                return command.takeError();
            return compare::externalSide(model, path, *command);
        }
        if (!spec.importFrom.empty()) {
            auto imported = compare::readImportedRun(spec.importFrom, model);
            if (!imported)
                return imported.takeError();
            unknownImported.insert(unknownImported.end(), imported->unknownNames.begin(), imported->unknownNames.end());
            return compare::importedSide(model, std::make_shared<const compare::ImportedRun>(std::move(*imported)));
        }
        if (spec.gpu) {
            auto policy = policyFor(spec.precision);
            if (!policy)
                return policy.takeError();
            GpuRunOptions gpuOptions;
            gpuOptions.precision = spec.precision;
            gpuOptions.keepFp32 = std::move(policy->keepFp32);
            gpuOptions.profiling = writesReport; // the report shows where B's time went
            gpuOptions.calibration = policy->calibration;
            auto opened = openGpuRun(compiledModel, gpuOptions);
            if (!opened)
                return opened.takeError();
            gpuRuns.push_back(std::move(*opened));
            GpuRun *gpu = gpuRuns.back().get();
            return compare::RunSide{"cuda:" + spec.precision, &compiledModel,
                                    [gpu](const runtime::NamedValues &f, const runtime::RunOptions &o) { return gpu->run(f, o); },
                                    [gpuOptions](const ir::Model &other,
                                                 const runtime::NamedValues &f) -> support::Expected<runtime::NamedValues> {
                                        auto again = openGpuRun(other, gpuOptions);
                                        if (!again)
                                            return again.takeError();
                                        return (*again)->run(f, {});
                                    }};
        }
        if (!spec.compiled)
            return compare::RunSide{"reference", &model,
                                    [&](const runtime::NamedValues &f, const runtime::RunOptions &o) { return interpreter.run(f, o); },
                                    [](const ir::Model &other, const runtime::NamedValues &f) {
                                        return runtime::Interpreter(other).run(f);
                                    }};
        auto policy = policyFor(spec.precision);
        if (!policy)
            return policy.takeError();
        runtime::cpu::CompileOptions options;
        options.precision = std::move(*policy);
        executors.push_back(std::make_unique<runtime::cpu::CpuExecutor>(compiledModel, options));
        runtime::cpu::CpuExecutor *cpu = executors.back().get();
        return compare::RunSide{std::string("cpu:") + runtime::cpu::precisionName(cpu->options().precision.precision),
                                &compiledModel,
                                [cpu](const runtime::NamedValues &f, const runtime::RunOptions &o) { return cpu->run(f, o); },
                                [options](const ir::Model &other, const runtime::NamedValues &f) {
                                    return runtime::cpu::CpuExecutor(other, options).run(f);
                                }};
    };
    auto a = makeSide(*specA);
    auto b = makeSide(*specB);
    if (!a || !b)
        return fail((a ? b : a).error().format());

    // Alignment: a pipeline's provenance when exactly one side runs the optimized model, else names.
    const bool acrossPasses = (a->model != b->model) && optimized;
    compare::Alignment alignment = acrossPasses ? compare::alignByProvenance(*a->model, *b->model, provenance)
                                                : compare::alignByName(*a->model, *b->model);
    if (acrossPasses && a->model == optimized.get()) { // A optimized, B as loaded: align the other way round
        alignment.clear();
        for (const auto &[vb, va] : compare::alignByProvenance(*b->model, *a->model, provenance))
            alignment[va] = vb;
    }

    compare::ComparisonOptions options;
    // a run's precision follows the executor's name in its label: cpu:fp16, cuda:bf16…
    const std::size_t colon = b->label.find(':');
    const bool executorLabel = b->label.starts_with("cpu:") || b->label.starts_with("cuda:");
    const std::string precisionB = executorLabel ? b->label.substr(colon + 1) : "fp32";
    auto resolved = toleranceOptions.resolve(parser, precisionB);
    if (!resolved)
        return fail(resolved.error().format());
    options.tolerance = *resolved;
    for (const QString &spec : parser.values(tolerance)) {
        const QStringList parts = spec.section('=', 1).split(',');
        bool okA = false, okR = false;
        const double av = parts.value(0).toDouble(&okA), rv = parts.value(1).toDouble(&okR);
        if (!spec.contains('=') || parts.size() != 2 || !okA || !okR || av < 0 || rv < 0)
            return fail("--tolerance '" + spec.toStdString() + "' is not NAME=ATOL,RTOL");
        options.overrides[spec.section('=', 0, 0).toStdString()] = {av, rv};
    }
    if (parser.isSet(maxMemory)) {
        const auto bytes = parseSize(parser.value(maxMemory));
        if (!bytes)
            return fail("--max-memory '" + parser.value(maxMemory).toStdString() + "' is not a size such as 512M");
        options.memoryBudget = *bytes;
    }

    auto result = compare::compareRuns(*a, *b, alignment, *feeds, options);
    if (!result)
        return fail(result.error().format());
    const auto suspects = compare::rankSuspects(*result, *b->model, static_cast<std::size_t>(topCount));
    const compare::ComparedTensor *first = compare::firstDivergence(*result, *b->model);
    const bool passed = result->outputsPassed();
    // introduced or propagated: the failing suspects' nodes alone on the reference kernels
    std::map<const compare::Suspect *, compare::KernelCheck> kernelChecks;
    if (!passed && !parser.isSet(noKernelCheck)) {
        auto checks = compare::checkSuspectKernels(*b, *feeds, compare::failingSuspects(suspects), options);
        if (!checks)
            return fail(checks.error().format());
        kernelChecks = compare::checksBySuspect(suspects, *checks);
    }

    if (writesReport) {
        const std::optional<runtime::cpu::ProfileFigures> figuresB =
            specB->compiled && !specB->gpu && !executors.empty() ? executors.back()->lastFigures() : std::nullopt;
        // B's GPU profile from one more run, unobserved: the comparison's run carried every compared
        // tensor's download and the first launch's costs
        std::optional<runtime::AcceleratorProfile> acceleratorB;
        if (specB->gpu && !gpuRuns.empty() && gpuRuns.back()->run(*feeds, {}))
            acceleratorB = gpuRuns.back()->profile(true);
        // The report's "before it runs" half judges the model as loaded: the file the target's compiler is handed.
        const support::Diagnostics findings = session::modelFindings(model, loaded->warnings);
        diagnose::ShapeOptions shapeOptions;
        shapeOptions.target = profile;
        auto shapeAnalysis = diagnose::analyzeShapes(model, shapeOptions);
        if (!shapeAnalysis)
            return fail(shapeAnalysis.error().format());
        std::optional<diagnose::TargetCheck> check;
        if (profile)
            check = diagnose::checkTarget(model, *profile);
        const report::PortReport portReport =
            session::buildPortReport({path, a->model, b->model, &*result, &suspects, &kernelChecks, first, pipelineText, options.tolerance,
                             figuresB ? &*figuresB : nullptr, &findings, &*shapeAnalysis, check ? &*check : nullptr,
                             acceleratorB ? &*acceleratorB : nullptr});
        const std::string file = parser.value(mode == Mode::Report ? output : reportFile).toStdString();
        if (auto st = session::writePortReport(portReport, file, parser.isSet(force), pdfWriter()); !st)
            return fail(st.error().format());
        if (mode == Mode::Report) {
            std::printf("Wrote the port report of %s (%s against %s: %s) to %s\n", path.c_str(), result->labelB.c_str(),
                        result->labelA.c_str(), passed ? "outputs within tolerance" : "outputs OUT OF TOLERANCE", file.c_str());
            return passed ? kExitOk : kExitFindings;
        }
    }

    if (reproMode) {
        const std::string wanted = parser.isSet(node) ? parser.value(node).toStdString() : first ? first->node : std::string();
        if (wanted.empty())
            return fail("no tensor goes out of tolerance on its own: name the node to cut around with --node");
        ir::NodeId target;
        for (const ir::NodeId n : b->model->graph(b->model->mainGraph()).nodes)
            if (b->model->node(n).alive && compare::displayNameOf(b->model->node(n)) == wanted)
                target = n;
        if (!target.valid())
            return fail("run " + b->label + "'s model has no node named '" + wanted + "'");
        auto repro = compare::extractRepro(*b, *feeds, {target, depthValue, options.tolerance, !parser.isSet(noShrink)});
        if (!repro)
            return fail(repro.error().format());
        std::string verdict;
        for (const auto &[suspect, check] : kernelChecks)
            if (suspect->tensor->node == wanted)
                verdict = check.explanation;
        std::string command = "portolan repro";
        for (const QString &argument : arguments)
            command += " " + argument.toStdString();
        const std::string dir = parser.value(output).toStdString();
        const std::string readme = compare::reproReadme(
            *repro, {path, wanted, b->model->node(target).opType, b->label, pipelineText, "`portolan repro`", command, verdict,
                     options.tolerance});
        if (auto st = compare::writeRepro(*repro, dir, readme, parser.isSet(force)); !st)
            return fail(st.error().format());
        const bool reproduces = repro->reproduces();
        std::string shrunk;
        if (repro->nodesBeforeShrink > 1)
            shrunk = ", shrunk from " + std::to_string(repro->nodesBeforeShrink) + " in " + std::to_string(repro->shrinkChecks) + " runs";
        std::printf("Wrote a repro around %s (%s): %zu node(s)%s, to %s: %s, run %s is %s the reference there\n", wanted.c_str(),
                    b->model->node(target).opType.c_str(), repro->nodes.size(), shrunk.c_str(), dir.c_str(),
                    repro->standalone ? "on the repro alone" : "in its whole-model run", b->label.c_str(),
                    reproduces ? "OUT OF TOLERANCE against" : "within tolerance of");
        return reproduces ? kExitFindings : kExitOk;
    }

    if (parser.isSet(json)) {
        support::JsonWriter w;
        w.beginObject().field("model", path).field("pipeline", pipelineText);
        w.key("a").beginObject().field("run", result->labelA).field("seconds", result->secondsA).endObject();
        w.key("b").beginObject().field("run", result->labelB).field("seconds", result->secondsB).endObject();
        w.field("aligned", static_cast<std::uint64_t>(result->alignedValues))
            .field("compared", static_cast<std::uint64_t>(result->tensors.size()))
            .field("outputs_passed", passed);
        w.key("memory").beginObject().field("peak_held_bytes", static_cast<std::uint64_t>(result->peakHeldBytes))
            .field("spilled_bytes", static_cast<std::uint64_t>(result->spilledBytes)).endObject();
        w.key("outputs").beginArray();
        for (const compare::ComparedTensor *t : result->outputs())
            writeMetrics(w, *t);
        w.endArray();
        if (first)
            w.field("first_divergence", first->name);
        else
            w.key("first_divergence").null();
        w.key("suspects").beginArray();
        for (const compare::Suspect &s : suspects) {
            w.beginObject().field("tensor", s.tensor->name).field("node", s.tensor->node).field("op_type", s.tensor->opType)
                .field("introduced", s.introduced).field("error", s.error).field("input_error", s.inputError);
            if (std::isfinite(s.amplification))
                w.field("amplification", s.amplification);
            else
                w.key("amplification").value(std::string("inf"));
            w.field("why", s.why);
            if (const auto it = kernelChecks.find(&s); it != kernelChecks.end()) {
                const char *verdict = it->second.verdict == compare::KernelVerdict::KernelDiffers  ? "kernel-differs"
                                      : it->second.verdict == compare::KernelVerdict::KernelAgrees ? "kernel-agrees"
                                                                                                   : "unchecked";
                w.key("kernel_check").beginObject().field("verdict", verdict).field("kernel_error", it->second.kernelError)
                    .field("explanation", it->second.explanation).endObject();
            }
            w.endObject();
        }
        w.endArray();
        w.key("tensors").beginArray();
        for (const compare::ComparedTensor &t : result->tensors)
            writeMetrics(w, t);
        w.endArray();
        w.key("not_compared").beginArray();
        for (const std::string &n : result->notCompared)
            w.value(n);
        w.endArray();
        w.key("unknown_imported").beginArray();
        for (const std::string &n : unknownImported)
            w.value(n);
        w.endArray().endObject();
        std::printf("%s\n", w.str().c_str());
        return passed ? kExitOk : kExitFindings;
    }

    std::printf("Compared %s with %s on %s%s: %zu tensors aligned, %zu compared (atol %s, rtol %s)\n", result->labelA.c_str(),
                result->labelB.c_str(), path.c_str(), pipelineText.empty() ? "" : (" (cpu after " + pipelineText + ")").c_str(),
                result->alignedValues, result->tensors.size(), support::shortNumber(options.tolerance.atol).c_str(),
                support::shortNumber(options.tolerance.rtol).c_str());
    std::printf("  outputs:\n");
    for (const compare::ComparedTensor *t : result->outputs())
        printTensor(*t);
    if (first)
        std::printf("  first divergence: %s, produced by %s: out of tolerance while its inputs are within it\n",
                    first->name.c_str(), compare::producerWithOp(first->node, first->opType).c_str());
    else if (std::any_of(suspects.begin(), suspects.end(), [](const compare::Suspect &s) { return s.inputsUnseen && !s.tensor->metrics.passed; }))
        std::printf("  first divergence: unknown (a failing tensor's inputs were not compared: import its intermediates too)\n");
    else
        std::printf("  first divergence: none (no tensor goes out of tolerance on its own)\n");
    if (!suspects.empty()) {
        std::printf("  suspects:\n");
        for (const compare::Suspect &s : suspects) {
            std::printf("    %s %-22s error %-8s  %s\n", support::tailColumn(s.tensor->node, 40).c_str(), s.tensor->opType.c_str(),
                        support::shortNumber(s.error).c_str(), s.why.c_str());
            if (const auto it = kernelChecks.find(&s); it != kernelChecks.end())
                std::printf("    %-40s   re-run alone: %s\n", "", it->second.explanation.c_str());
        }
    }
    if (parser.isSet(all)) {
        std::printf("  every tensor, in the order %s produced them:\n", result->labelB.c_str());
        for (const compare::ComparedTensor &t : result->tensors)
            printTensor(t);
    }
    for (const std::string &n : result->notCompared)
        std::printf("  not compared: %s\n", n.c_str());
    if (!unknownImported.empty()) {
        std::printf("  imported tensors no value of the model is named after (%zu):", unknownImported.size());
        for (const std::string &n : unknownImported)
            std::printf(" %s", n.c_str());
        std::printf("\n");
    }
    std::printf("  runs: %s %.3f s, %s %.3f s; held %.2f MiB of %s's tensors at most, spilled %.2f MiB\n",
                result->labelA.c_str(), result->secondsA, result->labelB.c_str(), result->secondsB,
                static_cast<double>(result->peakHeldBytes) / (1 << 20), result->labelA.c_str(),
                static_cast<double>(result->spilledBytes) / (1 << 20));
    std::printf("%s\n", passed ? "Outputs within tolerance." : "Outputs OUT OF TOLERANCE.");
    return passed ? kExitOk : kExitFindings;
}

} // namespace

} // namespace portolan::cli
