// ONNX Runtime as a built-in side (`--b ort[:LEVEL]`): installed on first use with npm, compared
// per layer wherever its optimized graph keeps the tensor, and so an oracle CI runs.
#include "support/CliSupport.h"
#include "support/TestSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace portolan;

namespace {

QString modelOf(const std::string &fixture) { return QString::fromStdString(test::fixturesDir() + "/" + fixture + "/model.onnx"); }
QString inputsOf(const std::string &fixture)
{
    return QString::fromStdString(test::fixturesDir() + "/" + fixture + "/test_data_set_0");
}

/// `compare FIXTURE --b SIDE --json` on its first test set, parsed.
QJsonObject compared(const std::string &fixture, const QString &side, int expectedExit = 0)
{
    const auto run = test::runPortolan({"compare", modelOf(fixture), "--inputs", inputsOf(fixture), "--b", side, "--json"});
    if (run.exitCode != expectedExit)
        qWarning("%s", (run.out + run.err).constData());
    return run.exitCode == expectedExit ? QJsonDocument::fromJson(run.out).object() : QJsonObject();
}

} // namespace

class tst_OnnxRuntimeSide : public QObject {
    Q_OBJECT
private slots:
    void everyTensorItKeepsIsCompared()
    {
        // without its optimizations ORT computes every tensor of the model; with all of them, it fuses
        // (attention, LayerNorm, GELU) and only the tensors its fused graph still has are compared
        const QJsonObject plain = compared("transformer_opset17", "ort:disabled");
        QVERIFY(!plain.isEmpty());
        QCOMPARE(plain["b"].toObject()["run"].toString(), QString("ort:disabled"));
        QCOMPARE(plain["outputs_verdict"].toString(), QString("equivalent"));
        const QJsonObject fused = compared("transformer_opset17", "ort:all");
        QVERIFY(!fused.isEmpty());
        QCOMPARE(fused["outputs_verdict"].toString(), QString("equivalent"));
        const int every = plain["compared"].toInt(), kept = fused["compared"].toInt();
        QVERIFY2(every > 100 && kept > 10 && kept < every, qPrintable(QString("%1 and %2 tensors").arg(every).arg(kept)));
        for (const QJsonValue &t : fused["tensors"].toArray())
            QVERIFY2(t.toObject()["verdict"].toString() != "bug", qPrintable(t.toObject()["name"].toString()));
    }

    void aDeepDecoderAgreesLayerByLayer()
    {
        const QJsonObject r = compared("decoder_deep", "ort:extended");
        QVERIFY(!r.isEmpty());
        QVERIFY2(r["compared"].toInt() > 500, qPrintable(QString::number(r["compared"].toInt())));
        QVERIFY(r["first_divergence"].isNull());
        for (const QJsonValue &t : r["tensors"].toArray())
            QVERIFY2(t.toObject()["verdict"].toString() == "equivalent", qPrintable(t.toObject()["name"].toString()));
    }

    void runsAndRefusesLikeAnySide()
    {
        const auto run = test::runPortolan({"run", modelOf("cnn_bn"), "--inputs", inputsOf("cnn_bn"), "--executor", "ort"});
        QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
        QVERIFY2(run.out.contains("logits"), run.out.constData());
        const auto refused = test::runPortolan({"compare", modelOf("cnn_bn"), "--b", "ort:fastest"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("disabled, basic, extended and all"), refused.err.constData());
    }
};

QTEST_GUILESS_MAIN(tst_OnnxRuntimeSide)
#include "tst_OnnxRuntimeSide.moc"
