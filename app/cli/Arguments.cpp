// Shared argument handling for commands.
#include "cli/Arguments.h"

#include "cli/Command.h"
#include "support/Log.h"

#include <QCoreApplication>

#include <cstdio>

namespace portolan::cli {

std::optional<int> parseArguments(QCommandLineParser &parser, const QString &name, const QString &summary,
                                  const QStringList &arguments, int minPositional, int maxPositional)
{
    parser.setApplicationDescription(summary);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({"h", "help"}, "Show this help.");
    const QCommandLineOption verbose({"v", "verbose"}, "Log more.");
    const QCommandLineOption quiet({"q", "quiet"}, "Log warnings and errors only.");
    parser.addOptions({help, verbose, quiet});

    // Qt's help names the executable's path; ours names the command.
    const QString usage = "portolan " + name;
    auto helpText = [&] {
        QString text = parser.helpText();
        text.replace(QCoreApplication::applicationFilePath(), usage);
        text.replace(QCoreApplication::arguments().value(0), usage);
        return text;
    };
    QStringList argv = arguments;
    argv.prepend(usage);
    if (!parser.parse(argv)) {
        std::fprintf(stderr, "%s: %s\n\n%s", qPrintable(usage), qPrintable(parser.errorText()), qPrintable(helpText()));
        return kExitUsage;
    }
    if (parser.isSet(help)) {
        std::printf("%s", qPrintable(helpText()));
        return kExitOk;
    }
    if (parser.isSet(verbose))
        support::configureLogging(support::LogLevel::Verbose);
    else if (parser.isSet(quiet))
        support::configureLogging(support::LogLevel::Quiet);
    const auto count = parser.positionalArguments().size();
    if (count < minPositional || count > maxPositional) {
        std::fprintf(stderr, "%s: %s\n\n%s", qPrintable(usage),
                     count < minPositional ? "an argument is missing" : "too many arguments", qPrintable(helpText()));
        return kExitUsage;
    }
    return std::nullopt;
}

} // namespace portolan::cli
