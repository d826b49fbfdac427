// Shared argument handling for commands.
#include "cli/Arguments.h"

#include "cli/Command.h"
#include "session/RequestText.h"
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

support::Expected<std::map<std::string, std::vector<std::int64_t>>> parseShapeSpecs(const QStringList &specs)
{
    std::vector<std::string> texts;
    for (const QString &spec : specs)
        texts.push_back(spec.toStdString());
    return session::parseShapes(texts);
}

std::optional<std::size_t> parseSize(const QString &text)
{
    QString t = text.trimmed().toUpper();
    std::size_t scale = 1;
    if (t.endsWith('K') || t.endsWith('M') || t.endsWith('G') || t.endsWith('T')) {
        scale = t.endsWith('K') ? 1ull << 10 : t.endsWith('M') ? 1ull << 20 : t.endsWith('G') ? 1ull << 30 : 1ull << 40;
        t.chop(1);
    }
    bool ok = false;
    const double value = t.toDouble(&ok);
    if (!ok || value <= 0)
        return std::nullopt;
    return static_cast<std::size_t>(value * static_cast<double>(scale));
}


} // namespace portolan::cli
