// The external executor's command line, shared by `run --executor external:…` and compare's
// `--a/--b external:…`: the template after "external:" and --external-timeout.
#pragma once

#include "compare/ExternalRun.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

namespace portolan::cli {

inline QCommandLineOption externalTimeoutOption()
{
    return {"external-timeout", "Seconds an external command may run before it is killed.", "SECONDS", "600"};
}

/// The command of `spec` ("external:CMD {model} {inputs} {outputs}") with the parsed timeout.
inline support::Expected<compare::ExternalCommand> externalCommand(const QCommandLineParser &parser, const QCommandLineOption &timeout,
                                                                   const std::string &spec)
{
    bool ok = false;
    const double seconds = parser.value(timeout).toDouble(&ok);
    if (!ok || !(seconds > 0))
        return support::makeError("bad-option", "--external-timeout takes a positive number of seconds");
    compare::ExternalCommand command{spec.substr(spec.find(':') + 1), seconds};
    if (auto st = compare::checkExternalCommand(command); !st)
        return st.error();
    return command;
}

} // namespace portolan::cli
