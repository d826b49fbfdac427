// `portolan optimize` and `portolan passes` as a user runs them: exit codes, refusals, JSON, dumps.
#include "support/CliSupport.h"
#include "support/TestSupport.h"

#include "ir/ModelLoader.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace portolan;
using test::runPortolan;

class TestCliOptimize : public QObject {
    Q_OBJECT

    QString fixture(const char *name) const
    {
        return QString::fromStdString(test::fixturesDir()) + "/" + name + "/model.onnx";
    }

private slots:
    void passesListsEveryPassAndThePresets()
    {
        const auto text = runPortolan({"passes"});
        QCOMPARE(text.exitCode, 0);
        for (const char *name : {"infer-shapes", "fold-constants", "fuse-layer-norm", "fuse-attention", "decompose"})
            QVERIFY2(text.out.contains(name), name);
        QVERIFY(text.out.contains("-O2 = "));
        const auto json = runPortolan({"passes", "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out).object();
        QVERIFY(doc["passes"].toArray().size() >= 20);
        QVERIFY(doc["presets"].toObject()["O1"].toString().startsWith("infer-shapes,"));
    }

    void usageErrorsExitTwoAndSayWhy_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString model = fixture("cnn_bn");
        QTest::newRow("no output") << QStringList{"optimize", model} << "-o OUT.onnx is required";
        QTest::newRow("output is the input") << QStringList{"optimize", model, "-o", model, "--force"} << "overwrite the input";
        QTest::newRow("unknown pass") << QStringList{"optimize", model, "-o", "/tmp/never.onnx", "--pipeline", "fuse-all"}
                                      << "the passes are: infer-shapes";
        QTest::newRow("two levels") << QStringList{"optimize", model, "-o", "/tmp/never.onnx", "-O1", "-O2"} << "give one of";
        QTest::newRow("dump without dir") << QStringList{"optimize", model, "-o", "/tmp/never.onnx", "--print-after-change"}
                                          << "need --dump-dir";
        QTest::newRow("missing model") << QStringList{"optimize", "/nonexistent.onnx", "-o", "/tmp/never.onnx"}
                                       << "/nonexistent.onnx";
    }

    void usageErrorsExitTwoAndSayWhy()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto run = runPortolan(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
        QVERIFY(!QFile::exists("/tmp/never.onnx"));
    }

    void existingOutputNeedsForce()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("out.onnx");
        QFile f(out);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("keep me");
        f.close();
        const auto refused = runPortolan({"optimize", fixture("cnn_bn"), "-o", out, "--pipeline", "eliminate-dead"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY(refused.err.contains("--force"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("keep me"));
        f.close();
        const auto forced = runPortolan({"optimize", fixture("cnn_bn"), "-o", out, "--pipeline", "eliminate-dead", "--force"});
        QCOMPARE(forced.exitCode, 0);
        QVERIFY(ir::loadModelFile(out.toStdString()));
    }

    void jsonReportsEveryPassWithNumerics()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("out.onnx");
        const auto run = runPortolan({"optimize", fixture("cnn_bn"), "-o", out, "--pipeline",
                                      "eliminate-dead,eliminate-dead", "--check-numerics", "--verify-each", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["schema_version"].toInt(), 1);
        QCOMPARE(doc["pipeline"].toString(), QString("eliminate-dead,eliminate-dead"));
        QCOMPARE(doc["passes"].toArray().size(), 2);
        QVERIFY(doc["numerics_within_tolerance"].toBool());
        QVERIFY(doc["ops_before"].toObject().contains("Conv"));
        const QJsonObject second = doc["passes"].toArray()[1].toObject();
        QCOMPARE(second["changed"].toBool(), false);
        QCOMPARE(second["numerics"].toObject()["skipped_reason"].toString(), QString("the pass changed nothing"));
        QVERIFY(ir::loadModelFile(out.toStdString()));
    }

    // Each rewrite names the layer it touched: the two encoder layers' attention fusions are told apart.
    void rewritesNameTheirLayers()
    {
        QTemporaryDir dir;
        const auto run = runPortolan({"optimize", fixture("transformer_opset17"), "-O2", "-o", dir.filePath("out.onnx"), "--json"});
        QCOMPARE(run.exitCode, 0);
        QStringList attention;
        for (const QJsonValue &pass : QJsonDocument::fromJson(run.out).object()["passes"].toArray())
            for (const QJsonValue &rewrite : pass.toObject()["rewrites"].toArray())
                if (rewrite.toObject()["pattern"].toString() == "attention")
                    attention << rewrite.toObject()["scope"].toString();
        QCOMPARE(attention, (QStringList{"/layers.0/self_attn", "/layers.1/self_attn"}));
    }

    void stopAfterRunsOnlyThePrefix()
    {
        QTemporaryDir dir;
        const auto run = runPortolan({"optimize", fixture("cnn_bn"), "-o", dir.filePath("out.onnx"), "--pipeline",
                                      "eliminate-dead,eliminate-dead,eliminate-dead", "--stop-after", "1", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["passes"].toArray().size(), 1);
        QCOMPARE(doc["skipped_passes"].toInt(), 2);
    }

    void printAfterAllDumpsEveryPass()
    {
        QTemporaryDir dir;
        const QString dumps = dir.filePath("dumps");
        const auto run = runPortolan({"optimize", fixture("cnn_bn"), "-o", dir.filePath("out.onnx"), "--pipeline",
                                      "eliminate-dead,eliminate-dead", "--dump-dir", dumps, "--print-after-all"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(QFile::exists(dumps + "/01-eliminate-dead.onnx"));
        QVERIFY(QFile::exists(dumps + "/02-eliminate-dead.onnx"));
        QVERIFY(ir::loadModelFile((dumps + "/02-eliminate-dead.onnx").toStdString()));
    }

    void failingPassWritesAReproducerAndNoOutput()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("out.onnx");
        const QString dumps = dir.filePath("dumps");
        const auto run = runPortolan({"optimize", fixture("cnn_bn"), "-o", out, "--pipeline",
                                      "eliminate-dead,freeze-shapes{input=not-dims}", "--dump-dir", dumps});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("pass 'freeze-shapes{input=not-dims}'"), run.err.constData());
        QVERIFY2(run.err.contains("reproducer written to"), run.err.constData());
        QVERIFY(!QFile::exists(out));
        QVERIFY(ir::loadModelFile((dumps + "/reproducer/model.onnx").toStdString()));
        QFile pipeline(dumps + "/reproducer/pipeline.txt");
        QVERIFY(pipeline.open(QIODevice::ReadOnly));
        QCOMPARE(pipeline.readAll().trimmed(), QByteArray("freeze-shapes{input=not-dims}"));
    }
};

QTEST_GUILESS_MAIN(TestCliOptimize)
#include "tst_CliOptimize.moc"
