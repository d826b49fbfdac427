// CLI dispatch: global options (--help, --version, --verbose, --quiet), then one command.
#include "cli/Command.h"

#include "support/Log.h"

#include "session/Workbench.h"

#include <google/protobuf/stubs/common.h>
#include <onnx/common/version.h>

#include <QCoreApplication>
#ifdef PORTOLAN_HAVE_GUI
#include <QGuiApplication>
#endif
#include <QTextStream>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>

namespace portolan::cli {

#define PORTOLAN_COMMAND(function, name, summary) int function(const QStringList &arguments);
#include "cli/Commands.def"
#undef PORTOLAN_COMMAND

const std::vector<Command> &commands()
{
    static const std::vector<Command> list = {
#define PORTOLAN_COMMAND(function, name, summary) {name, summary, &function},
#include "cli/Commands.def"
#undef PORTOLAN_COMMAND
    };
    return list;
}

static void printUsage(FILE *stream)
{
    std::fprintf(stream, "Portolan %s: inspect, compile, run and compare ONNX models for accelerator ports.\n\n"
                         "Usage:\n"
                         "  portolan [MODEL.onnx]                 open the workbench (GUI)\n"
                         "  portolan [GLOBAL OPTIONS] COMMAND ARGS  run a command headless\n\n"
                         "Commands:\n",
                 PORTOLAN_VERSION);
    for (const Command &c : commands())
        std::fprintf(stream, "  %-10s %s\n", c.name, c.summary);
    std::fprintf(stream, "\nGlobal options:\n"
                         "  -h, --help     this help (COMMAND --help for a command's own)\n"
                         "  --version      print the version\n"
                         "  -v, --verbose  log more\n"
                         "  -q, --quiet    log warnings and errors only\n\n"
                         "Exit codes: 0 ok, 1 the model has findings or failed checks, 2 bad usage or unreadable input.\n");
}

// Version and build features: what this binary can do on this machine.
static void printVersion()
{
    std::printf("portolan %s\n", PORTOLAN_VERSION);
    std::printf("  ONNX %s, protobuf %d.%d.%d, Qt %s\n", onnx::LAST_RELEASE_VERSION, GOOGLE_PROTOBUF_VERSION / 1000000,
                GOOGLE_PROTOBUF_VERSION / 1000 % 1000, GOOGLE_PROTOBUF_VERSION % 1000, qVersion());
#ifdef PORTOLAN_HAVE_GUI
    std::printf("  GUI: built\n");
#else
    std::printf("  GUI: not built (PORTOLAN_BUILD_GUI=OFF)\n");
#endif
    const std::string cuda = session::Workbench::executorDescription("cuda");
    std::printf("  CUDA: %s\n", cuda.empty() ? "not built (no nvcc at configure time)" : cuda.c_str());
#ifdef PORTOLAN_HAVE_GRAPHVIZ
    std::printf("  Graphviz layout: built\n");
#else
    std::printf("  Graphviz layout: not built (the layered layout is used)\n");
#endif
}

bool isCliInvocation(const char *argument)
{
    // The GUI takes only a model path; anything else (options, commands, typos) is the CLI's to answer.
    const std::string_view arg(argument);
    if (arg.empty() || arg.front() == '-')
        return true;
    for (const Command &c : commands())
        if (arg == c.name)
            return true;
    const bool onnxName = arg.size() > 5 && arg.substr(arg.size() - 5) == ".onnx";
    std::error_code ec;
    return !onnxName && !std::filesystem::is_regular_file(arg, ec);
}

namespace {

/// A command that writes a PDF (a report) renders with Qt's GUI module: it gets a QGuiApplication,
/// on the offscreen platform unless one was asked for, so it still needs no display.
std::unique_ptr<QCoreApplication> makeApplication(int &argc, char **argv)
{
#ifdef PORTOLAN_HAVE_GUI
    for (int i = 1; i < argc; ++i)
        if (QByteArray(argv[i]).toLower().endsWith(".pdf")) {
            if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
                qputenv("QT_QPA_PLATFORM", "offscreen");
            return std::make_unique<QGuiApplication>(argc, argv);
        }
#endif
    return std::make_unique<QCoreApplication>(argc, argv);
}

} // namespace

int runCli(int argc, char **argv)
{
    const std::unique_ptr<QCoreApplication> application = makeApplication(argc, argv);
    QCoreApplication &app = *application;
    QCoreApplication::setApplicationName("portolan");
    QCoreApplication::setApplicationVersion(PORTOLAN_VERSION);

    QStringList args = app.arguments();
    args.removeFirst();
    support::LogLevel level = support::LogLevel::Normal;
    while (!args.isEmpty() && args.front().startsWith('-')) {
        const QString option = args.takeFirst();
        if (option == "-h" || option == "--help") {
            printUsage(stdout);
            return kExitOk;
        }
        if (option == "--version") {
            printVersion();
            return kExitOk;
        }
        if (option == "-v" || option == "--verbose") {
            level = support::LogLevel::Verbose;
        } else if (option == "-q" || option == "--quiet") {
            level = support::LogLevel::Quiet;
        } else {
            std::fprintf(stderr, "portolan: unknown option '%s'\n\n", qPrintable(option));
            printUsage(stderr);
            return kExitUsage;
        }
    }
    support::configureLogging(level);
    if (args.isEmpty()) {
        printUsage(stderr);
        return kExitUsage;
    }
    const QString name = args.takeFirst();
    for (const Command &c : commands())
        if (name == c.name) {
            // The outermost boundary: what escaped a command still ends as a message and exit 2.
            try {
                return c.run(args);
            } catch (const std::bad_alloc &) {
                std::fprintf(stderr, "portolan %s: out of memory (lower --max-memory, or give the process more)\n", c.name);
            } catch (const std::exception &e) {
                std::fprintf(stderr, "portolan %s: internal error: %s\n", c.name, e.what());
            }
            return kExitUsage;
        }
    std::fprintf(stderr, "portolan: unknown command '%s'\n\n", qPrintable(name));
    printUsage(stderr);
    return kExitUsage;
}

} // namespace portolan::cli
