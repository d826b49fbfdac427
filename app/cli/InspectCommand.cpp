// `portolan inspect MODEL [--json]`: the model summary for people or scripts.
#include "cli/Arguments.h"
#include "cli/Command.h"

#include "analysis/SummaryFormat.h"
#include "session/Workbench.h"
#include "support/JsonWriter.h"

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

int runInspect(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption json("json", "Print JSON (schema: docs/inspect-json.md) instead of text.");
    parser.addOption(json);
    parser.addPositionalArgument("MODEL", "The .onnx file to inspect.");
    if (auto exit = parseArguments(parser, "inspect", "Summarize an ONNX model.", arguments, 1, 1))
        return *exit;

    const std::string path = parser.positionalArguments().front().toStdString();
    session::Workbench workbench;
    if (auto status = workbench.open(path); !status) {
        if (parser.isSet(json))
            std::fputs(errorJson(status.error()).c_str(), stdout);
        std::fprintf(stderr, "portolan inspect: error: %s\n", status.error().format().c_str());
        return kExitUsage;
    }
    const analysis::ModelSummary summary = workbench.inspect();
    const std::string text = parser.isSet(json) ? analysis::summaryJson(summary) : analysis::summaryText(summary);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return support::hasErrors(summary.findings) ? kExitFindings : kExitOk;
}

} // namespace portolan::cli
