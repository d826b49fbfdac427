// Runs the portolan binary under QProcess.
#include "support/CliSupport.h"

#include <QJsonDocument>
#include <QProcess>
#include <QtGlobal>

#include <climits>

namespace portolan::test {

CliRun runPortolan(const QStringList &args, int timeoutMs)
{
    bool scaled = false;
    const int scale = qEnvironmentVariableIntValue("PORTOLAN_TEST_TIME_SCALE", &scaled);
    if (scaled && scale > 1)
        timeoutMs = timeoutMs > INT_MAX / scale ? INT_MAX : timeoutMs * scale;
    QProcess p;
    p.start(PORTOLAN_BINARY, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

QJsonObject comparisonWithoutTimes(const QByteArray &json)
{
    QJsonObject o = QJsonDocument::fromJson(json).object();
    for (const char *side : {"a", "b"}) {
        QJsonObject run = o[side].toObject();
        run.remove("seconds");
        o[side] = run;
    }
    return o;
}

} // namespace portolan::test
