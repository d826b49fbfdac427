// `portolan compare` as a user runs it: the default reference-against-compiled comparison passes,
// a tolerance fp16 cannot meet fails with exit 1 and names where the error starts, JSON carries the
// per-tensor metrics, and bad requests exit 2 with the reason.
#include "support/CliSupport.h"
#include "support/TestSupport.h"

#include "compare/OnnxRuntime.h"
#include "session/ComparisonJson.h"
#include "session/Workbench.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace portolan;
using test::runPortolan;

class TestCliCompare : public QObject {
    Q_OBJECT

    QString fixture(const char *name) const { return QString::fromStdString(test::fixturesDir()) + "/" + name + "/model.onnx"; }

private slots:
    void compiledMatchesTheReference()
    {
        const auto run = runPortolan({"compare", fixture("cnn_bn"), "--json"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject r = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(r["a"].toObject()["run"].toString(), QString("reference"));
        QCOMPARE(r["b"].toObject()["run"].toString(), QString("cpu:fp32"));
        QVERIFY(r["outputs_passed"].toBool());
        QVERIFY(r["compared"].toInt() >= 5);
        QVERIFY(r["first_divergence"].isNull());
        const QJsonObject out = r["outputs"].toArray().at(0).toObject();
        for (const char *key : {"max_abs", "mean_abs", "median_abs", "p99_abs", "max_rel", "rmse", "cosine", "snr_db",
                                "needed_atol", "needed_rtol", "top1", "top5", "worst", "nan", "inf"})
            QVERIFY2(out.contains(key), key);
        QVERIFY(out["cosine"].toDouble() > 0.999999);
    }

    void cudaMatchesTheReferenceOrSaysWhyNot()
    {
        const auto run = runPortolan({"compare", fixture("cnn_bn"), "--b", "cuda", "--json"});
        if (run.exitCode != 0) { // no GPU here, or a build without nvcc: a clear refusal
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains("needs a GPU") || run.err.contains("no CUDA executor"), run.err.constData());
            QSKIP("no GPU: the refusal was checked");
        }
        const QJsonObject r = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(r["b"].toObject()["run"].toString(), QString("cuda:fp32"));
        QVERIFY(r["outputs_passed"].toBool());
        QVERIFY(r["compared"].toInt() >= 5);
    }

    void conformRunsOnEachExecutorOrSaysWhyNot()
    {
        // the fixture's PyTorch outputs as ONNX test data, on the compiled CPU executor and the GPU
        const QString dir = QFileInfo(fixture("cnn_bn")).absolutePath();
        const auto cpu = runPortolan({"conform", "--executor", "cpu", dir});
        QVERIFY2(cpu.exitCode == 0 && cpu.out.contains("1 passed"), (cpu.out + cpu.err).constData());
        const auto gpu = runPortolan({"conform", "--executor", "cuda", dir});
        if (gpu.exitCode == 2) {
            QVERIFY2(gpu.err.contains("needs a GPU") || gpu.err.contains("no CUDA executor"), gpu.err.constData());
            QSKIP("no GPU: the refusal was checked");
        }
        QVERIFY2(gpu.exitCode == 0 && gpu.out.contains("1 passed"), (gpu.out + gpu.err).constData());
    }

    void cudaPortReportShowsWhereTheTimeWentOrSaysWhyNot()
    {
        QTemporaryDir tmp;
        const QString json = tmp.filePath("report.json");
        const auto run = runPortolan({"report", fixture("cnn_bn"), "--b", "cuda:fp16", "-o", json});
        if (run.exitCode == 2) {
            QVERIFY2(run.err.contains("needs a GPU") || run.err.contains("no CUDA executor"), run.err.constData());
            QSKIP("no GPU: the refusal was checked");
        }
        QFile file(json);
        QVERIFY2(file.open(QIODevice::ReadOnly), run.err.constData());
        const QJsonObject r = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(r["run_b"].toString(), QString("cuda:fp16"));
        const QJsonObject gpu = r["gpu"].toObject();
        QVERIFY(!gpu["device"].toString().isEmpty());
        QVERIFY(gpu["copy_bytes_per_s"].toDouble() > 0 && gpu["device_ms"].toDouble() > 0);
        const QJsonArray kernels = gpu["kernels"].toArray();
        QVERIFY(!kernels.isEmpty());
        QVERIFY(kernels[0].toObject()["ms"].toDouble() >= kernels[kernels.size() - 1].toObject()["ms"].toDouble());
        QVERIFY(r["performance"].toObject()["arena_bytes"].toDouble() > 0);
    }

    // One seed rule (runtime/Feeds.h): `compare --seed S` and the Workbench's compare (the dock's)
    // with seed S feed the same random inputs, so they measure the same errors, output by output.
    void cliAndWorkbenchFeedTheSameSeededInputs()
    {
        session::Workbench workbench;
        QVERIFY(workbench.open(fixture("cnn_bn").toStdString()));
        auto metricsOf = [&](std::uint64_t seed) {
            session::ComparisonRequest request;
            request.b.precision = "fp16";
            request.feeds.seed = seed;
            auto outcome = workbench.compare(request);
            std::vector<double> maxAbs;
            if (outcome)
                for (const compare::ComparedTensor *t : (*outcome)->result.outputs())
                    maxAbs.push_back(t->metrics.maxAbs);
            return maxAbs;
        };
        for (const std::uint64_t seed : {5u, 6u}) {
            const auto run = runPortolan({"compare", fixture("cnn_bn"), "--b", "cpu:fp16", "--seed", QString::number(seed),
                                          "--atol", "1", "--json"});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const QJsonArray outputs = QJsonDocument::fromJson(run.out).object()["outputs"].toArray();
            const std::vector<double> gui = metricsOf(seed);
            QCOMPARE(std::size_t(outputs.size()), gui.size());
            QVERIFY(!gui.empty());
            for (qsizetype i = 0; i < outputs.size(); ++i) {
                const double cli = outputs.at(i).toObject()["max_abs"].toDouble();
                QVERIFY2(cli > 0 && std::abs(cli - gui[std::size_t(i)]) <= 1e-12 * cli,
                         qPrintable(QString("seed %1 output %2: CLI %3, Workbench %4").arg(seed).arg(i).arg(cli, 0, 'g', 17)
                                        .arg(gui[std::size_t(i)], 0, 'g', 17)));
            }
        }
        QVERIFY(metricsOf(5) != metricsOf(6)); // the seed reaches the inputs at all
    }

    // One request, two clients: `compare --json` (a process) and Workbench::compare rendered by the
    // same formatter give the same JSON, suspects and kernel checks included; only the seconds differ.
    void cliJsonIsTheWorkbenchOutcome()
    {
        const QString model = fixture("cnn_bn");
        const auto run = runPortolan({"compare", model, "--a", "cpu:fp32", "--b", "cpu:fp16", "--seed", "4", "--atol", "1e-6",
                                      "--rtol", "0", "--top", "5", "--tolerance", "/layer2/relu/Relu_output_0_1=1,1", "--no-drift", "--json"});
        QCOMPARE(run.exitCode, 1);
        session::Workbench workbench;
        QVERIFY(workbench.open(model.toStdString()));
        session::ComparisonRequest request;
        request.a = session::SideSpec::compiled("cpu", "fp32");
        request.b = session::SideSpec::compiled("cpu", "fp16");
        request.feeds.seed = 4;
        request.tolerance = compare::Tolerance{1e-6, 0};
        request.allowDrift = false;
        request.suspectLimit = 5;
        request.tensorTolerances["/layer2/relu/Relu_output_0_1"] = {1, 1}; // a compared tensor: it passes
        request.profileB = false;
        auto outcome = workbench.compare(request);
        QVERIFY2(outcome, outcome ? "" : outcome.error().format().c_str());
        const QJsonObject cli = test::comparisonWithoutTimes(run.out);
        const QJsonObject core = test::comparisonWithoutTimes(QByteArray::fromStdString(session::comparisonJson(**outcome)));
        QVERIFY(!cli["suspects"].toArray().isEmpty());
        QVERIFY(cli["suspects"].toArray()[0].toObject().contains("kernel_check"));
        QCOMPARE(cli["b"].toObject()["run"].toString(), QString("cpu:fp16"));
        int loosened = 0;
        for (const QJsonValue &t : cli["tensors"].toArray())
            if (t.toObject()["name"].toString() == "/layer2/relu/Relu_output_0_1" && (++loosened, true))
                QVERIFY(t.toObject()["passed"].toBool());
        QCOMPARE(loosened, 1);
        QCOMPARE(cli, core);
    }

    void fp16AgainstATightToleranceDriftsOrFailsAndSaysWhere()
    {
        const QStringList tight{"compare", fixture("cnn_bn"), "--b", "cpu:fp16", "--atol", "1e-7", "--rtol", "0"};
        const auto drift = runPortolan(tight);
        QCOMPARE(drift.exitCode, 1); // out of tolerance, as fp16's rounding: drift
        QVERIFY2(drift.out.contains("first divergence: none"), drift.out.constData());
        QVERIFY(drift.out.contains("Outputs OUT OF TOLERANCE, as drift"));
        QVERIFY(drift.out.contains(", 0 bug"));
        const auto run = runPortolan(tight + QStringList{"--no-drift"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains("first divergence: "), run.out.constData());
        QVERIFY(!run.out.contains("first divergence: none"));
        QVERIFY(run.out.contains("Outputs OUT OF TOLERANCE: a bug."));
        QVERIFY(run.out.contains("no drift: every failure is a bug"));
        QVERIFY(run.out.contains("FusedConv"));
    }

    void reproStandsOnItsOwn()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("repro");
        const QStringList common{"--b", "cpu:fp16", "--atol", "1e-6", "--rtol", "0", "--no-drift"};
        const auto run = runPortolan(QStringList{"repro", fixture("cnn_bn"), "-o", dir} + common);
        QCOMPARE(run.exitCode, 1); // the repro reproduces the failure
        QVERIFY2(run.out.contains("FusedConv"), run.out.constData());
        for (const char *file : {"model.onnx", "README.md", "test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb"})
            QVERIFY2(QFile::exists(dir + "/" + file), file);
        QFile readme(dir + "/README.md");
        QVERIFY(readme.open(QIODevice::ReadOnly));
        const QByteArray text = readme.readAll();
        QVERIFY(text.contains("OUT OF TOLERANCE"));
        QVERIFY(text.contains("portolan repro "));
        // the reference interpreter agrees with the expected outputs, and the fp16 run alone still fails
        const auto conform = runPortolan({"conform", dir});
        QVERIFY2(conform.exitCode == 0, conform.out.constData());
        const auto alone = runPortolan(QStringList{"compare", dir + "/model.onnx", "--inputs", dir + "/test_data_set_0", "-O0"} + common);
        QCOMPARE(alone.exitCode, 1);
        // an existing repro is not overwritten without --force
        const auto again = runPortolan(QStringList{"repro", fixture("cnn_bn"), "-o", dir} + common);
        QCOMPARE(again.exitCode, 2);
        QVERIFY(again.err.contains("--force"));
    }

    void reproShrinksAWholeConeToTheFailingNode()
    {
        // cut around the output with every producer, then shrunk: fp16 at a tolerance fp16 cannot
        // meet fails at the first convolution already, so a handful of nodes at most remain
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("repro");
        const QStringList common{"--b", "cpu:fp16", "--atol", "1e-6", "--rtol", "0", "--no-drift"};
        const auto compared = runPortolan(QStringList{"compare", fixture("cnn_bn"), "--json"} + common);
        const QJsonObject result = QJsonDocument::fromJson(compared.out).object();
        const QString last = result["outputs"].toArray().first().toObject()["node"].toString();
        QVERIFY2(!last.isEmpty(), compared.out.constData());
        const QStringList cone{"--node", last, "--depth", "100"};
        const auto whole = runPortolan(QStringList{"repro", fixture("cnn_bn"), "-o", dir, "--no-shrink"} + cone + common);
        QCOMPARE(whole.exitCode, 1);
        const auto run = runPortolan(QStringList{"repro", fixture("cnn_bn"), "-o", dir, "--force"} + cone + common);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains("shrunk from "), run.out.constData());
        QFile readme(dir + "/README.md");
        QVERIFY(readme.open(QIODevice::ReadOnly));
        QVERIFY(readme.readAll().contains("Shrunk from the "));
        // written over the unshrunk repro: none of its data files are left to confuse the runners
        const auto conform = runPortolan({"conform", dir});
        QVERIFY2(conform.exitCode == 0, conform.out.constData());
        const auto alone = runPortolan(QStringList{"compare", dir + "/model.onnx", "--inputs", dir + "/test_data_set_0", "-O0"} + common);
        QCOMPARE(alone.exitCode, 1);
        const auto inspected = runPortolan({"inspect", dir + "/model.onnx", "--json"});
        const int nodes = QJsonDocument::fromJson(inspected.out).object()["nodes"].toObject()["main_graph"].toInt();
        QVERIFY2(nodes >= 1 && nodes <= 3, inspected.out.left(2000).constData());
    }

