// Session files: what is saved reopens as it was, paths travel with the folder, and a file that is
// not a session (or a newer one) is refused with a message naming it.
#include "session/SessionFile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace portolan;

class TestSessionFile : public QObject {
    Q_OBJECT

    static std::string write(const QTemporaryDir &dir, const char *name, const QByteArray &text)
    {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(text);
        return file.fileName().toStdString();
    }

private slots:
    void roundTripsWithRelativePaths()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("models/m/test_data_set_0"));
        session::SessionFile s;
        s.model = dir.filePath("models/m/model.onnx").toStdString();
        s.pipeline = "infer-shapes,fuse-gelu";
        s.target = "tensorrt-10";
        s.compare.precision = "bf16";
        s.compare.inputsDir = dir.filePath("models/m/test_data_set_0").toStdString();
        s.compare.seed = 7;
        s.compare.shapes = "input=1,8,32";
        s.compare.atol = "1e-3";
        s.compare.heatMetric = "cosine-distance";
        s.compare.calibration = "random:4:2";
        s.compare.inputFiles = "mask=/data/mask.npy";
        s.compare.sideA = "cpu:fp32";
        s.compare.externalCommand = "trtexec-wrapper {model} {inputs} {outputs}";
        s.compare.importFrom = dir.filePath("models/m/trt_run.npz").toStdString();
        const std::string path = dir.filePath("work.portolan").toStdString();
        QVERIFY(session::writeSession(s, path, false));
        // stored relative: the folder can move
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY2(text.contains("\"model\":\"models/m/model.onnx\"") || text.contains("\"model\": \"models/m/model.onnx\""),
                 text.constData());
        const QString moved = dir.filePath("elsewhere");
        QVERIFY(QDir().rename(dir.path() + "/models", dir.path() + "/moved"));
        QVERIFY(QDir().mkpath(moved));
        QVERIFY(QFile::copy(QString::fromStdString(path), moved + "/work.portolan"));
        QVERIFY(QDir().rename(dir.path() + "/moved", moved + "/models"));
        const auto back = session::readSession((moved + "/work.portolan").toStdString());
        QVERIFY2(back, back ? "" : back.error().format().c_str());
        QCOMPARE(QString::fromStdString(back->model), QDir::cleanPath(moved + "/models/m/model.onnx"));
        QCOMPARE(QString::fromStdString(back->compare.inputsDir), QDir::cleanPath(moved + "/models/m/test_data_set_0"));
        QCOMPARE(back->pipeline, s.pipeline);
        QCOMPARE(back->target, s.target);
        QCOMPARE(back->compare.precision, std::string("bf16"));
        QCOMPARE(back->compare.seed, std::uint64_t(7));
        QCOMPARE(back->compare.shapes, s.compare.shapes);
        QCOMPARE(back->compare.atol, std::string("1e-3"));
        QCOMPARE(back->compare.rtol, std::string());
        QCOMPARE(back->compare.heatMetric, std::string("cosine-distance"));
        QCOMPARE(back->compare.calibration, std::string("random:4:2"));
        QCOMPARE(back->compare.inputFiles, s.compare.inputFiles);
        QCOMPARE(back->compare.sideA, std::string("cpu:fp32"));
        QCOMPARE(back->compare.externalCommand, s.compare.externalCommand);
        QCOMPARE(QString::fromStdString(back->compare.importFrom), QDir::cleanPath(moved + "/models/m/trt_run.npz"));
        // a path outside the folder stays absolute
        s.model = "/opt/models/big.onnx";
        QVERIFY(session::writeSession(s, path, true));
        QCOMPARE(session::readSession(path)->model, std::string("/opt/models/big.onnx"));
        // never replaced unasked
        const auto again = session::writeSession(s, path, false);
        QVERIFY(!again);
        QCOMPARE(again.error().primary.code, std::string("file-exists"));
    }

    void badFilesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("code");
        QTest::newRow("not json") << QByteArray("{model: x") << "not-a-session";
        QTest::newRow("other json") << QByteArray(R"({"schema": "portolan-port-report"})") << "not-a-session";
        QTest::newRow("newer") << QByteArray(R"({"format": "portolan-session", "format_version": 99, "model": "m.onnx"})")
                               << "session-too-new";
        QTest::newRow("wrong type") << QByteArray(R"({"format": "portolan-session", "format_version": 1, "model": 3})")
                                    << "bad-session";
        QTest::newRow("no model") << QByteArray(R"({"format": "portolan-session", "format_version": 1, "model": ""})")
                                  << "bad-session";
    }

    void badFilesAreRefused()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, code);
        QTemporaryDir dir;
        const std::string path = write(dir, "bad.portolan", text);
        const auto read = session::readSession(path);
        QVERIFY(!read);
        QCOMPARE(QString::fromStdString(read.error().primary.code), code);
        QVERIFY(read.error().format().find("bad.portolan") != std::string::npos); // the message names the file
    }

    void missingFileIsAnError()
    {
        const auto read = session::readSession("/nonexistent/x.portolan");
        QVERIFY(!read);
        QCOMPARE(read.error().primary.code, std::string("cannot-open"));
    }
};

QTEST_GUILESS_MAIN(TestSessionFile)
#include "tst_SessionFile.moc"
