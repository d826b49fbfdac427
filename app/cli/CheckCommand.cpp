// `portolan check MODEL --target T [--json]`: every node the target cannot run, why, and what to do.
#include "cli/Arguments.h"
#include "cli/Command.h"

#include "diagnose/CheckFormat.h"
#include "session/Workbench.h"

#include <climits>
#include <cstdio>

namespace portolan::cli {

static int listTargets()
{
    const diagnose::TargetListing listing = session::Workbench::targetProfiles();
    for (const diagnose::TargetProfile &p : listing.profiles)
        std::printf("%-16s %s\n%16s   %zu ops; from %s, %s\n", p.id.c_str(), p.name.c_str(), "", p.ops.size(),
                    p.source.document.c_str(), p.source.version.c_str());
    for (const support::Error &e : listing.problems)
        std::fprintf(stderr, "portolan check: warning: %s\n", e.format().c_str());
    if (listing.profiles.empty()) {
        std::fprintf(stderr, "portolan check: error: no target profiles found (searched $PORTOLAN_TARGETS, "
                             "share/portolan/targets beside the executable and the source tree)\n");
        return kExitUsage;
    }
    return kExitOk;
}

int runCheck(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption target(QStringList{"t", "target"},
                                    "Target profile: an id (see --list-targets) or a path to a profile .json "
                                    "(format: docs/targets.md).",
                                    "TARGET");
    const QCommandLineOption json("json", "Print JSON (schema: docs/check-json.md) instead of text.");
    const QCommandLineOption noFixes("no-fixes", "Do not try the suggested passes on copies of the model (faster).");
    const QCommandLineOption list("list-targets", "List the target profiles found, with their sources, and exit.");
    const QCommandLineOption inputs("inputs", "The sizes the model runs with, from a test set's input_K.pb files: "
                                              "freeze fixes take them instead of 1.",
                                    "DIR");
    parser.addOptions({target, json, noFixes, list, inputs});
    parser.addPositionalArgument("MODEL", "The .onnx file to check.");
    if (auto exit = parseArguments(parser, "check",
                                   "Check every node of a model against a target's supported ops, opsets, types, "
                                   "attributes and shapes; exit 1 when anything is unsupported.",
                                   arguments, 0, 1))
        return *exit;
    if (parser.isSet(list))
        return listTargets();
    if (parser.positionalArguments().isEmpty() || !parser.isSet(target)) {
        std::fprintf(stderr, "portolan check: error: give a MODEL and --target (or --list-targets)\n");
        return kExitUsage;
    }
    const auto profile = session::Workbench::findTarget(parser.value(target).toStdString());
    if (!profile) {
        std::fprintf(stderr, "portolan check: error: %s\n", profile.error().format().c_str());
        return kExitUsage;
    }
    session::Workbench workbench;
    const std::string path = parser.positionalArguments().front().toStdString();
    if (auto status = workbench.open(path); !status) {
        std::fprintf(stderr, "portolan check: error: %s\n", status.error().format().c_str());
        return kExitUsage;
    }
    diagnose::CheckOptions options;
    options.tryFixes = !parser.isSet(noFixes);
    if (parser.isSet(inputs)) {
        auto sizes = workbench.inputSizesOf(parser.value(inputs).toStdString());
        if (!sizes) {
            std::fprintf(stderr, "portolan check: error: %s\n", sizes.error().format().c_str());
            return kExitUsage;
        }
        options.inputSizes = std::move(*sizes);
    }
    const diagnose::TargetCheck check = workbench.checkTarget(*profile, options);
    const std::string text = parser.isSet(json) ? diagnose::checkJson(check) : diagnose::checkText(check);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return check.supported() ? kExitOk : kExitFindings;
}

} // namespace portolan::cli