    void externalExecutorRunsACommand()
    {
        // Portolan itself as the "other runtime": it reads input_K.pb and writes .pb outputs
        const QString command = QStringLiteral("external:%1 run {model} --inputs {inputs} --output-dir {outputs}").arg(PORTOLAN_BINARY);
        const auto run = runPortolan({"compare", fixture("cnn_bn"), "--b", command, "--json"});
        QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
        const QJsonObject result = QJsonDocument::fromJson(run.out).object();
        QVERIFY(result["outputs_passed"].toBool());
        QCOMPARE(result["outputs"].toArray().size(), 1);
        // `run --executor external:…` writes what the command computed as portolan's own outputs
        QTemporaryDir tmp;
        const auto ran = runPortolan({"run", fixture("cnn_bn"), "--input", "input=random:3", "--executor", command, "--output-dir",
                                      tmp.filePath("out")});
        QVERIFY2(ran.exitCode == 0, (ran.out + ran.err).constData());
        QVERIFY(ran.out.contains("on the external command"));
        QVERIFY(QFile::exists(tmp.filePath("out/output_0.pb")));
        // outputs only: a repro has nothing to feed its cut with
        const auto blind = runPortolan({"repro", fixture("cnn_bn"), "--b", command, "--node", "/fc/Gemm", "-o", tmp.filePath("r")});
        QCOMPARE(blind.exitCode, 2);
        QVERIFY2(blind.err.contains("produced no tensor for '/Flatten_output_0'"), blind.err.constData());
        // a runtime that dumps its intermediates: every tensor compared, and the repro judged by the
        // same command run on the cut-out model alone
        const QString dumping = QStringLiteral("external:%1 run {model} --inputs {inputs} --dump-all {outputs}").arg(PORTOLAN_BINARY);
        const auto all = runPortolan({"compare", fixture("cnn_bn"), "--b", dumping, "--json"});
        QVERIFY2(all.exitCode == 0, (all.out + all.err).constData());
        QVERIFY(QJsonDocument::fromJson(all.out).object()["compared"].toInt() > 10);
        const auto repro = runPortolan({"repro", fixture("cnn_bn"), "--b", dumping, "--node", "/fc/Gemm", "-o", tmp.filePath("r")});
        QVERIFY2(repro.exitCode == 0, (repro.out + repro.err).constData());
        QVERIFY2(repro.out.contains("on the repro alone"), repro.out.constData());
    }

