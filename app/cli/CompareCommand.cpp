// `portolan compare MODEL [--a RUN] [--b RUN] [--pipeline P | -O0 | -O1 | -O2] [--keep-fp32 RULE]…
//  [--calibration …] [--inputs DIR] [--input NAME=…]… [--shape NAME=D,…]… [--seed N] [--atol A]
//  [--rtol R] [--error-quantile Q] [--no-drift] [--tolerance NAME=A,R]… [--max-memory SIZE] [--top N] [--all] [--json]`, and `repro`
// and `report`, which compare first: parse → session::ComparisonRequest → Workbench::compare →
// render (or Workbench::writeRepro / Workbench::report). Exit 0 when every output is within
// tolerance, 1 when one is not.
#include "cli/Arguments.h"
#include "cli/Command.h"
#include "cli/CompareRender.h"
#include "cli/ExternalOptions.h"
#include "cli/Feeds.h"
#include "cli/PassOptions.h"
#include "cli/PrecisionOptions.h"
#include "cli/ToleranceOptions.h"
#include "session/ComparisonJson.h"
#include "session/Workbench.h"

#ifdef PORTOLAN_HAVE_GUI
#include "views/report/ReportPdf.h"
#endif

#include <cstdio>

namespace portolan::cli {

namespace {

enum class Mode { Compare, Repro, Report };

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

/// Every option of the three commands; each adds the ones it takes.
struct CompareOptions {
    QCommandLineOption sideA{"a", "The run compared against: reference (the default) or cpu[:PRECISION].", "RUN", "reference"};
    QCommandLineOption sideB{"b",
                             "The run checked: cpu (the default), cpu:fp16, cpu:bf16, cpu:int8, cuda, cuda:fp16, "
                             "cuda:bf16, cuda:int8 (the local GPU), reference, or "
                             "import:PATH (another runtime's tensors: a folder of .pb files named inside and .npy files named by "
                             "file name, an .npz archive, or Polygraphy's --save-outputs FILE.json[#RUNNER]), or "
                             "external:'CMD {model} {inputs} {outputs}' (another runtime: it reads input_K.pb or "
                             "NAME.npy from {inputs} and writes .pb or .npy files into {outputs}), or "
                             "ort[:disabled|basic|extended|all] (ONNX Runtime, installed on first use with npm; every "
                             "tensor its optimized graph keeps is compared).",
                             "RUN", "cpu"};
    QCommandLineOption tolerance{"tolerance", "Tolerance of one tensor (by A's name). Repeatable.", "NAME=A,R"};
    QCommandLineOption maxMemory{"max-memory", "Bytes of A's tensors held in memory before spilling to disk (e.g. 2G).", "SIZE"};
    QCommandLineOption top{"top", "How many suspects and worst tensors to list.", "N", "10"};
    QCommandLineOption all{"all", "List every compared tensor."};
    QCommandLineOption json{"json", "Print the comparison as JSON."};
    QCommandLineOption noKernelCheck{"no-kernel-check", "Do not re-run the failing suspects' nodes alone on the "
                                                        "reference kernels (one more run of B, made when an output fails)."};
    QCommandLineOption externalTimeout = externalTimeoutOption();
    QCommandLineOption reportFile{"report", "Also write the port report (.json, .md, .html or .pdf).", "FILE"};
    QCommandLineOption node{"node", "repro: cut around this node of run B's model (default: the first divergence).", "NAME"};
    QCommandLineOption depth{"depth", "repro: levels of producers to include before the node, before shrinking.", "N", "0"};
    QCommandLineOption noShrink{"no-shrink", "repro: keep the cut as asked for (by default nodes are dropped while "
                                             "the failure still reproduces)."};
    QCommandLineOption force{"force", "Replace an existing report, or write into a folder that holds files."};
    QCommandLineOption target{{"t", "target"}, "The report also checks the model as loaded against this target profile "
                                               "(an id: portolan check --list-targets, or a profile .json).",
                              "TARGET"};
    FeedCommandOptions feeds;
    ToleranceOptions tolerances;
    PassOptions passes;
    PrecisionOptions precision;
};

/// A side as --a/--b spell it; a bare "cpu" runs at --precision, an external command under --external-timeout.
support::Expected<session::SideSpec> sideFrom(const QCommandLineParser &parser, const CompareOptions &o, const QCommandLineOption &option)
{
    const std::string text = parser.value(option).toStdString();
    auto side = session::SideSpec::parse(text);
    if (!side)
        return side;
    if (text == "cpu") {
        side->precision = parser.value(o.precision.precision).toStdString();
        if (auto p = runtime::parsePrecision(side->precision); !p)
            return p.takeError();
    }
    if (side->kind == session::SideSpec::Kind::External || side->kind == session::SideSpec::Kind::OnnxRuntime) {
        auto seconds = externalTimeout(parser, o.externalTimeout);
        if (!seconds)
            return seconds.takeError();
        side->timeoutSeconds = *seconds;
    }
    return side;
}

/// The request the options ask for; `force` also lets --save-calibration replace a file.
support::Expected<session::ComparisonRequest> requestFrom(const QCommandLineParser &parser, const CompareOptions &o)
{
    session::ComparisonRequest request;
    auto a = sideFrom(parser, o, o.sideA);
    if (!a)
        return a.takeError();
    auto b = sideFrom(parser, o, o.sideB);
    if (!b)
        return b.takeError();
    request.a = std::move(*a);
    request.b = std::move(*b);
    if (auto st = o.passes.check(parser); !st)
        return st.error();
    request.pipeline = o.passes.text(parser, 2);
    const bool int8 = (request.a.isCompiled() && request.a.precision == "int8") || (request.b.isCompiled() && request.b.precision == "int8");
    auto lowering = loweringSettings(parser, o.precision, int8, false);
    if (!lowering)
        return lowering.takeError();
    request.lowering = std::move(*lowering);
    auto feeds = o.feeds.spec(parser);
    if (!feeds)
        return feeds.takeError();
    request.feeds = std::move(*feeds);
    if (auto st = o.tolerances.applyTo(parser, request); !st)
        return st.error();
    for (const QString &spec : parser.values(o.tolerance)) {
        const QStringList parts = spec.section('=', 1).split(',');
        bool okA = false, okR = false;
        const double av = parts.value(0).toDouble(&okA), rv = parts.value(1).toDouble(&okR);
        if (!spec.contains('=') || parts.size() != 2 || !okA || !okR || av < 0 || rv < 0)
            return support::makeError("bad-usage", "--tolerance '" + spec.toStdString() + "' is not NAME=ATOL,RTOL");
        request.tensorTolerances[spec.section('=', 0, 0).toStdString()] = {av, rv};
    }
    if (parser.isSet(o.maxMemory)) {
        const auto bytes = parseSize(parser.value(o.maxMemory));
        if (!bytes)
            return support::makeError("bad-usage", "--max-memory '" + parser.value(o.maxMemory).toStdString() + "' is not a size such as 512M");
        request.memoryBudget = *bytes;
    }
    bool countOk = false;
    const int top = parser.value(o.top).toInt(&countOk);
    if (!countOk || top < 0)
        return support::makeError("bad-usage", "--top takes a count");
    request.suspectLimit = static_cast<std::size_t>(top);
    request.kernelCheck = !parser.isSet(o.noKernelCheck);
    return request;
}

int compareCommand(const QStringList &arguments, Mode mode)
{
    QCommandLineParser parser;
    CompareOptions o;
    o.feeds.withSeed = true;
    parser.addOptions({o.sideA, o.sideB, o.tolerance, o.maxMemory, o.top, o.all, o.json, o.noKernelCheck, o.externalTimeout});
    o.feeds.addTo(parser);
    o.tolerances.addTo(parser);
    const QCommandLineOption output({"o", "output"}, mode == Mode::Report ? "The report to write: .json, .md, .html or .pdf."
                                                                         : "The folder to write the repro into.",
                                    mode == Mode::Report ? "FILE" : "DIR");
    if (mode == Mode::Repro)
        parser.addOptions({output, o.node, o.depth, o.noShrink, o.force});
    else if (mode == Mode::Report)
        parser.addOptions({output, o.force, o.target});
    else
        parser.addOptions({o.reportFile, o.force, o.target});
    o.passes.addTo(parser);
    o.precision.addTo(parser);
    parser.addPositionalArgument("MODEL", "The .onnx model to compare two runs of.");
    const char *name = mode == Mode::Repro ? "repro" : mode == Mode::Report ? "report" : "compare";
    const char *summary = mode == Mode::Repro    ? "Cut the subgraph where two runs diverge into a standalone repro."
                          : mode == Mode::Report ? "Compare two runs and write the one-page port report."
                                                 : "Compare two runs of a model tensor by tensor.";
    if (auto exit = parseArguments(parser, name, summary, arguments, 1, 1))
        return *exit;
    if (mode == Mode::Report && !parser.isSet(output))
        return fail("report needs -o FILE (.json, .md, .html or .pdf)");
    const bool writesReport = mode == Mode::Report || (mode == Mode::Compare && parser.isSet(o.reportFile));
    session::ReportRequest report;
    if (mode != Mode::Repro && parser.isSet(o.target)) {
        if (!writesReport)
            return fail("--target goes into the port report: give --report FILE too (or run portolan check)");
        auto found = session::Workbench::findTarget(parser.value(o.target).toStdString());
        if (!found)
            return fail(found.error().format());
        report.target = std::move(*found);
    }
    session::ReproRequest repro;
    if (mode == Mode::Repro) {
        bool depthOk = true;
        repro.depth = parser.value(o.depth).toInt(&depthOk);
        if (!parser.isSet(output) || !depthOk || repro.depth < 0)
            return fail("repro needs -o DIR, and --depth a count of at least 0");
        repro.node = parser.value(o.node).toStdString();
        repro.shrink = !parser.isSet(o.noShrink);
        repro.outputDir = parser.value(output).toStdString();
        repro.overwrite = parser.isSet(o.force);
        repro.command = "portolan repro";
        for (const QString &argument : arguments)
            repro.command += " " + argument.toStdString();
    }
    auto request = requestFrom(parser, o);
    if (!request)
        return fail(request.error().format());
    request->profileB = writesReport; // the report shows where a GPU's time went: one more run

    const std::string path = parser.positionalArguments().front().toStdString();
    session::Workbench workbench;
    if (auto st = workbench.open(path); !st)
        return fail(st.error().format());
    auto outcome = workbench.compare(*request);
    if (!outcome)
        return fail(withFeedHint(outcome.takeError()).format());
    const session::ComparisonOutcome &compared = **outcome;
    const bool passed = compared.result.outputsPassed();

    if (writesReport) {
        report.outputPath = parser.value(mode == Mode::Report ? output : o.reportFile).toStdString();
        report.overwrite = parser.isSet(o.force);
        report.pdf = pdfWriter();
        if (auto written = workbench.report(compared, report); !written)
            return fail(written.error().format());
        if (mode == Mode::Report) {
            std::printf("Wrote the port report of %s (%s against %s: %s) to %s\n", path.c_str(), compared.result.labelB.c_str(),
                        compared.result.labelA.c_str(), passed ? "outputs within tolerance" : "outputs OUT OF TOLERANCE",
                        report.outputPath.c_str());
            return passed ? kExitOk : kExitFindings;
        }
    }
    if (mode == Mode::Repro) {
        auto written = workbench.writeRepro(compared, repro);
        if (!written)
            return fail(written.error().format());
        printReproWritten(*written, repro.outputDir, compared.result.labelB);
        return written->repro.reproduces() ? kExitFindings : kExitOk;
    }
    if (parser.isSet(o.json))
        std::printf("%s\n", session::comparisonJson(compared).c_str());
    else
        printComparison(compared, parser.isSet(o.all));
    return passed ? kExitOk : kExitFindings;
}

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

} // namespace portolan::cli
