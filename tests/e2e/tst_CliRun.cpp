// `portolan run` as a user runs it: both executors, their JSON, the compiled executor's statistics,
// and refusals with non-zero exits.
#include "support/CliSupport.h"
#include "support/TestSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace portolan;
using test::runPortolan;

class TestCliRun : public QObject {
    Q_OBJECT

    QString fixture(const char *name) const
    {
        return QString::fromStdString(test::fixturesDir()) + "/" + name + "/model.onnx";
    }

    QJsonObject runJson(const QStringList &args)
    {
        const auto run = runPortolan(args);
        if (run.exitCode != 0)
            qWarning("%s", run.err.constData());
        return QJsonDocument::fromJson(run.out).object();
    }

private slots:
    void cpuExecutorMatchesTheReference()
    {
        const QString model = fixture("cnn_bn");
        const QJsonObject reference = runJson({"run", model, "--input", "input=random:3", "--json"});
        const QJsonObject cpu = runJson({"run", model, "--executor", "cpu", "--input", "input=random:3", "--json", "--stats",
                                         "--repeat", "3", "--warmup", "1"});
        QCOMPARE(reference["executor"].toString(), QString("reference"));
        QCOMPARE(cpu["executor"].toString(), QString("cpu"));
        QVERIFY(cpu["pipeline"].toString().contains("fuse-conv-bn"));
        const QJsonObject expected = reference["outputs"].toArray().at(0).toObject();
        const QJsonObject actual = cpu["outputs"].toArray().at(0).toObject();
        QCOMPARE(actual["type"].toString(), expected["type"].toString());
        for (const char *stat : {"min", "max", "mean", "std"})
            QVERIFY2(std::abs(actual[stat].toDouble() - expected[stat].toDouble()) <= 1e-4 * (1 + std::abs(expected[stat].toDouble())), stat);
        QCOMPARE(cpu["fallback_nodes"].toInt(), 0);
        const QJsonObject memory = cpu["memory"].toObject();
        QVERIFY(memory["arena_bytes"].toDouble() > 0);
        QVERIFY(memory["arena_bytes"].toDouble() < memory["naive_bytes"].toDouble());
        QCOMPARE(cpu["profiles"].toObject()["compiled"].toInt(), 1);
        QCOMPARE(cpu["profiles"].toObject()["cache_hits"].toInt(), 3); // 1 warm-up + 3 timed runs, one compile
        const QJsonArray nodes = cpu["nodes"].toArray();
        QVERIFY(!nodes.isEmpty());
        for (const auto &n : nodes)
            QVERIFY2(n.toObject()["implementation"].toString() != "reference", qPrintable(n.toObject()["name"].toString()));
        QCOMPARE(cpu["latency_ms"].toObject()["runs"].toInt(), 3);
    }

    void statsPrintTheProfileAndThePlan()
    {
        const auto run = runPortolan({"run", fixture("transformer_opset17"), "--executor", "cpu", "--input",
                                      "input=random", "--shape", "input=1,8,32", "--stats"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(run.out.contains("on the compiled CPU executor after infer-shapes"));
        QVERIFY(run.out.contains("memory: arena"));
        QVERIFY(run.out.contains("profile (time per run, by node)"));
        QVERIFY(run.out.contains("native:attention"));
    }

    void badRequestsAreRefused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown executor") << QStringList{"--executor", "gpu"} << "not one of: reference, cpu";
        QTest::newRow("stats without cpu") << QStringList{"--stats"} << "go with --executor cpu";
        QTest::newRow("two pipelines") << QStringList{"-O1", "--pipeline", "infer-shapes"} << "give one of";
        QTest::newRow("bad pass") << QStringList{"--executor", "cpu", "--pipeline", "fuse-everything"} << "fuse-everything";
        QTest::newRow("no fallback") << QStringList{"--executor", "cpu", "-O0", "--no-fallback"} << "fallback";
    }

    void badRequestsAreRefused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto run = runPortolan(QStringList{"run", fixture("transformer_opset14"), "--input", "input=random", "--shape",
                                                 "input=1,8,32"} + args);
        QVERIFY(run.exitCode > 0);
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliRun)
#include "tst_CliRun.moc"
