// Running the portolan binary from a test, as a user would.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace portolan::test {

struct CliRun {
    int exitCode = -1; ///< -1: timed out, -2: crashed
    QByteArray out;
    QByteArray err;
};

/// Runs the built `portolan` with `args` and waits up to `timeoutMs`, times PORTOLAN_TEST_TIME_SCALE
/// when set (scripts/sanitize-env.sh sets it: a sanitized build runs several times slower).
CliRun runPortolan(const QStringList &args, int timeoutMs = 60000);

/// A comparison's JSON (`compare --json`, session::comparisonJson) without the runs' seconds: what
/// two clients of one request must agree on.
QJsonObject comparisonWithoutTimes(const QByteArray &json);

} // namespace portolan::test
