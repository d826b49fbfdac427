// Workbench::compare, the facade the compare panel runs: reference against the compiled executor on
// a real exported transformer, within tolerance at fp32, diverging at fp16 under a tight tolerance,
// at int8 after a calibration, and against another runtime's imported tensors.
#include "support/StandInGpu.h"
#include "support/TestSupport.h"

#include "session/PortReportBuilder.h"
#include "runtime/NumpyFiles.h"
#include "runtime/ExecutorRegistry.h"
#include "runtime/Feeds.h"
#include "runtime/InputGeneration.h"
#include "runtime/cpu/CpuExecutor.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/reference/Interpreter.h"
#include "session/Workbench.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace portolan;

class TestWorkbenchCompare : public QObject {
    Q_OBJECT

    session::Workbench m_workbench;

    /// True when `request` is refused with an error that names `what`.
    bool refused(const session::ComparisonRequest &request, const std::string &what) const
    {
        const auto outcome = m_workbench.compare(request);
        if (outcome.hasValue())
            return false;
        const std::string message = outcome.error().format();
        if (message.find(what) == std::string::npos)
            qWarning("the error does not name '%s': %s", what.c_str(), message.c_str());
        return message.find(what) != std::string::npos;
    }

private slots:
    void initTestCase() { QVERIFY(m_workbench.open(test::fixturesDir() + "/transformer_opset17/model.onnx")); }

    void fp32PassesEveryOutput()
    {
        session::ComparisonRequest request;
        request.feeds.testDataDir = test::fixturesDir() + "/transformer_opset17/test_data_set_0";
        request.progress = std::make_shared<std::atomic<int>>(-1);
        auto outcome = m_workbench.compare(request);
        QCOMPARE(request.progress->load(), 1000); // both runs done
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        const auto &o = **outcome;
        QVERIFY(o.result.outputsPassed());
        QVERIFY(o.result.tensors.size() > 10); // intermediates too, not only the outputs
        QVERIFY(o.compiled->model->liveNodeCount() < m_workbench.model().liveNodeCount()); // -O2 fused
        QVERIFY(o.kernelChecks.empty());
        QCOMPARE(o.result.labelB, std::string("cpu:fp32"));
    }

    void singleInputFilesFeedTheRuns()
    {
        // the test set's input as a .npy named as the input: the same comparison as from the folder
        const std::string dir = test::fixturesDir() + "/transformer_opset17/test_data_set_0";
        const ir::Model &model = m_workbench.model();
        const ir::Value &input = model.value(model.graph(model.mainGraph()).inputs.front());
        auto value = runtime::readValueFile(dir + "/input_0.pb", input.type());
        QVERIFY(value);
        QTemporaryDir tmp;
        const std::string npy = tmp.filePath(QString::fromStdString(input.name) + ".npy").toStdString();
        QVERIFY(runtime::writeNpyFile(value->tensor, npy));
        QCOMPARE(runtime::feedFileName(npy), input.name);
        QCOMPARE(runtime::feedFileName(dir + "/input_0.pb"), input.name);
        session::ComparisonRequest request;
        request.feeds.sources.push_back({input.name, npy, {}});
        auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        QVERIFY((*outcome)->result.outputsPassed());
        session::ComparisonRequest fromDir;
        fromDir.feeds.testDataDir = dir;
        auto expected = m_workbench.compare(fromDir);
        QVERIFY(expected.hasValue());
        QCOMPARE((*outcome)->result.tensors.size(), (*expected)->result.tensors.size());
        for (std::size_t i = 0; i < (*outcome)->result.tensors.size(); ++i)
            QCOMPARE((*outcome)->result.tensors[i].metrics.maxAbs, (*expected)->result.tensors[i].metrics.maxAbs);
        // a file for no input, or of the wrong element type, is refused by name
        request.feeds.sources = {{"no_such_input", npy, {}}};
        QVERIFY(refused(request, "no_such_input"));
        const std::string ints = tmp.filePath("ints.npy").toStdString();
        QVERIFY(runtime::writeNpyFile(runtime::Tensor::fromVector(onnx::TensorProto::INT64, {2}, std::vector<std::int64_t>{1, 2}), ints));
        request.feeds.sources = {{input.name, ints, {}}};
        QVERIFY(refused(request, "int64"));
    }

