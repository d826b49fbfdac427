// `portolan inspect` as a user runs it: exit codes, text and JSON, on fixtures and ONNX's test suite.
#include "support/CliSupport.h"
#include "support/TestSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace portolan;

using test::runPortolan;
using Run = test::CliRun;

class TestCliInspect : public QObject {
    Q_OBJECT

private slots:
    void helpAndVersion()
    {
        const Run help = runPortolan({"--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("inspect"));
        QVERIFY(help.out.contains("Exit codes"));
        const Run version = runPortolan({"--version"});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.out.startsWith("portolan " PORTOLAN_VERSION));
        const Run commandHelp = runPortolan({"inspect", "--help"});
        QCOMPARE(commandHelp.exitCode, 0);
        QVERIFY(commandHelp.out.contains("--json"));
    }

    void badUsageExitsTwo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown command") << QStringList{"frobnicate"};
        QTest::newRow("unknown option") << QStringList{"inspect", "--nope", "x.onnx"};
        QTest::newRow("missing model") << QStringList{"inspect"};
        QTest::newRow("unreadable model") << QStringList{"inspect", "/nonexistent.onnx"};
    }

    void badUsageExitsTwo()
    {
        QFETCH(QStringList, args);
        const Run r = runPortolan(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!r.err.isEmpty());
    }

    void loadErrorIsJsonToo()
    {
        const Run r = runPortolan({"inspect", "--json", "/nonexistent.onnx"});
        QCOMPARE(r.exitCode, 2);
        const QJsonObject error = QJsonDocument::fromJson(r.out).object().value("error").toObject();
        QCOMPARE(error.value("code").toString(), QString("cannot-open"));
    }

    void fixturesText()
    {
        const Run r = runPortolan({"inspect", QString::fromStdString(test::fixturesDir() + "/transformer_opset14/model.onnx")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("float[1,seq,32]"));
        QVERIFY(r.out.contains("(dynamic: seq)"));
        QVERIFY(r.out.contains("/layers.0"));
        // The checker and shape inference are clean; what remains is the exporter's int64 shape arithmetic.
        QVERIFY(r.out.contains("Findings"));
        QVERIFY(r.out.contains("int64 shape arithmetic done at run time"));
        QVERIFY(!r.out.contains("error"));
    }

    void fixturesJson_data()
    {
        QTest::addColumn<QString>("name");
        for (const std::string &n : test::fixtureNames())
            QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }

    void fixturesJson()
    {
        QFETCH(QString, name);
        const Run r = runPortolan({"inspect", "--json", QString::fromStdString(test::fixturesDir()) + "/" + name + "/model.onnx"});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError error{};
        const QJsonObject doc = QJsonDocument::fromJson(r.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(doc.value("schema_version").toInt(), 1);
        QVERIFY(doc.value("nodes").toObject().value("main_graph").toInt() > 0);
        QVERIFY(!doc.value("op_histogram").toArray().isEmpty());
        // Fixtures are valid exports: at most informational notes (pitfall codes are asserted in
        // tst_ExportPitfalls), never an error or a warning.
        for (const QJsonValue &finding : doc.value("findings").toArray())
            QCOMPARE(finding.toObject().value("severity").toString(), QString("info"));
        if (name == "external_data")
            QCOMPARE(doc.value("initializers").toObject().value("external_bytes").toInt(), 6432);
        if (name == "control_flow") {
            QVERIFY(doc.value("nodes").toObject().value("subgraphs").toInt() >= 3);
            QCOMPARE(doc.value("nodes").toObject().value("max_subgraph_depth").toInt(), 2);
        }
        if (name.startsWith("transformer")) {
            const QJsonArray shape = doc.value("inputs").toArray().at(0).toObject().value("shape").toArray();
            QCOMPARE(shape.at(1).toString(), QString("seq"));
            QCOMPARE(shape.at(2).toInt(), 32);
        }
    }

    void findingsExitOne()
    {
        QTemporaryDir dir;
        const std::string bytes = test::canonicalBytes(test::parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
            g (float[2] x) => (float[2] z) { z = NoSuchOp(x) })"));
        QFile file(dir.filePath("bad.onnx"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes.data(), static_cast<qint64>(bytes.size()));
        file.close();
        const Run r = runPortolan({"inspect", "--json", file.fileName()});
        QCOMPARE(r.exitCode, 1);
        const QJsonArray findings = QJsonDocument::fromJson(r.out).object().value("findings").toArray();
        QVERIFY(!findings.isEmpty());
        QCOMPARE(findings.at(0).toObject().value("node").toString(), QString("#0 (NoSuchOp)"));
    }

    // Every model of ONNX's backend test suite inspects cleanly with JSON that parses (in batches:
    // one process per model would spend the test's time starting processes).
    void onnxBackendSuite()
    {
        const auto models = test::onnxTestDataModels();
        if (models.empty())
            QSKIP("libonnx-testdata is not installed");
        int ok = 0;
        int withWarnings = 0;
        QStringList failures;
        constexpr std::size_t kBatch = 200;
        for (std::size_t first = 0; first < models.size(); first += kBatch) {
            QStringList args{"inspect", "--json", "--"};
            for (std::size_t i = first; i < std::min(models.size(), first + kBatch); ++i)
                args << QString::fromStdString(models[i]);
            const Run r = runPortolan(args);
            QVERIFY2(r.exitCode >= 0, r.exitCode == -1 ? "portolan inspect timed out" : "portolan inspect crashed");
            QJsonParseError error{};
            const QJsonArray docs = QJsonDocument::fromJson(r.out, &error).array();
            QCOMPARE(error.error, QJsonParseError::NoError);
            QCOMPARE(docs.size(), args.size() - 3);
            for (const QJsonValue &doc : docs) {
                const QJsonObject o = doc.toObject();
                bool errors = o.contains("error");
                const QJsonArray findings = o.value("findings").toArray();
                for (const QJsonValue &f : findings)
                    errors |= f.toObject().value("severity").toString() == "error";
                withWarnings += findings.isEmpty() ? 0 : 1;
                if (errors)
                    failures << QJsonDocument(o).toJson();
                else
                    ++ok;
            }
            if (r.exitCode != 0)
                failures << "batch exit code " + QString::number(r.exitCode) + ": " + r.err;
        }
        qInfo("inspect --json succeeded on %d of %d libonnx-testdata models (%d with warnings)", ok,
              int(models.size()), withWarnings);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.mid(0, 3).join('\n')));
        QCOMPARE(ok, int(models.size()));
    }

    void severalModelsGiveAJsonArray()
    {
        const QString dir = QString::fromStdString(test::fixturesDir());
        const Run r = runPortolan({"inspect", "--json", dir + "/cnn_bn/model.onnx", "/nonexistent.onnx"});
        QCOMPARE(r.exitCode, 2); // the worst of the two
        const QJsonArray docs = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(docs.size(), 2);
        QVERIFY(docs.at(0).toObject().contains("op_histogram"));
        QVERIFY(docs.at(1).toObject().contains("error"));
    }
};

QTEST_GUILESS_MAIN(TestCliInspect)
#include "tst_CliInspect.moc"
