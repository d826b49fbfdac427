// `portolan passes [--json]`: every pass with its summary and options (the names pipelines use).
#include "cli/Arguments.h"
#include "cli/Command.h"

#include "session/Workbench.h"
#include "support/JsonWriter.h"

#include <cstdio>

namespace portolan::cli {

int runPasses(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption json("json", "Print JSON: [{name, summary, options: [{name, default, help}]}] and presets.");
    parser.addOption(json);
    if (auto exit = parseArguments(parser, "passes", "List the compiler passes and their options.", arguments, 0, 0))
        return *exit;
    if (parser.isSet(json)) {
        support::JsonWriter w;
        w.beginObject();
        w.key("passes").beginArray();
        for (const passes::PassInfo &p : session::Workbench::passCatalog()) {
            w.beginObject().field("name", p.name).field("summary", p.summary);
            w.key("options").beginArray();
            for (const passes::PassOption &o : p.options)
                w.beginObject().field("name", o.name).field("default", o.defaultValue).field("help", o.help).endObject();
            w.endArray().endObject();
        }
        w.endArray();
        w.key("presets").beginObject();
        for (int level = 1; level <= 2; ++level)
            if (auto preset = session::Workbench::pipelineFromText("-O" + std::to_string(level)))
                w.field("O" + std::to_string(level), preset->str());
        w.endObject();
        w.endObject();
        std::printf("%s\n", w.str().c_str());
        return kExitOk;
    }
    for (const passes::PassInfo &p : session::Workbench::passCatalog()) {
        std::printf("%-34s %s\n", p.name.c_str(), p.summary.c_str());
        for (const passes::PassOption &o : p.options)
            std::printf("    {%s=%s}  %s\n", o.name.c_str(), o.defaultValue.c_str(), o.help.c_str());
    }
    for (int level = 1; level <= 2; ++level)
        if (auto preset = session::Workbench::pipelineFromText("-O" + std::to_string(level)))
            std::printf("\n-O%d = %s\n", level, preset->str().c_str());
    std::printf("\n-O3 = -O2 + lower-precision{to=TYPE} with --precision TYPE\n");
    return kExitOk;
}

} // namespace portolan::cli
