// A headless CLI command: its name, one-line summary, and entry point.
#pragma once

#include <QStringList>

#include <vector>

namespace portolan::cli {

/// Exit codes shared by every command.
enum ExitCode : int {
    kExitOk = 0,       ///< done, nothing to report
    kExitFindings = 1, ///< the model loaded but has findings or failed checks
    kExitUsage = 2,    ///< bad usage, or input that could not be read
};

struct Command {
    const char *name;
    const char *summary;
    int (*run)(const QStringList &arguments); ///< arguments after the command name
};

/// Every command, in the order `portolan --help` lists them.
const std::vector<Command> &commands();

/// Runs the CLI for argv (argv[1] is a command or a global option). Returns the exit code.
int runCli(int argc, char **argv);

/// True when `argument` selects the CLI rather than the GUI (which takes a model path: a *.onnx
/// name or an existing file).
bool isCliInvocation(const char *argument);

} // namespace portolan::cli
