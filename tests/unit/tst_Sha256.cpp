// support::sha256Hex against FIPS 180-4's example digests, and the file form against the bytes form:
// the model hash of every port report comes from it.
#include "support/Sha256.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>

using namespace portolan;

class TestSha256 : public QObject {
    Q_OBJECT

private slots:
    void knownDigests_data()
    {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<QString>("digest");
        QTest::newRow("empty") << QByteArray() << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        QTest::newRow("abc") << QByteArray("abc") << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        QTest::newRow("448 bits: padding spills into a second block")
            << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
        QTest::newRow("a million a") << QByteArray(1000000, 'a')
                                     << "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    }

    void knownDigests()
    {
        QFETCH(QByteArray, message);
        QFETCH(QString, digest);
        QCOMPARE(QString::fromStdString(support::sha256Hex(std::string_view(message.constData(), message.size()))), digest);
        QTemporaryDir dir;
        const std::string path = dir.filePath("message.bin").toStdString();
        std::ofstream(path, std::ios::binary).write(message.constData(), message.size());
        QCOMPARE(QString::fromStdString(support::sha256HexOfFile(path).value_or("unreadable")), digest);
    }

    void anUnreadableFileHasNoDigest() { QVERIFY(!support::sha256HexOfFile("/nonexistent/model.onnx")); }
};

QTEST_GUILESS_MAIN(TestSha256)
#include "tst_Sha256.moc"
