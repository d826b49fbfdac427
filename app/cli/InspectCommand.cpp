// `portolan inspect MODEL [--json]`: the model summary for people or scripts.
#include "cli/Arguments.h"
#include "cli/Command.h"

#include "analysis/SummaryFormat.h"
#include "session/Workbench.h"
#include "support/JsonWriter.h"

#include <algorithm>
#include <climits>
#include <cstdio>

namespace portolan::cli {

// A load error as JSON, so scripts using --json always get JSON on stdout.
static std::string errorJson(const support::Error &error)
{
    support::JsonWriter w;
    w.beginObject();
    w.key("error").beginObject();
    w.field("code", error.primary.code);
    w.field("message", error.primary.message);
    w.field("model", error.primary.model);
    w.field("graph", error.primary.graph);
    w.field("node", error.primary.node);
    w.field("value", error.primary.value);
    w.endObject();
    w.endObject();
    return w.str() + "\n";
}

// Inspects one model: its text or JSON, and its exit code.
static std::pair<std::string, int> inspectOne(const std::string &path, bool json)
{
    session::Workbench workbench;
    if (auto status = workbench.open(path); !status) {
        std::fprintf(stderr, "portolan inspect: error: %s\n", status.error().format().c_str());
        return {json ? errorJson(status.error()) : std::string(), kExitUsage};
    }
    const analysis::ModelSummary summary = workbench.inspect();
    return {json ? analysis::summaryJson(summary) : analysis::summaryText(summary),
            support::hasErrors(summary.findings) ? kExitFindings : kExitOk};
}

int runInspect(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption json("json", "Print JSON (schema: docs/inspect-json.md) instead of text; with several "
                                          "models, a JSON array in argument order.");
    parser.addOption(json);
    parser.addPositionalArgument("MODEL...", "The .onnx file(s) to inspect.");
    if (auto exit = parseArguments(parser, "inspect", "Summarize ONNX models.", arguments, 1, INT_MAX))
        return *exit;

    const QStringList models = parser.positionalArguments();
    const bool asJson = parser.isSet(json);
    const bool several = models.size() > 1;
    int exitCode = kExitOk;
    if (asJson && several)
        std::fputs("[\n", stdout);
    for (qsizetype i = 0; i < models.size(); ++i) {
        auto [text, code] = inspectOne(models[i].toStdString(), asJson);
        exitCode = std::max(exitCode, code);
        if (several && !asJson)
            std::printf("%s==== %s\n", i ? "\n" : "", qPrintable(models[i]));
        if (asJson && several && i + 1 < models.size())
            text.back() = ',', text += '\n';
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    if (asJson && several)
        std::fputs("]\n", stdout);
    return exitCode;
}

} // namespace portolan::cli