    void compiledFp32AgainstFp16()
    {
        // A the compiled executor at fp32, B at fp16, after one pipeline: every value aligns by name
        session::ComparisonRequest request;
        request.a = session::SideSpec::compiled("cpu", "fp32");
        request.b.precision = "fp16";
        request.feeds.testDataDir = test::fixturesDir() + "/transformer_opset17/test_data_set_0";
        auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        const auto &o = **outcome;
        QCOMPARE(o.result.labelA, std::string("cpu:fp32"));
        QCOMPARE(o.result.labelB, std::string("cpu:fp16"));
        QCOMPARE(o.result.tensors.size(), o.result.alignedValues);
        bool moved = false; // fp16 rounding shows, as drift: within what fp16 explains, never a bug
        for (const compare::ComparedTensor &t : o.result.tensors) {
            moved = moved || t.metrics.maxAbs > 0;
            QVERIFY2(t.verdict != compare::Verdict::Bug, (t.name + ": " + t.verdictWhy).c_str());
        }
        QVERIFY(moved);
        QCOMPARE(o.result.outputsVerdict(), compare::Verdict::Drift);
        // A compiled against another runtime's tensors: they must be there
        session::ComparisonRequest againstImport = request;
        againstImport.b = session::SideSpec::imported("/somewhere");
        QVERIFY(refused(againstImport, "/somewhere"));
        request.a = session::SideSpec::compiled("cuda", "fp32"); // either side may be a plugged executor
        QVERIFY(refused(request, "no CUDA executor"));
    }

