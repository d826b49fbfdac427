// The external executor's timeout, shared by `run --executor external:…` and compare's
// `--a/--b external:…` (the workbench checks the command's template itself).
#pragma once

#include "support/Expected.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

namespace portolan::cli {

inline QCommandLineOption externalTimeoutOption()
{
    return {"external-timeout", "Seconds an external command may run before it is killed.", "SECONDS", "600"};
}

/// --external-timeout's seconds.
inline support::Expected<double> externalTimeout(const QCommandLineParser &parser, const QCommandLineOption &timeout)
{
    bool ok = false;
    const double seconds = parser.value(timeout).toDouble(&ok);
    if (!ok || !(seconds > 0))
        return support::makeError("bad-option", "--external-timeout takes a positive number of seconds");
    return seconds;
}

} // namespace portolan::cli
