// Runs the portolan binary under QProcess.
#include "support/CliSupport.h"

#include <QProcess>

namespace portolan::test {

CliRun runPortolan(const QStringList &args, int timeoutMs)
{
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

} // namespace portolan::test