    void externalFailuresAreReported_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("exit status") << QStringList{"--b", "external:sh -c 'echo no GPU here >&2; exit 3' {model} {inputs} {outputs}"}
                                     << "exited with status 3; its output ends:\nno GPU here";
        QTest::newRow("hangs") << QStringList{"--b", "external:sh -c 'sleep 20' {model} {inputs} {outputs}", "--external-timeout", "0.5"}
                               << "did not finish within 0.5 s (--external-timeout) and was killed";
        QTest::newRow("no outputs") << QStringList{"--b", "external:true {model} {inputs} {outputs}"} << "left no tensors in {outputs}";
        QTest::newRow("not a template") << QStringList{"--b", "external:true {model}"} << "lacks {inputs}";
    }

    void externalFailuresAreReported()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        QElapsedTimer clock;
        clock.start();
        const auto run = runPortolan(QStringList{"compare", fixture("cnn_bn")} + arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
        QVERIFY(clock.elapsed() < 10000); // a hang is cut at its timeout, not waited out
    }

    void onnxRuntimeAdapterAgrees()
    {
        // the script as an external command, with onnxruntime-node where `--b ort` installs it
        const QString source = PORTOLAN_SOURCE_DIR;
        auto install = compare::installOnnxRuntime();
        QVERIFY2(install, install ? "" : install.error().format().c_str());
        const QString modules = QString::fromStdString(install->cacheDir) + "/node_modules";
        const QString model = fixture("transformer_opset17");
        const QString inputs = QString::fromStdString(test::fixturesDir()) + "/transformer_opset17/test_data_set_0";
        qputenv("NODE_PATH", modules.toUtf8());
        const auto run = runPortolan({"compare", model, "--inputs", inputs, "--b",
                                      "external:node " + source + "/scripts/external/onnxruntime-node.js {model} {inputs} {outputs}",
                                      "--atol", "1e-5", "--rtol", "1e-4"});
        QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
        QVERIFY(run.out.contains("Outputs within tolerance."));
    }

    void bisectedKeepListMakesTheLoweredRunPass()
    {
        const QString model = fixture("transformer_opset17");
        const QString inputs = QString::fromStdString(test::fixturesDir()) + "/transformer_opset17/test_data_set_0";
        const QStringList tolerance{"--atol", "1e-3", "--rtol", "1e-3"};
        const auto before = runPortolan(QStringList{"compare", model, "--inputs", inputs, "--b", "cpu:fp16"} + tolerance);
        QCOMPARE(before.exitCode, 1); // fp16 misses this tolerance as it is
        const auto run = runPortolan(QStringList{"bisect-precision", model, "--inputs", inputs, "--precision", "fp16", "--json"} + tolerance);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject r = QJsonDocument::fromJson(run.out).object();
        const QJsonArray keep = r["keep_fp32"].toArray();
        QVERIFY(!keep.isEmpty());
        QVERIFY(keep.size() < r["candidates"].toInt());
        QStringList rules;
        for (const auto &rule : keep)
            rules << "--keep-fp32" << rule.toString();
        const auto after = runPortolan(QStringList{"compare", model, "--inputs", inputs, "--b", "cpu:fp16"} + tolerance + rules);
        QVERIFY2(after.exitCode == 0, after.out.constData());
    }

    void dumpedRunComparesAsAnImportedOne()
    {
        QTemporaryDir tmp;
        const QString dump = tmp.filePath("dump");
        const QString inputs = QString::fromStdString(test::fixturesDir()) + "/cnn_bn/test_data_set_0";
        QCOMPARE(runPortolan({"run", fixture("cnn_bn"), "--inputs", inputs, "--dump-all", dump}).exitCode, 0);
        const auto run = runPortolan({"compare", fixture("cnn_bn"), "--inputs", inputs, "--b", "import:" + dump, "--json"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject r = QJsonDocument::fromJson(run.out).object();
        QVERIFY(r["b"].toObject()["run"].toString().startsWith("imported:"));
        QVERIFY(r["compared"].toInt() >= 10); // every intermediate of the dump
        QVERIFY(r["unknown_imported"].toArray().isEmpty());
    }

    void portReportInThreeFormats()
    {
        QTemporaryDir tmp;
        const QStringList common{"--b", "cpu:fp16", "--atol", "1e-6", "--rtol", "0"};
        const QString json = tmp.filePath("report.json"), md = tmp.filePath("report.md"), html = tmp.filePath("report.html");
        const auto run = runPortolan(QStringList{"report", fixture("cnn_bn"), "-o", json} + common);
        QCOMPARE(run.exitCode, 1); // the outputs miss this tolerance, and the report says so
        QFile file(json);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject r = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(r["schema"].toString(), QString("portolan-port-report"));
        QCOMPARE(r["schema_version"].toInt(), 2);
        QCOMPARE(r["run_b"].toString(), QString("cpu:fp16"));
        QVERIFY(!r["passed"].toBool());
        QCOMPARE(r["verdict"].toString(), QString("drift")); // fp16's rounding past 1e-6, and no bug
        QCOMPARE(r["outputs"].toArray().first().toObject()["verdict"].toString(), QString("drift"));
        QVERIFY2(r["tolerances"].toString().startsWith("atol 1e-06, rtol 0; fp16 explains"), qPrintable(r["tolerances"].toString()));
        QVERIFY(r["layers"].toArray().size() >= 5);
        QVERIFY(r["model"].toObject()["sha256"].toString().size() == 64);
        QVERIFY(r["model"].toObject()["ops_after"].toObject().contains("ai.portolan::FusedConv"));
        QVERIFY(r["performance"].toObject()["flops"].toDouble() > 0);
        QVERIFY(r.contains("gpu") && r["gpu"].isNull()); // B ran on the CPU
        // the same through compare --report, as Markdown and HTML
        QCOMPARE(runPortolan(QStringList{"compare", fixture("cnn_bn"), "--report", md} + common).exitCode, 1);
        QCOMPARE(runPortolan(QStringList{"compare", fixture("cnn_bn"), "--report", html} + common).exitCode, 1);
        QFile mdFile(md), htmlFile(html);
        QVERIFY(mdFile.open(QIODevice::ReadOnly) && htmlFile.open(QIODevice::ReadOnly));
        const QByteArray mdText = mdFile.readAll(), htmlText = htmlFile.readAll();
        QVERIFY(mdText.contains("# Port report") && mdText.contains("| output | verdict |") && mdText.contains("OUT OF TOLERANCE"));
        QVERIFY(htmlText.startsWith("<!DOCTYPE html>") && htmlText.contains("<svg") && htmlText.contains("#c8423b"));
        // the heat thumbnail: the graph's boxes filled by their error, the worst red-most
        QVERIFY(htmlText.contains("aria-label=\"error on the graph\""));
        QVERIFY(htmlText.contains("<title>Conv"));
        // files are not replaced without --force; an unknown format is refused
        const auto again = runPortolan(QStringList{"report", fixture("cnn_bn"), "-o", json} + common);
        QCOMPARE(again.exitCode, 2);
        QVERIFY(again.err.contains("--force"));
        const auto unknown = runPortolan(QStringList{"report", fixture("cnn_bn"), "-o", tmp.filePath("r.txt")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains(".json, .md, .html or .pdf"));
    }

    void portReportSaysWhatHappensBeforeItRuns()
    {
        // the model as loaded against a target that needs static shapes: the check, the dynamic dim
        // and the export pitfall are on the page, with the fix that works
        QTemporaryDir tmp;
        const QString json = tmp.filePath("report.json"), md = tmp.filePath("report.md");
        const QStringList common{"--shape", "input=1,8,32", "--target", "mobile"};
        const auto run = runPortolan(QStringList{"report", fixture("transformer_opset17"), "-o", json} + common);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile file(json);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject r = QJsonDocument::fromJson(file.readAll()).object();
        const QJsonObject target = r["target"].toObject();
        QCOMPARE(target["id"].toString(), QString("mobile"));
        QVERIFY(target["source"].toString().size() > 10); // the vendor document it was written from
        QVERIFY(target["unsupported_nodes"].toInt() > 0 && target["unsupported_nodes"].toInt() <= target["nodes"].toInt());
        const QJsonObject group = target["groups"].toArray().at(0).toObject();
        QVERIFY2(group["fix"].toString().contains("freeze-shapes"), qPrintable(group["fix"].toString()));
        QVERIFY(target["combined_fix"].toObject()["pipeline"].toString().startsWith("freeze-shapes{input=input:1x1x32}"));
        QCOMPARE(target["combined_fix"].toObject()["unsupported_after"].toInt(), 0);
        const QJsonArray dims = r["dynamic_dims"].toArray();
        QCOMPARE(dims.size(), 1);
        QVERIFY2(dims[0].toObject()["origin"].toString().contains("'seq'"), qPrintable(dims[0].toObject()["origin"].toString()));
        QVERIFY(dims[0].toObject()["static_nodes"].toInt() > 0); // mobile needs them static
        QCOMPARE(r["findings"].toArray().size(), 1);
        QCOMPARE(r["findings"].toArray()[0].toObject()["code"].toString(), QString("int64-shape-chain"));

        // Markdown says the same for people; no target: the section says how to add one
        QCOMPARE(runPortolan(QStringList{"compare", fixture("transformer_opset17"), "--report", md} + common).exitCode, 0);
        QFile mdFile(md);
        QVERIFY(mdFile.open(QIODevice::ReadOnly));
        const QByteArray text = mdFile.readAll();
        QVERIFY(text.contains("## Before it runs"));
        QVERIFY(text.contains("nodes unsupported"));
        QVERIFY(text.contains("| int64-shape-chain |"));
        QVERIFY(text.contains("leaves 0 unsupported"));
        const QString plain = tmp.filePath("plain.json");
        QCOMPARE(runPortolan({"report", fixture("cnn_bn"), "-o", plain}).exitCode, 0);
        QFile plainFile(plain);
        QVERIFY(plainFile.open(QIODevice::ReadOnly));
        const QJsonObject p = QJsonDocument::fromJson(plainFile.readAll()).object();
        QVERIFY(p["target"].isNull());
        QVERIFY(p["findings"].toArray().isEmpty() && p["dynamic_dims"].toArray().isEmpty());

        // --target without a report, or an unknown one, is refused before anything runs
        const auto noReport = runPortolan({"compare", fixture("cnn_bn"), "--target", "mobile"});
        QCOMPARE(noReport.exitCode, 2);
        QVERIFY(noReport.err.contains("--report"));
        const auto unknown = runPortolan({"report", fixture("cnn_bn"), "-o", tmp.filePath("u.json"), "--target", "no-such-npu"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(!QFile::exists(tmp.filePath("u.json")));
    }

    void portReportAsPdfHeadless()
    {
        // no display: the CLI renders on Qt's offscreen platform; one A4 page that poppler renders
        QTemporaryDir tmp;
        const QString pdf = tmp.filePath("report.pdf");
        qunsetenv("QT_QPA_PLATFORM");
        const auto run = runPortolan({"report", fixture("transformer_opset17"), "--shape", "input=1,8,32", "--b", "cpu:fp16",
                                      "--atol", "1e-4", "--rtol", "1e-4", "-o", pdf});
        qputenv("QT_QPA_PLATFORM", "offscreen");
        if (run.err.contains("built without the GUI"))
            QSKIP("this build has no GUI, whose renderer writes PDFs");
        QVERIFY2(run.exitCode == 1, (run.out + run.err).constData());
        QFile file(pdf);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.read(5) == "%PDF-");
        const QString pdftoppm = QStandardPaths::findExecutable("pdftoppm");
        if (pdftoppm.isEmpty())
            QSKIP("pdftoppm (poppler-utils) is not installed");
        QProcess render;
        render.start(pdftoppm, {"-r", "40", pdf, tmp.filePath("page")}); // binary PPM: "P6 W H 255\n" then RGB
        QVERIFY(render.waitForFinished(30000) && render.exitCode() == 0);
        QVERIFY(!QFile::exists(tmp.filePath("page-2.ppm"))); // one page
        QFile page(tmp.filePath("page-1.ppm"));
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QByteArray image = page.readAll();
        QVERIFY2(image.startsWith("P6"), image.left(16).constData());
        std::size_t offset = 0;
        for (int newlines = 0; offset < static_cast<std::size_t>(image.size()) && newlines < 3; ++offset)
            newlines += image[static_cast<qsizetype>(offset)] == '\n';
        int red = 0; // the strip chart's failing bars, #c8423b
        for (auto at = static_cast<qsizetype>(offset); at + 2 < image.size(); at += 3)
            red += static_cast<unsigned char>(image[at]) > 180 && static_cast<unsigned char>(image[at + 1]) < 90 &&
                   static_cast<unsigned char>(image[at + 2]) < 90;
        QVERIFY2(red > 200, std::to_string(red).c_str());
        // not replaced without --force
        const auto again = runPortolan({"report", fixture("transformer_opset17"), "--shape", "input=1,8,32", "-o", pdf});
        QCOMPARE(again.exitCode, 2);
    }

    void badRequestsAreRefused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown run") << QStringList{"--b", "gpu"} << "is not reference, cpu, cpu:PRECISION";
        QTest::newRow("unknown precision") << QStringList{"--b", "cpu:fp8"} << "not one of: fp32, fp16";
        QTest::newRow("cuda at int4") << QStringList{"--b", "cuda:int4"} << "runs at fp32, fp16, bf16 or int8";
        QTest::newRow("cuda int8 uncalibrated") << QStringList{"--b", "cuda:int8"} << "needs one of --calibration";
        QTest::newRow("int8 uncalibrated") << QStringList{"--b", "cpu:int8"} << "needs one of --calibration";
        QTest::newRow("bad tolerance") << QStringList{"--tolerance", "logits=1"} << "is not NAME=ATOL,RTOL";
        QTest::newRow("missing model") << QStringList{} << "";
        QTest::newRow("imported folder missing") << QStringList{"--b", "import:/nonexistent"} << "is neither a folder of .pb or .npy files";
    }

    void badRequestsAreRefused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString model = message.isEmpty() ? "/nonexistent/model.onnx" : fixture("cnn_bn");
        const auto run = runPortolan(QStringList{"compare", model} + args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_CliCompare.moc"
