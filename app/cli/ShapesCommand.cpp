// `portolan shapes MODEL [--input NAME=DIMS] [--target T] [--json]`: where each dynamic dim comes
// from, what it reaches, and what to do about it.
#include "cli/Arguments.h"
#include "cli/Command.h"

#include "diagnose/ShapesFormat.h"
#include "session/Workbench.h"

#include <algorithm>
#include <cstdio>

namespace portolan::cli {

/// "x=1,3,224,224" or "x=1x3x224x224" as freeze-shapes writes it ("x:1x3x224x224"); a bare
/// "1x3x224x224" stays bare (the model's only input).
static std::string freezeEntry(QString text)
{
    const qsizetype eq = text.indexOf('=');
    if (eq >= 0)
        text[eq] = ':';
    return text.replace(',', 'x').toStdString();
}

int runShapes(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption input(QStringList{"i", "input"},
                                   "Analyse with this input's dims fixed: NAME=1,3,224,224 (or 1x3x224x224 for a "
                                   "model with one input). Repeatable.",
                                   "NAME=DIMS");
    const QCommandLineOption target(QStringList{"t", "target"},
                                    "Say which nodes this target needs static shapes for, and advise for it: a "
                                    "profile id (portolan check --list-targets) or a profile .json.",
                                    "TARGET");
    const QCommandLineOption inputs("inputs", "Analyse at the dims of the inputs the model is run with: a test set's "
                                              "input_K.pb files (ONNX test-data layout); -i wins for an input it names.",
                                    "DIR");
    const QCommandLineOption json("json", "Print JSON (schema: docs/shapes-json.md) instead of text.");
    const QCommandLineOption all("all", "List every value whose shape is open, not only the first 20.");
    parser.addOptions({input, inputs, target, json, all});
    parser.addPositionalArgument("MODEL", "The .onnx file to analyse.");
    if (auto exit = parseArguments(parser, "shapes",
                                   "Trace every dynamic dim to its origin (an input dim or a data-dependent op), "
                                   "list what it reaches and suggest freezing, a min/opt/max profile or bucketing; "
                                   "with --target, exit 1 when the target needs a static shape it reaches.",
                                   arguments, 1, 1))
        return *exit;
    diagnose::ShapeOptions options;
    for (const QString &entry : parser.values(input))
        options.freeze += (options.freeze.empty() ? "" : ",") + freezeEntry(entry);
    if (parser.isSet(target)) {
        auto profile = session::Workbench::findTarget(parser.value(target).toStdString());
        if (!profile) {
            std::fprintf(stderr, "portolan shapes: error: %s\n", profile.error().format().c_str());
            return kExitUsage;
        }
        options.target = std::move(*profile);
    }
    session::Workbench workbench;
    if (auto status = workbench.open(parser.positionalArguments().front().toStdString()); !status) {
        std::fprintf(stderr, "portolan shapes: error: %s\n", status.error().format().c_str());
        return kExitUsage;
    }
    const auto analysis = workbench.analyzeShapes(options, parser.value(inputs).toStdString());
    if (!analysis) {
        std::fprintf(stderr, "portolan shapes: error: %s\n", analysis.error().format().c_str());
        return kExitUsage;
    }
    const std::string text =
        parser.isSet(json) ? diagnose::shapesJson(*analysis) : diagnose::shapesText(*analysis, parser.isSet(all));
    std::fwrite(text.data(), 1, text.size(), stdout);
    const bool blocked = std::any_of(analysis->sources.begin(), analysis->sources.end(),
                                     [](const diagnose::DimSource &s) { return !s.staticNodes.empty(); });
    return blocked ? kExitFindings : kExitOk;
}

} // namespace portolan::cli
