// Shared argument handling for commands.
#include "cli/Arguments.h"

#include "cli/Command.h"

#include <cstdio>

namespace portolan::cli {

std::optional<int> parseArguments(QCommandLineParser &parser, const QString &name, const QString &summary,
                                  const QStringList &arguments, int minPositional, int maxPositional)
{
    parser.setApplicationDescription(summary);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({"h", "help"}, "Show this help.");
    parser.addOption(help);

    QStringList argv = arguments;
    argv.prepend("portolan " + name);
    if (!parser.parse(argv)) {
        std::fprintf(stderr, "portolan %s: %s\n\n%s", qPrintable(name), qPrintable(parser.errorText()),
                     qPrintable(parser.helpText()));
        return kExitUsage;
    }
    if (parser.isSet(help)) {
        std::printf("%s", qPrintable(parser.helpText()));
        return kExitOk;
    }
    const auto count = parser.positionalArguments().size();
    if (count < minPositional || count > maxPositional) {
        std::fprintf(stderr, "portolan %s: expected %s\n\n%s", qPrintable(name),
                     minPositional == maxPositional ? qPrintable(QString::number(minPositional) + " argument(s)")
                                                    : "a different number of arguments",
                     qPrintable(parser.helpText()));
        return kExitUsage;
    }
    return std::nullopt;
}

} // namespace portolan::cli