    void pluggedExecutorsAreOfferedByName()
    {
        session::ComparisonRequest request;
        request.feeds.testDataDir = test::fixturesDir() + "/transformer_opset17/test_data_set_0";
        request.b.executor = "test-gpu";
        QVERIFY(refused(request, "has no test-gpu executor")); // a build without it says so
        test::registerStandInGpu("test-gpu"); // the CPU executor by another name, measuring like a GPU
        const auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome, outcome ? "" : outcome.error().format().c_str());
        QCOMPARE((*outcome)->result.labelB, std::string("test-gpu:fp32"));
        QVERIFY((*outcome)->result.outputsPassed());
        // profiled for the outcome, and the port report shows where B's time went
        QVERIFY((*outcome)->accelerator);
        const session::ComparisonOutcome &o = **outcome;
        const auto kernelChecks = compare::checksBySuspect(o.suspects, o.kernelChecks);
        session::ReportInputs inputs{m_workbench.model().sourcePath, &m_workbench.model(), o.modelB, &o.result, &o.suspects,
                                 &kernelChecks, o.firstDivergence, o.request.pipeline, "atol 1e-05, rtol 1e-05", nullptr,
                                 nullptr, nullptr, nullptr, &*o.accelerator};
        const report::PortReport report = session::buildPortReport(inputs);
        QVERIFY(report.gpu);
        QCOMPARE(report.gpu->device, std::string("Test GPU"));
        QCOMPARE(report.gpu->deviceMilliseconds, 2.25);
        QCOMPARE(report.gpu->hostMilliseconds, 0.5);
        QCOMPARE(report.gpu->transferBytes, std::uint64_t(1) << 20);
        QCOMPARE(report.gpu->kernels.size(), std::size_t(3)); // by time; the view took none
        QCOMPARE(report.gpu->kernels[0].node, std::string("conv"));
        QCOMPARE(report.gpu->kernels[0].bandwidthShare, 4e6 / 2e-3 / 1e12);
        QCOMPARE(report.gpu->kernels[0].flopsShare, 1.2e9 / 2e-3 / 1e14);
        QCOMPARE(report.gpu->kernels[1].node, std::string("sin"));
        QCOMPARE(report.fallbacks.at("Sin"), 1);
        QCOMPARE(report.flops, std::uint64_t(1200000000));
        QCOMPARE(report.arenaBytes, std::uint64_t(3) << 20);
        const std::string md = report::reportMarkdown(report), html = report::reportHtml(report), json = report::reportJson(report);
        QVERIFY(md.find("## GPU profile") != std::string::npos && md.find("| conv | Conv | cudnn:conv | fp32 | 2 | 0.2% | 0.6% |") != std::string::npos);
        QVERIFY2(html.find("<h2>GPU profile</h2>") != std::string::npos, html.c_str());
        const QJsonObject gpu = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object()["gpu"].toObject();
        QCOMPARE(gpu["device"].toString(), QString("Test GPU"));
        QCOMPARE(gpu["kernels"].toArray().size(), 3);
        QCOMPARE(gpu["kernels"].toArray()[0].toObject()["implementation"].toString(), QString("cudnn:conv"));
        QVERIFY((*outcome)->result.tensors.size() > 10); // every aligned tensor, through the observer
        QVERIFY(!m_workbench.bisectPrecision((*outcome)->request).hasValue()); // bisection is the CPU policy's
        request.b.precision = "bf16";
        QVERIFY(refused(request, "has no bf16"));
        // int8: calibrated here, the ranges handed to the plugged executor with its policy
        request.b.precision = "int8";
        request.lowering.calibration = "random:2";
        request.feeds.shapes["input"] = {1, 8, 32}; // the random batches' shape: the inputs'
        const auto int8 = m_workbench.compare(request);
        QVERIFY2(int8, int8 ? "" : int8.error().format().c_str());
        QCOMPARE((*int8)->result.labelB, std::string("test-gpu:int8"));
        request.b.executor = "cpu"; // the same executor under its own name: the same int8 numbers
        const auto cpuInt8 = m_workbench.compare(request);
        QVERIFY2(cpuInt8, cpuInt8 ? "" : cpuInt8.error().format().c_str());
        auto outputError = [](const session::ComparisonOutcome &o) {
            for (const auto &t : o.result.tensors)
                if (t.output)
                    return t.metrics.maxAbs;
            return -1.0;
        };
        QVERIFY(outputError(**int8) > 0); // quantized: the ranges reached it
        QCOMPARE(outputError(**int8), outputError(**cpuInt8));
    }

    void fp16UnderATightToleranceDriftsUnlessDriftIsRuledOut()
    {
        session::ComparisonRequest request;
        request.b.precision = "fp16";
        request.feeds.seed = 3;
        request.feeds.shapes["input"] = {1, 5, 32};
        request.tolerance = compare::Tolerance{1e-6, 1e-6};
        auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        {
            const auto &o = **outcome; // fp16's rounding is out of this tolerance, and explained: drift, no bug
            QVERIFY(!o.result.outputsPassed());
            QCOMPARE(o.result.outputsVerdict(), compare::Verdict::Drift);
            QVERIFY(!o.firstDivergence);
            for (const compare::KernelCheck &check : o.kernelChecks) // each suspect's kernel alone only rounds
                QVERIFY2(check.verdict != compare::KernelVerdict::KernelDiffers, check.explanation.c_str());
            QVERIFY(!o.kernelChecks.empty());
        }
        request.allowDrift = false; // the tolerance alone decides: the error starts somewhere
        outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        const auto &o = **outcome;
        QCOMPARE(o.result.outputsVerdict(), compare::Verdict::Bug);
        QVERIFY(o.firstDivergence);
        QVERIFY(!o.firstDivergence->metrics.passed);
        std::size_t outOfTolerance = 0;
        for (const compare::Suspect &s : o.suspects)
            outOfTolerance += s.tensor->failed();
        QVERIFY(outOfTolerance > 0);
        QCOMPARE(o.kernelChecks.size(), outOfTolerance);
    }

    void badRequestsAreErrors()
    {
        session::ComparisonRequest request;
        request.pipeline = "fuse-everything";
        auto outcome = m_workbench.compare(request);
        QVERIFY(!outcome.hasValue());
        QVERIFY(outcome.error().format().find("fuse-everything") != std::string::npos);
        request = {};
        request.b.precision = "int8";
        request.feeds.shapes["input"] = {1, 5, 32};
        request.lowering.calibration = "random:none";
        QVERIFY(refused(request, "random:none"));
        request = {};
        request.b = session::SideSpec::imported("/nonexistent/run");
        request.feeds.shapes["input"] = {1, 5, 32};
        QVERIFY(!m_workbench.compare(request).hasValue());
        request = {}; // the input has a symbolic dim: random inputs need its extent
        QVERIFY(refused(request, "input"));
    }

    void int8ComparesAfterCalibrating()
    {
        session::ComparisonRequest request;
        request.b.precision = "int8";
        request.lowering.calibration = "random:2:9";
        request.feeds.shapes["input"] = {1, 5, 32};
        request.kernelCheck = false;
        auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        const auto &o = **outcome;
        QCOMPARE(o.result.labelB, std::string("cpu:int8"));
        QVERIFY(o.result.tensors.size() > 10);
        // a cut-out part is held to what int8 explains in one step
        QCOMPARE(request.effectiveTolerance().atol, compare::PrecisionModel::of("int8").explainedError(1));
        double worst = 0; // int8 moves the numbers, but not past what its rounding explains on this model
        for (const compare::ComparedTensor *t : o.result.outputs()) {
            worst = std::max(worst, compare::normalizedError(t->metrics));
            QVERIFY2(t->verdict == compare::Verdict::Drift, t->verdictWhy.c_str());
        }
        QVERIFY2(worst > 0 && worst < 0.5, std::to_string(worst).c_str());
    }

    void importedRunIsComparedByName()
    {
        // another runtime's dump of every intermediate on the dock's seeded inputs, one of them off by 1%
        const ir::Model &model = m_workbench.model();
        const std::map<std::string, runtime::Shape> shapes{{"input", {1, 5, 32}}};
        const runtime::NamedValues feeds = *runtime::randomFeeds(model, runtime::kDefaultSeed, 0, shapes);
        struct Dump final : runtime::RunObserver {
            const ir::Model *model = nullptr;
            std::vector<std::pair<std::string, runtime::Tensor>> seen;
            void nodeFinished(const ir::Node &node, std::span<const runtime::RuntimeValue> outputs) override
            {
                for (std::size_t i = 0; i < outputs.size(); ++i)
                    if (node.graph == model->mainGraph() && node.outputs[i].valid() && outputs[i].isTensor())
                        seen.emplace_back(model->value(node.outputs[i]).name, outputs[i].tensor.clone());
            }
        } dump;
        dump.model = &model;
        runtime::RunOptions options;
        options.observer = &dump;
        QVERIFY(runtime::Interpreter(model).run(feeds, options));
        QVERIFY(dump.seen.size() > 20);
        std::size_t off = dump.seen.size() / 2; // the first float activation past the middle
        while (off < dump.seen.size() && (dump.seen[off].second.dataType() != onnx::TensorProto::FLOAT || dump.seen[off].second.size() < 8))
            ++off;
        QVERIFY(off < dump.seen.size());
        QTemporaryDir dir;
        for (std::size_t i = 0; i < dump.seen.size(); ++i) {
            runtime::Tensor t = dump.seen[i].second;
            if (i == off)
                for (std::int64_t e = 0; e < t.size(); ++e)
                    t.mutableData<float>()[e] = t.data<float>()[e] * 1.01f + 0.01f;
            QVERIFY(runtime::writeValueFile(runtime::RuntimeValue::ofTensor(t), dump.seen[i].first,
                                            dir.filePath(QString("t%1.pb").arg(i)).toStdString(), false));
        }
        QVERIFY(runtime::writeValueFile(runtime::RuntimeValue::ofTensor(dump.seen[0].second), "not_in_the_model",
                                        dir.filePath("stray.pb").toStdString(), false));
        session::ComparisonRequest request;
        request.b = session::SideSpec::imported(dir.path().toStdString());
        request.pipeline = "fuse-everything"; // unused: no side is compiled, an imported run is of the model as loaded
        request.feeds.shapes = shapes;
        auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        const auto &o = **outcome;
        QCOMPARE(o.unknownImported.size(), std::size_t(1)); // "not_in_the_model (stray.pb)"
        QVERIFY(o.unknownImported.front().starts_with("not_in_the_model"));
        QVERIFY(o.result.labelB.find(dir.path().toStdString()) != std::string::npos);
        QVERIFY(o.firstDivergence);
        QCOMPARE(o.firstDivergence->name, dump.seen[off].first);
        QVERIFY(!o.figures); // no compiled profile
        // B cannot run again: no repro, no bisection
        QVERIFY(!m_workbench.bisectPrecision(o.request).hasValue());
        const auto repro = m_workbench.extractRepro(o, o.modelB->value(o.firstDivergence->inB).producer);
        QVERIFY(!repro.hasValue());
        QVERIFY2(repro.error().format().find("imported") != std::string::npos, repro.error().format().c_str());
    }

    void externalCommandRunsTheModelFile()
    {
        // portolan's own CLI as "another runtime": it writes the outputs, which match the reference
        session::ComparisonRequest request;
        request.feeds.testDataDir = test::fixturesDir() + "/transformer_opset17/test_data_set_0";
        request.b = session::SideSpec::external(std::string(PORTOLAN_BINARY) + " run {model} --inputs {inputs} --output-dir {outputs}", 120);
        auto outcome = m_workbench.compare(request);
        QVERIFY2(outcome.hasValue(), outcome ? "" : outcome.error().format().c_str());
        const auto &o = **outcome;
        QVERIFY(o.result.labelB.starts_with("external:"));
        QVERIFY(o.result.outputsPassed());
        QVERIFY(!o.figures);
        QVERIFY(!m_workbench.bisectPrecision(o.request).hasValue());
        // a template without its placeholders is refused before anything runs
        request.b.command = "true";
        QVERIFY(refused(request, "{model}"));
    }
};

QTEST_MAIN(TestWorkbenchCompare)
#include "tst_WorkbenchCompare.moc"
