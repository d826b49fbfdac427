// The hostile corpus (tests/data/hostile, written by make_hostile.py): every command on every file
// ends cleanly under a 4 GiB address-space limit and 30 s — no signal, the exit code its manifest
// line asks for, and a message whenever it fails.
#include "support/CliSupport.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>

using namespace portolan;

namespace {

const QString kCorpus = QStringLiteral(PORTOLAN_SOURCE_DIR "/tests/data/hostile");

struct Case {
    QString file;
    QString kind;    // unreadable, refused, runs, bounded, clean
    bool feedsX = false;
    QString message; // what the error (or inspect's finding) must say
};

QList<Case> manifest()
{
    QList<Case> cases;
    QFile f(kCorpus + "/manifest.tsv");
    if (!f.open(QIODevice::ReadOnly))
        return cases;
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine()).chopped(1);
        if (line.startsWith('#') || line.isEmpty())
            continue;
        const QStringList cols = line.split('\t');
        if (cols.size() >= 4)
            cases.push_back({cols[0], cols[1], cols[2] == "x", cols[3]});
    }
    return cases;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

/// Runs portolan as a user's shell would under `ulimit -v 4G` (AddressSanitizer builds reserve
/// terabytes of shadow memory, so they run without the limit and rely on the memory cap alone).
test::CliRun runLimited(const QStringList &args)
{
    QProcess p;
    if (!kSanitized)
        p.setChildProcessModifier([] {
            const rlim_t limit = rlim_t(4) << 30;
            const rlimit as{limit, limit};
            ::setrlimit(RLIMIT_AS, &as);
        });
    p.start(PORTOLAN_BINARY, args);
    if (!p.waitForFinished(30000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(), p.readAllStandardError()};
}

enum class Role { Inspects, Analyses, Executes };

struct Command {
    QString name;
    Role role;
};

const QList<Command> kCommands{
    {"inspect", Role::Inspects},          {"check", Role::Analyses},    {"shapes", Role::Analyses},
    {"optimize", Role::Executes},         {"run", Role::Executes},      {"compare", Role::Executes},
    {"repro", Role::Executes},            {"bisect-precision", Role::Executes}, {"report", Role::Executes},
};

QStringList argumentsFor(const Command &command, const Case &c, const QString &model, const QString &scratch)
{
    QStringList args{command.name, model};
    if (command.name == "check")
        args << "--target" << "onnxruntime-cpu";
    else if (command.name == "optimize")
        args << "-O2" << "-o" << scratch + "/optimized.onnx";
    else if (command.name == "repro")
        args << "-o" << scratch + "/repro";
    else if (command.name == "bisect-precision")
        args << "--precision" << "fp16";
    else if (command.name == "report")
        args << "-o" << scratch + "/report.json";
    if (c.feedsX && command.role == Role::Executes && command.name != "optimize")
        args << "--input" << "x=random";
    return args;
}

} // namespace

class HostileCorpus : public QObject {
    Q_OBJECT

private slots:
    void everyCommandEndsCleanly_data()
    {
        QTest::addColumn<int>("caseIndex");
        QTest::addColumn<int>("commandIndex");
        const QList<Case> cases = manifest();
        for (int i = 0; i < cases.size(); ++i)
            for (int k = 0; k < kCommands.size(); ++k)
                QTest::newRow(qPrintable(cases[i].file + " " + kCommands[k].name)) << i << k;
    }

    void everyCommandEndsCleanly()
    {
        QFETCH(int, caseIndex);
        QFETCH(int, commandIndex);
        const Case c = manifest().at(caseIndex);
        const Command &command = kCommands.at(commandIndex);
        QTemporaryDir scratch;
        const QStringList args = argumentsFor(command, c, kCorpus + "/" + c.file, scratch.path());
        const test::CliRun r = runLimited(args);
        const QByteArray said = r.out + r.err;
        const QByteArray context = "portolan " + args.join(' ').toUtf8() + "\n" + said.left(2000);

        QVERIFY2(r.exitCode != -2, ("ended on a signal: " + context).constData());
        QVERIFY2(r.exitCode != -1, ("ran past 30 s: " + context).constData());
        QVERIFY2(r.exitCode >= 0 && r.exitCode <= 2, ("exit code " + QByteArray::number(r.exitCode) + ": " + context).constData());
        if (r.exitCode != 0)
            QVERIFY2(!r.err.trimmed().isEmpty() || !r.out.trimmed().isEmpty(), ("failed without a message: " + context).constData());

        const QByteArray message = c.message.toUtf8();
        if (c.kind == "unreadable") {
            QVERIFY2(r.exitCode == 2, ("an unreadable file must exit 2: " + context).constData());
            QVERIFY2(r.err.contains(message), ("the error must say '" + message + "': " + context).constData());
        } else if (c.kind == "refused") {
            if (command.role == Role::Inspects) {
                QVERIFY2(r.exitCode == 1, ("inspect must show the finding and exit 1: " + context).constData());
                QVERIFY2(said.contains(message), ("inspect must say '" + message + "': " + context).constData());
            } else if (command.role == Role::Executes) {
                QVERIFY2(r.exitCode == 2, ("a malformed model must be refused with exit 2: " + context).constData());
                QVERIFY2(r.err.contains(message), ("the refusal must say '" + message + "': " + context).constData());
            }
        } else if (c.kind == "runs") {
            if (command.name == "run" || command.name == "optimize")
                QVERIFY2(r.exitCode == 0, ("must run: " + context).constData());
        } else if (c.kind == "bounded") {
            if (command.name == "run") {
                QVERIFY2(r.exitCode == 2, ("a size bomb must be refused: " + context).constData());
                QVERIFY2(r.err.contains(message), ("the refusal must name '" + message + "': " + context).constData());
            }
        } else if (c.kind != "clean") {
            QFAIL(qPrintable("unknown kind " + c.kind + " in manifest.tsv"));
        }
    }

    void theCorpusIsThere() { QVERIFY(manifest().size() >= 40); }
};

QTEST_GUILESS_MAIN(HostileCorpus)
#include "tst_HostileCorpus.moc"
