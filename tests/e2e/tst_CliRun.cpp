// `portolan run` as a user runs it: both executors, their JSON, the compiled executor's statistics,
// and refusals with non-zero exits.
#include "support/CliSupport.h"
#include "support/TestSupport.h"

#include "runtime/NumpyFiles.h"
#include "ir/ModelLoader.h"
#include "runtime/TensorProtoIO.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
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
        QCOMPARE(cpu["shape_plans"].toObject()["compiled"].toInt(), 1);
        QCOMPARE(cpu["shape_plans"].toObject()["cache_hits"].toInt(), 3); // 1 warm-up + 3 timed runs, one compile
        const QJsonArray nodes = cpu["nodes"].toArray();
        QVERIFY(!nodes.isEmpty());
        for (const auto &n : nodes)
            QVERIFY2(n.toObject()["implementation"].toString() != "reference", qPrintable(n.toObject()["name"].toString()));
        QCOMPARE(cpu["latency_ms"].toObject()["runs"].toInt(), 3);
    }

    void cudaRunsOnTheGpuOrSaysWhyNot()
    {
        const QString model = fixture("cnn_bn");
        const auto run = runPortolan({"run", model, "--executor", "cuda", "--input", "input=random:3", "--json", "--stats"});
        if (run.exitCode != 0) { // no GPU here, or a build without nvcc: a clear refusal, nothing half-done
            QVERIFY2(run.err.contains("needs a GPU") || run.err.contains("no CUDA executor"), run.err.constData());
            QVERIFY(run.out.isEmpty());
            QSKIP("no GPU: the refusal was checked");
        }
        const QJsonObject cuda = QJsonDocument::fromJson(run.out).object();
        const QJsonObject reference = runJson({"run", model, "--input", "input=random:3", "--json"});
        QCOMPARE(cuda["executor"].toString(), QString("cuda"));
        QVERIFY(!cuda["device"].toString().isEmpty());
        const QJsonObject expected = reference["outputs"].toArray().at(0).toObject();
        const QJsonObject actual = cuda["outputs"].toArray().at(0).toObject();
        for (const char *stat : {"min", "max", "mean", "std"})
            QVERIFY2(std::abs(actual[stat].toDouble() - expected[stat].toDouble()) <= 1e-4 * (1 + std::abs(expected[stat].toDouble())), stat);
        QVERIFY(cuda["transfers"].toObject()["downloads"].toInt() >= 1);
        QVERIFY(!cuda["nodes"].toArray().isEmpty());
    }

    void cudaKeepsNodesAtFp32OrSaysWhyNot()
    {
        // cuda:fp16 with the convolutions kept: they compute on fp32 (saying why), the rest on fp16
        const QString model = fixture("cnn_bn");
        const auto run = runPortolan({"run", model, "--executor", "cuda:fp16", "--keep-fp32", "group:conv", "--input", "input=random:3",
                                      "--json", "--stats"});
        if (run.exitCode != 0) { // --keep-fp32 is taken; what refuses is the missing GPU
            QVERIFY2(run.err.contains("needs a GPU") || run.err.contains("no CUDA executor"), run.err.constData());
            QSKIP("no GPU: the refusal was checked");
        }
        int kept = 0;
        for (const QJsonValue &node : QJsonDocument::fromJson(run.out).object()["nodes"].toArray()) {
            const QJsonObject n = node.toObject();
            const bool conv = n["op_type"].toString().contains("Conv");
            const QString precision = n["precision"].toString(), why = n["why_precision"].toString();
            if (conv) {
                QCOMPARE(precision, QString("fp32"));
                QVERIFY2(why.contains("--keep-fp32 'group:conv'"), qPrintable(why));
                ++kept;
            } else { // fp16, or data movement that stays at fp32 after a convolution
                QVERIFY2(precision == "fp16" || (precision == "fp32" && why.contains("moves data")), qPrintable(n["name"].toString()));
            }
        }
        QVERIFY(kept > 0);
    }

    void cudaInt8RunsCalibratedOrSaysWhyNot()
    {
        // cuda:int8 calibrates as cpu's int8 does (here, before asking for the GPU), quantizes the
        // convolutions and products, and lands where the CPU executor's int8 does
        const QString model = fixture("cnn_bn");
        const QStringList common{"--calibration", "random:2", "--input", "input=random:3", "--json"};
        const auto run = runPortolan(QStringList{"run", model, "--executor", "cuda:int8", "--stats"} + common);
        if (run.exitCode != 0) {
            QVERIFY2(run.err.contains("needs a GPU") || run.err.contains("no CUDA executor"), run.err.constData());
            QSKIP("no GPU: the refusal was checked");
        }
        int quantized = 0;
        for (const QJsonValue &node : QJsonDocument::fromJson(run.out).object()["nodes"].toArray()) {
            const QJsonObject n = node.toObject();
            const bool product = n["op_type"].toString().contains("Conv") || n["op_type"].toString().contains("Gemm");
            QCOMPARE(n["precision"].toString(), QString(product ? "int8" : "fp32"));
            quantized += product;
        }
        QVERIFY(quantized > 0);
        // the summary counts the nodes per precision and says why the others stayed at fp32
        const auto text = runPortolan({"run", model, "--executor", "cuda:int8", "--calibration", "random:2", "--input", "input=random:3"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("precision int8 policy, nodes: ") && text.out.contains("at fp32: int8 quantizes Conv, MatMul and Gemm only"),
                 text.out.constData());
        const QJsonObject cpu = runJson(QStringList{"run", model, "--executor", "cpu", "--precision", "int8"} + common);
        const QJsonObject expected = cpu["outputs"].toArray().at(0).toObject();
        const QJsonObject actual = QJsonDocument::fromJson(run.out).object()["outputs"].toArray().at(0).toObject();
        for (const char *stat : {"min", "max", "mean", "std"})
            QVERIFY2(std::abs(actual[stat].toDouble() - expected[stat].toDouble()) <= 1e-4 * (1 + std::abs(expected[stat].toDouble())), stat);
    }

    void npyInputsFeedLikeTheirPb()
    {
        // the test set's input as .npy: the same outputs as from the .pb
        const QString dir = QString::fromStdString(test::fixturesDir()) + "/cnn_bn/test_data_set_0";
        auto loaded = ir::loadModelFile(fixture("cnn_bn").toStdString());
        QVERIFY(loaded);
        const ir::Model &model = *loaded->model;
        const ir::Value &input = model.value(model.graph(model.mainGraph()).inputs.front());
        auto value = runtime::readValueFile((dir + "/input_0.pb").toStdString(), input.type());
        QVERIFY(value);
        QTemporaryDir tmp;
        const QString npy = tmp.filePath("x.npy");
        QVERIFY(runtime::writeNpyFile(value->tensor, npy.toStdString()));
        const QString name = QString::fromStdString(input.name);
        const QJsonObject fromPb = runJson({"run", fixture("cnn_bn"), "--input", name + "=" + dir + "/input_0.pb", "--json"});
        const QJsonObject fromNpy = runJson({"run", fixture("cnn_bn"), "--input", name + "=" + npy, "--json"});
        QVERIFY(!fromPb["outputs"].toArray().isEmpty());
        QCOMPARE(fromNpy["outputs"].toArray(), fromPb["outputs"].toArray());
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

    void lowerPrecisionsDriftAndSayWhere()
    {
        const QString model = fixture("cnn_bn");
        const QStringList common{"run", model, "--executor", "cpu", "--input", "input=random:3", "--json", "--stats"};
        const QJsonObject fp32 = runJson(common);
        const QJsonObject fp16 = runJson(common + QStringList{"--precision", "fp16", "--keep-fp32", "op:Gemm"});
        const QJsonObject precision = fp16["precision"].toObject();
        QCOMPARE(precision["policy"].toString(), QString("fp16"));
        QCOMPARE(precision["keep_fp32"].toArray().at(0).toString(), QString("op:Gemm"));
        QVERIFY(precision["nodes"].toObject()["fp16"].toInt() >= 3);
        bool sawGemm = false;
        for (const auto &n : fp16["nodes"].toArray())
            if (n.toObject()["op_type"].toString() == "Gemm") {
                sawGemm = true;
                QCOMPARE(n.toObject()["precision"].toString(), QString("fp32"));
                QCOMPARE(n.toObject()["why_precision"].toString(), QString("kept by --keep-fp32 'op:Gemm'"));
            }
        QVERIFY(sawGemm);
        const double expected = fp32["outputs"].toArray().at(0).toObject()["mean"].toDouble();
        const double actual = fp16["outputs"].toArray().at(0).toObject()["mean"].toDouble();
        QVERIFY2(actual != expected && std::abs(actual - expected) < 1e-2, qPrintable(QString::number(actual - expected)));
    }

    void int8CalibratesSavesAndReloads()
    {
        const QString model = fixture("cnn_bn");
        const QString dir = QString::fromStdString(test::fixturesDir()) + "/cnn_bn";
        QTemporaryDir tmp;
        const QString table = tmp.filePath("calibration.txt");
        const QStringList common{"run", model, "--executor", "cpu", "--inputs", dir + "/test_data_set_0", "--precision", "int8", "--json"};
        const QJsonObject calibrated = runJson(common + QStringList{"--calibration", dir, "--calibration-method", "minmax",
                                                                    "--save-calibration", table});
        QCOMPARE(calibrated["precision"].toObject()["calibration"].toObject()["method"].toString(), QString("minmax"));
        QCOMPARE(calibrated["precision"].toObject()["calibration"].toObject()["batches"].toInt(), 1);
        QVERIFY(calibrated["precision"].toObject()["nodes"].toObject()["int8"].toInt() >= 3);
        QFile file(table);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().startsWith("portolan-calibration 1\nmethod minmax\nbatches 1\n"));
        const QJsonObject reloaded = runJson(common + QStringList{"--calibration-table", table});
        QCOMPARE(reloaded["outputs"], calibrated["outputs"]);
        // the table is not overwritten without --force
        const auto again = runPortolan(common + QStringList{"--calibration", "random:2", "--save-calibration", table});
        QCOMPARE(again.exitCode, 2);
        QVERIFY2(again.err.contains("already exists"), again.err.constData());
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
        QTest::newRow("precision without cpu") << QStringList{"--precision", "fp16"} << "precision options go with --executor cpu";
        QTest::newRow("precision option on cuda") << QStringList{"--executor", "cuda", "--precision", "fp16"} << "name the CUDA executor's precision";
        QTest::newRow("unknown precision") << QStringList{"--executor", "cpu", "--precision", "fp8"} << "not one of: fp32, fp16";
        QTest::newRow("int8 uncalibrated") << QStringList{"--executor", "cpu", "--precision", "int8"} << "needs one of --calibration";
        QTest::newRow("calibration without int8") << QStringList{"--executor", "cpu", "--calibration", "random:2"} << "go with int8";
        QTest::newRow("calibration on cuda fp16") << QStringList{"--executor", "cuda:fp16", "--calibration", "random:2"} << "go with int8";
        QTest::newRow("cuda int8 uncalibrated") << QStringList{"--executor", "cuda:int8"} << "needs one of --calibration";
        QTest::newRow("bad calibration spec") << QStringList{"--executor", "cpu", "--precision", "int8", "--calibration", "random:0"} << "random:N";
        QTest::newRow("bad keep group") << QStringList{"--executor", "cpu", "--precision", "fp16", "--keep-fp32", "group:norm"} << "no such group";
        QTest::newRow("bad keep group on cuda") << QStringList{"--executor", "cuda:fp16", "--keep-fp32", "group:norm"} << "no such group";
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

    void unfedInputsAreNamedWithHowToFeedThem()
    {
        const auto run = runPortolan({"run", fixture("cnn_bn"), "--executor", "cpu"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("no value given for input(s) 'input'") && run.err.contains("--input NAME=random"),
                 run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliRun)
#include "tst_CliRun.moc"
