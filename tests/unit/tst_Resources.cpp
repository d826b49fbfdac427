// The bundled sample is the transformer fixture, byte for byte (the generator writes both).
#include "support/TestSupport.h"

#include <QFile>
#include <QtTest>

class TestResources : public QObject {
    Q_OBJECT

    static QByteArray read(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

private slots:
    void sampleMatchesFixture_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("model") << "model.onnx";
        QTest::newRow("input") << "test_data_set_0/input_0.pb";
        QTest::newRow("output") << "test_data_set_0/output_0.pb";
    }

    void sampleMatchesFixture()
    {
        QFETCH(QString, file);
        const QByteArray sample = read(PORTOLAN_SOURCE_DIR "/resources/samples/mini_encoder/" + file);
        const QByteArray fixture = read(QString::fromStdString(portolan::test::fixturesDir()) + "/transformer_opset14/" + file);
        QVERIFY(!sample.isEmpty());
        QVERIFY2(sample == fixture, "regenerate with /usr/bin/python3 tests/data/generate_fixtures.py");
    }
};

QTEST_GUILESS_MAIN(TestResources)
#include "tst_Resources.moc"
