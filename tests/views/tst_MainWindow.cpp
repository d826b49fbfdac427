// The main window as a user meets it: the bundled sample opens, a corrupt file gives an error dialog.
#include "support/StandInGpu.h"
#include "support/CliSupport.h"
#include "support/TestSupport.h"

#include "views/graph/GraphCanvas.h"
#include "views/graph/ScopeBreadcrumbs.h"
#include "gui/MainWindow.h"
#include "views/inspector/InspectorPanel.h"
#include "views/inspector/TensorValuesModel.h"
#include "views/pipeline/PipelinePanel.h"
#include "views/compare/ComparePanel.h"
#include "views/compare/ComparisonTableModel.h"
#include "views/compare/GpuProfileView.h"
#include "views/diagnose/FindingsPanel.h"
#include <QAbstractItemModelTester>
#include "ir/ModelLoader.h"
#include "passes/CompileReport.h"
#include "session/ComparisonJson.h"
#include "session/SessionFile.h"

#include <QDir>
#include <QProgressBar>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

using namespace portolan;

namespace {

/// Reads and closes every modal message box as it appears (they block until answered).
struct DialogReader {
    QStringList texts;
    QTimer timer;
    DialogReader()
    {
        QObject::connect(&timer, &QTimer::timeout, [this] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
                texts << box->text();
                box->accept();
            }
        });
        timer.start(20);
    }
    QString all() const { return texts.join('\n'); }
};

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

    static void saveScreenshot(QWidget &widget, const QString &name)
    {
        QDir().mkpath("screenshots");
        QVERIFY(widget.grab().save("screenshots/" + name + ".png"));
    }

    // Opens a fixture model and waits until it is loaded and its graph laid out.
    static bool openFixture(gui::MainWindow &window, const char *fixture)
    {
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openFile(QString::fromStdString(test::fixturesDir() + "/" + fixture + "/model.onnx"));
        if (!loaded.wait(30000) || !loaded.front().at(0).toBool())
            return false;
        return window.canvas()->scene() || QSignalSpy(window.canvas(), &views::GraphCanvas::sceneReady).wait(30000);
    }

    /// Opens transformer_opset17 in `window`, sets the compare dock's B (as CompareForm::executorB
    /// spells it) and its first test set, and runs the comparison; the panel once it finished
    /// without an error, else nullptr.
    static views::ComparePanel *compareTransformerAgainst(gui::MainWindow &window, const std::string &executorB)
    {
        window.resize(1600, 1000);
        window.show();
        if (!openFixture(window, "transformer_opset17"))
            return nullptr;
        auto *panel = window.comparePanel();
        panel->setInputsDir(QString::fromStdString(test::fixturesDir() + "/transformer_opset17/test_data_set_0"));
        session::CompareForm form = panel->form();
        form.executorB = executorB;
        panel->setForm(form);
        if (panel->form().executorB != executorB) // the side round-trips through the form
            return nullptr;
        QSignalSpy finished(panel, &views::ComparePanel::finished);
        panel->run();
        if (!finished.wait(300000) || !finished.takeFirst().at(0).toString().isEmpty())
            return nullptr;
        return panel;
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); } // recent files and dock state stay out of the user's settings

    void opensBundledSample()
    {
        gui::MainWindow window;
        window.show();
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openSample();
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.takeFirst().at(0).toBool(), true);

        auto *tree = window.findChild<QTreeView *>();
        QVERIFY(tree && tree->model()->rowCount() > 0);
        auto *summary = window.findChild<QPlainTextEdit *>();
        QVERIFY(summary->toPlainText().contains("float[1,seq,32]"));
        QVERIFY(window.windowTitle().contains("mini_encoder"));
        QVERIFY(window.statusBar()->findChild<QLabel *>()->text().contains("nodes"));
        if (!window.canvas()->scene())
            QVERIFY(QSignalSpy(window.canvas(), &views::GraphCanvas::sceneReady).wait(30000));
        saveScreenshot(window, "main_window_sample");
    }

    void clickingANodeShowsItInTheInspector()
    {
        gui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(openFixture(window, "cnn_bn"));
        auto *canvas = window.canvas();
        // the first Conv, brought into view, then clicked where it is on screen
        const ir::Model *model = nullptr;
        ir::NodeId conv;
        for (const auto &box : canvas->scene()->boxes())
            if (box.kind == layout::BoxKind::Node && !conv.valid()) {
                conv = box.node;
                break;
            }
        QVERIFY(conv.valid());
        (void)model;
        canvas->revealNode(conv);
        const auto center = canvas->scene()->boxes()[*canvas->scene()->boxOf(conv)].rect.center();
        const QPointF at = canvas->toWidget(QPointF(center.x, center.y));
        QVERIFY(canvas->rect().contains(at.toPoint()));
        QSignalSpy selected(canvas, &views::GraphCanvas::nodeSelected);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, at.toPoint());
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.takeFirst().at(0).value<ir::NodeId>(), conv);
        auto *inspector = window.findChild<views::InspectorPanel *>();
        QVERIFY2(inspector->pageText().contains("Inputs"), qPrintable(inspector->pageText()));
        QVERIFY(inspector->pageText().contains("Operator documentation"));
        saveScreenshot(window, "main_window_inspector");
    }

    void searchWalksThroughHits()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "transformer_opset17"));
        const int hits = window.search("op:Softmax");
        QVERIFY(hits > 0);
        auto *inspector = window.findChild<views::InspectorPanel *>();
        QVERIFY(inspector->pageText().startsWith("Softmax"));
        window.nextHit();
        QVERIFY(inspector->pageText().startsWith("Softmax"));
        QCOMPARE(window.search("definitely-not-a-name"), 0);
    }

    void inspectorComputesAnActivationsValues()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "transformer_opset17"));
        window.comparePanel()->setInputsDir(QString::fromStdString(test::fixturesDir() + "/transformer_opset17/test_data_set_0"));
        const ir::Model &model = *window.canvas()->model();
        auto softmax = model.lookup(model.mainGraph(), "/layers.0/self_attn/Softmax_output_0");
        QVERIFY(softmax);
        auto *inspector = window.findChild<views::InspectorPanel *>();
        inspector->showValue(*softmax);
        QVERIFY(inspector->pageText().contains("Compute them with the reference interpreter"));
        QCOMPARE(inspector->histogramBins(), 0);
        QSignalSpy computed(&window, &gui::MainWindow::valuesComputed);
        emit inspector->valuesRequested(*softmax); // what the page's link does
        QVERIFY(computed.wait(30000));
        QVERIFY2(inspector->pageText().contains("From the reference interpreter"), qPrintable(inspector->pageText()));
        QVERIFY(inspector->histogramBins() > 0);
        QVERIFY(inspector->valuesModel()->rowCount() > 0);
        const QString text = inspector->pageText(); // a softmax's values lie in [0, 1]
        QVERIFY2(text.contains("NaN / Inf") && text.contains("0 / 0"), qPrintable(text));
        const auto *values = inspector->valuesModel();
        double rowSum = 0;
        for (int c = 0; c < values->columnCount(); ++c) {
            const double v = values->data(values->index(0, c)).toDouble();
            QVERIFY(v >= 0 && v <= 1);
            rowSum += v;
        }
        QVERIFY2(std::abs(rowSum - 1) < 1e-4, qPrintable(QString::number(rowSum))); // a softmax row
        saveScreenshot(window, "main_window_computed_values");
        inspector->showNode(model.value(*softmax).producer); // away and back: the values stay
        inspector->showValue(*softmax);
        QVERIFY(inspector->histogramBins() > 0);
    }

    void breadcrumbsLeadBackUpTheScopes()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "transformer_opset17"));
        QVERIFY(window.search("op:Softmax") > 0); // /layers.0/self_attn/Softmax
        auto *crumbs = window.findChild<views::ScopeBreadcrumbs *>();
        QVERIFY(crumbs);
        QCOMPARE(crumbs->crumbs(), (QStringList{"main", "layers.0", "self_attn", "/layers.0/self_attn/Softmax"}));
        QVERIFY(crumbs->height() > 10);
        QTest::qWait(50); // the crumbs' layout settles
        saveScreenshot(window, "main_window_breadcrumbs");
        // a crumb opens its group and frames it; the crumbs end there
        const ir::NameScopeTree *tree = window.canvas()->scopes();
        QVERIFY(tree);
        const std::size_t layer = tree->root().children.front();
        QCOMPARE(QString::fromStdString(tree->group(layer).name), QString("layers.0"));
        emit crumbs->groupActivated(layer);
        QCOMPARE(window.canvas()->selectedGroup(), std::optional<std::size_t>(layer));
        QVERIFY(window.canvas()->expandedGroups().contains(layer));
        QCOMPARE(crumbs->crumbs(), (QStringList{"main", "layers.0"}));
        auto *inspector = window.findChild<views::InspectorPanel *>();
        QVERIFY2(inspector->pageText().contains("layers.0"), qPrintable(inspector->pageText()));
    }

    void subgraphsOpenInTabs()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "control_flow"));
        auto loadedModel = ir::loadModelFile(test::fixturesDir() + "/control_flow/model.onnx");
        QVERIFY(loadedModel.hasValue());
        const ir::Model &model = *loadedModel->model;
        std::optional<ir::NodeId> owner;
        for (auto n : model.graph(model.mainGraph()).nodes)
            for (const auto &a : model.node(n).attributes)
                if (!a.subgraphs.empty() && !owner)
                    owner = n;
        QVERIFY(owner);
        std::size_t subgraphs = 0;
        for (const auto &a : model.node(*owner).attributes)
            subgraphs += a.subgraphs.size();
        window.openSubgraphs(*owner); // same ids in the window's copy: loading is deterministic
        QCOMPARE(window.tabCount(), 1 + static_cast<int>(subgraphs));
        auto *canvas = window.currentCanvas();
        QVERIFY(canvas != window.canvas());
        QVERIFY(!model.graph(canvas->graph()).isMain());
        if (!canvas->scene())
            QVERIFY(QSignalSpy(canvas, &views::GraphCanvas::sceneReady).wait(30000));
        for (auto n : model.graph(canvas->graph()).nodes)
            QVERIFY(canvas->scene()->boxOf(n));
        window.openSubgraphs(*owner); // again: the open tabs are reused
        QCOMPARE(window.tabCount(), 1 + static_cast<int>(subgraphs));
        saveScreenshot(window, "main_window_subgraph");
    }

    void pipelineStepsShowEachPassDiff()
    {
        gui::MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(openFixture(window, "transformer_opset17"));
        auto *pipeline = window.pipeline();

        QSignalSpy finished(pipeline, &views::PipelinePanel::finished);
        DialogReader dialogs;
        pipeline->setPipelineText("infer-shapes,no-such-pass");
        pipeline->run();
        QCOMPARE(finished.count(), 1);
        QVERIFY2(finished.takeFirst().at(0).toString().contains("no-such-pass"), "the error names the unknown pass");
        QVERIFY2(dialogs.all().contains("no-such-pass"), "and says so in a dialog");

        pipeline->setPipelineText("-O2");
        pipeline->step(); // runs the pipeline once, shows its first pass
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.takeFirst().at(0).toString(), QString());
        const auto expected = session::Workbench::pipelineFromText("-O2");
        QVERIFY(expected.hasValue());
        QCOMPARE(pipeline->stepCount(), static_cast<int>(expected->passes.size()));
        QCOMPARE(pipeline->currentStep(), 0);

        // the first pass that rewrote something: its diff marks exactly its removed and created nodes
        int fused = -1;
        for (int k = 0; k < pipeline->stepCount() && fused < 0; ++k)
            for (const auto &r : pipeline->result()->passes[static_cast<std::size_t>(k)].rewrites)
                if (!r.removedNodes.empty() && !r.createdNodes.empty())
                    fused = k;
        QVERIFY(fused >= 0);
        pipeline->showStep(fused);
        std::set<std::uint32_t> removed, created;
        for (const auto &r : pipeline->result()->passes[static_cast<std::size_t>(fused)].rewrites) {
            for (auto n : r.removedNodes)
                removed.insert(n.index);
            for (auto n : r.createdNodes)
                created.insert(n.index);
        }
        // each rewrite row names the layer it touched (the exporter's scoped names), as optimize --json does
        const auto *details = pipeline->findChild<QTreeWidget *>("rewriteDetails");
        QVERIFY(details && details->topLevelItemCount() > 0);
        const QTreeWidgetItem *rewriteRows = details->topLevelItem(0);
        QVERIFY(rewriteRows->childCount() > 0);
        const auto &first = pipeline->result()->passes[static_cast<std::size_t>(fused)].rewrites.front();
        const std::string scope = passes::rewriteScope(*pipeline->modelBefore(fused), first);
        QVERIFY2(!scope.empty(), first.pattern.c_str());
        QCOMPARE(rewriteRows->child(0)->text(0), QString::fromStdString(first.pattern + "  " + scope));
        QCOMPARE(window.diffBefore()->markCount(), removed.size());
        QCOMPARE(window.diffAfter()->markCount(), created.size());
        QCOMPARE(window.currentCanvas(), window.canvas()); // the diff tab holds no single canvas
        // both sides open on the first rewrite (which may mean opening its group: a second layout)
        QTRY_VERIFY_WITH_TIMEOUT(window.diffAfter()->scene() && !window.diffAfter()->isLayingOut() &&
                                     window.diffBefore()->scene() && !window.diffBefore()->isLayingOut(), 30000);
        saveScreenshot(window, "main_window_pass_diff");

        pipeline->stepBack();
        QCOMPARE(pipeline->currentStep(), fused - 1);
        pipeline->reset();
        QCOMPARE(pipeline->currentStep(), -1);
        QCOMPARE(window.diffBefore()->markCount(), std::size_t(0));
        pipeline->run(); // same text: no second compile, straight to the last pass
        QCOMPARE(pipeline->currentStep(), pipeline->stepCount() - 1);
        QVERIFY(pipeline->modelAfter(pipeline->currentStep())->liveNodeCount() <
                pipeline->modelBefore(0)->liveNodeCount());

        // Edit → Undo walks back through the steps shown (last, input, fused − 1, fused, 0), Redo forward
        QAction *undo = nullptr, *redo = nullptr;
        for (QAction *a : window.findChildren<QAction *>()) {
            if (a->shortcut() == QKeySequence(QKeySequence::Undo))
                undo = a;
            if (a->shortcut() == QKeySequence(QKeySequence::Redo))
                redo = a;
        }
        QVERIFY(undo && redo);
        QVERIFY(undo->isEnabled());
        undo->trigger();
        QCOMPARE(pipeline->currentStep(), -1);
        undo->trigger();
        QCOMPARE(pipeline->currentStep(), fused - 1);
        undo->trigger();
        QCOMPARE(pipeline->currentStep(), fused);
        redo->trigger();
        QCOMPARE(pipeline->currentStep(), fused - 1);
        QVERIFY(fused - 1 != pipeline->stepCount() - 1);
        pipeline->showStep(pipeline->stepCount() - 1); // a new step after an undo drops the redo branch
        QVERIFY(!redo->isEnabled());
        undo->trigger();
        QCOMPARE(pipeline->currentStep(), fused - 1);
    }

    void onnxRuntimeIsASideOfTheDock()
    {
        gui::MainWindow window;
        auto *panel = compareTransformerAgainst(window, "ort:basic"); // the first use installs onnxruntime-node
        QVERIFY(panel);
        QCOMPARE(panel->outcome()->result.labelB, std::string("ort:basic"));
        QVERIFY(panel->outcome()->result.tensors.size() > 10); // per layer, not the outputs alone
        QVERIFY2(panel->summary().contains("0 bug"), qPrintable(panel->summary()));
    }

    void gpuComparisonSaysWhereTheTimeWent()
    {
        // the CUDA side, with a stand-in registered as "cuda" before the window offers its sides
        test::registerStandInGpu("cuda");
        gui::MainWindow window;
        auto *panel = compareTransformerAgainst(window, "cuda");
        QVERIFY(panel);
        QVERIFY(panel->outcome()->accelerator);
        const QString summary = panel->summary();
        QVERIFY2(summary.contains("On Test GPU: kernels 2.250 ms; 1 node") && summary.contains("on the CPU, 0.500 ms."), qPrintable(summary));
        QVERIFY2(summary.contains("Slowest kernel: conv (Conv, cudnn:conv) 2.000 ms, 0% of the copy bandwidth, 1% of the MatMul rate."),
                 qPrintable(summary));
        // the GPU profile tab: every node by time, the CPU fallback among them with its reason
        auto *profile = panel->findChild<views::GpuProfileView *>();
        QVERIFY(profile);
        auto *tabs = panel->findChild<QTabWidget *>();
        QVERIFY(tabs && tabs->isTabVisible(tabs->indexOf(profile)));
        QCOMPARE(profile->topLevelItemCount(), 4);
        QCOMPARE(profile->topLevelItem(0)->text(0), QString("conv"));
        QCOMPARE(profile->topLevelItem(1)->text(2), QString("cpu-fallback"));
        QCOMPARE(profile->topLevelItem(1)->text(9), QString("no CUDA kernel for Sin"));
        QCOMPARE(profile->topLevelItem(0)->text(6), QString("0%")); // 2 GB/s of 1 TB/s
        tabs->setCurrentWidget(profile);
        if (auto *dock = qobject_cast<QDockWidget *>(panel->parentWidget()))
            dock->raise();
        saveScreenshot(window, "main_window_compare_gpu");
    }

    void comparisonPaintsItsHeatOnTheGraph()
    {
        gui::MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(openFixture(window, "transformer_opset17"));
        auto *panel = window.comparePanel();
        QAbstractItemModelTester tester(const_cast<views::ComparisonTableModel *>(panel->table()),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel->setInputsDir(QString::fromStdString(test::fixturesDir() + "/transformer_opset17/test_data_set_0"));
        panel->setPrecision("fp16");
        panel->setTolerance(1e-6, 1e-6); // fp16 cannot meet this, and with no drift allowed the comparison
        panel->setAllowDrift(false);      // must find where it breaks
        QSignalSpy finished(panel, &views::ComparePanel::finished);
        panel->run();
        QVERIFY(panel->isRunning());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.takeFirst().at(0).toString(), QString());
        const auto *outcome = panel->outcome();
        QVERIFY(outcome);
        QVERIFY(!outcome->result.outputsPassed());
        QVERIFY(outcome->firstDivergence);
        QCOMPARE(panel->table()->rowCount(), static_cast<int>(outcome->result.tensors.size()));

        // the heat: every compared node of the open model has a colour on the canvas
        auto *canvas = window.canvas();
        QVERIFY(canvas->hasHeat());
        const auto heat = panel->heat();
        QVERIFY(!heat.empty());
        if (canvas->isLayingOut())
            QVERIFY(QSignalSpy(canvas, &views::GraphCanvas::sceneReady).wait(30000));
        std::size_t coloured = 0;
        for (std::size_t b = 0; b < canvas->scene()->boxes().size(); ++b)
            coloured += canvas->heatColorOfBox(b).isValid();
        QVERIFY(coloured > 0);
        // the worst node is red-most: its hue is the lowest of all coloured boxes
        const auto worst = std::max_element(heat.begin(), heat.end(), [](auto &x, auto &y) { return x.second < y.second; });
        const auto worstBox = canvas->scene()->boxOf(ir::NodeId(worst->first));
        QVERIFY(worstBox);
        const float worstHue = canvas->heatColorOfBox(*worstBox).hsvHueF();
        for (std::size_t b = 0; b < canvas->scene()->boxes().size(); ++b)
            if (const QColor c = canvas->heatColorOfBox(b); c.isValid())
                QVERIFY(c.hsvHueF() >= worstHue - 1e-6f);
        if (auto *dock = qobject_cast<QDockWidget *>(panel->parentWidget()))
            dock->raise(); // the results beside the heat
        saveScreenshot(window, "main_window_compare_heat");

        // File → Export Port Report: the comparison with the chosen target's check, in each format
        QSignalSpy checked(window.findingsPanel(), &views::FindingsPanel::checked);
        window.findingsPanel()->setTarget("mobile");
        QVERIFY(checked.wait(60000));
        QTemporaryDir tmp;
        QCOMPARE(window.writePortReport(tmp.filePath("report.json")), QString());
        QFile json(tmp.filePath("report.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(report["run_b"].toString(), QString("cpu:fp16"));
        QVERIFY(!report["passed"].toBool());
        QCOMPARE(report["target"].toObject()["id"].toString(), QString("mobile"));
        QCOMPARE(report["findings"].toArray()[0].toObject()["code"].toString(), QString("int64-shape-chain"));
        QVERIFY(report["performance"].toObject()["arena_bytes"].toDouble() > 0);
        QCOMPARE(window.writePortReport(tmp.filePath("report.html")), QString());
        QFile html(tmp.filePath("report.html"));
        QVERIFY(html.open(QIODevice::ReadOnly));
        QVERIFY(html.readAll().contains("aria-label=\"error on the graph\""));
        // as File → Export Port Report writes it: on a worker thread, the window usable meanwhile
        QSignalSpy reported(&window, &gui::MainWindow::portReportFinished);
        window.startPortReport(tmp.filePath("report.pdf"));
        QVERIFY(window.isWritingReport());
        QVERIFY(reported.wait(60000));
        QVERIFY(!window.isWritingReport());
        QCOMPARE(reported.front().at(1).toString(), QString());
        QFile pdf(tmp.filePath("report.pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly) && pdf.read(5) == "%PDF-");

        // Extract Repro: around the first divergence, a folder conform can run, whose README says what fails
        QCOMPARE(panel->reproNode(), QString::fromStdString(outcome->firstDivergence->node));
        QSignalSpy repro(panel, &views::ComparePanel::reproFinished);
        const QString dir = tmp.filePath("repro");
        panel->extractRepro(dir, false);
        QVERIFY(panel->isExtracting());
        QVERIFY(repro.wait(120000));
        QVERIFY2(repro.front().at(1).toString().isEmpty(), qPrintable(repro.front().at(1).toString()));
        QVERIFY2(repro.front().at(0).toString().contains("OUT OF TOLERANCE"), qPrintable(repro.front().at(0).toString()));
        QVERIFY(QFile::exists(dir + "/model.onnx") && QFile::exists(dir + "/test_data_set_0/input_0.pb"));
        QFile readme(dir + "/README.md");
        QVERIFY(readme.open(QIODevice::ReadOnly));
        QVERIFY(readme.readAll().contains("Cut out by the Portolan workbench's compare dock"));
        // a folder holding files is not written into unless asked
        panel->extractRepro(dir, false);
        QVERIFY(repro.wait(120000));
        QVERIFY(!repro.back().at(1).toString().isEmpty());
    }

    void targetOverlayFramesWhatTheTargetCannotRun()
    {
        gui::MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(openFixture(window, "transformer_opset17"));
        views::FindingsPanel *panel = window.findingsPanel();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isChecking(), 30000);
        // without a target: the export pitfall and the dynamic dim are listed, nothing is framed
        const QTreeWidget *tree = panel->tree();
        QStringList sections;
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
            sections << tree->topLevelItem(i)->text(0);
        QVERIFY2(sections.join('|').contains("Dynamic dims (1 origin") && sections.join('|').contains("Findings (1)"),
                 qPrintable(sections.join('|')));
        QVERIFY(!window.canvas()->hasTargetOverlay());
        QVERIFY(window.writePortReport("unwritten.json").contains("Run a comparison first")); // nothing to report yet
        QVERIFY(!QFile::exists("unwritten.json"));

        // the mobile profile needs static shapes: every node the sequence dim reaches is framed
        QSignalSpy checked(panel, &views::FindingsPanel::checked);
        panel->setTarget("mobile");
        QVERIFY(checked.wait(60000));
        const auto unsupported = panel->unsupportedNodes();
        QVERIFY(!unsupported.empty());
        QVERIFY(window.canvas()->hasTargetOverlay());
        auto *canvas = window.canvas();
        std::size_t framed = 0;
        for (std::size_t b = 0; b < canvas->scene()->boxes().size(); ++b)
            framed += canvas->boxUnsupported(b);
        QVERIFY(framed > 0);
        const QTreeWidgetItem *target = tree->topLevelItem(0);
        QVERIFY2(target->text(0).contains(panel->targetName()), qPrintable(target->text(0)));
        QVERIFY(target->childCount() > 0);
        // a group names its best fix; its rows name a node, and picking one shows it on the canvas
        const QTreeWidgetItem *group = nullptr;
        for (int i = 0; i < target->childCount() && !group; ++i)
            if (target->child(i)->childCount() > 0)
                group = target->child(i);
        QVERIFY(group);
        QVERIFY2(group->text(2).contains("freeze-shapes"), qPrintable(group->text(2)));
        QTreeWidgetItem *nodeRow = group->child(0);
        const ir::NodeId node(nodeRow->data(0, Qt::UserRole).toUInt() - 1);
        QVERIFY(unsupported.count(node.index));
        QSignalSpy activated(panel, &views::FindingsPanel::nodeActivated);
        emit const_cast<QTreeWidget *>(tree)->itemClicked(nodeRow, 0);
        QCOMPARE(activated.size(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(canvas->selectedNode() == node, 30000);
        if (auto *dock = qobject_cast<QDockWidget *>(panel->parentWidget()))
            dock->raise();
        saveScreenshot(window, "main_window_target_overlay");

        // back to no target: the frames go
        panel->setTarget("");
        QVERIFY(checked.wait(30000));
        QVERIFY(!window.canvas()->hasTargetOverlay());
    }

    void bisectionFindsTheNodesToKeepAtFp32()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "transformer_opset17"));
        auto *panel = window.comparePanel();
        panel->setInputsDir(QString::fromStdString(test::fixturesDir() + "/transformer_opset17/test_data_set_0"));
        panel->setPrecision("fp16");
        panel->setTolerance(1e-4, 1e-4); // fp16 misses it; some nodes kept at fp32 meet it
        QSignalSpy finished(panel, &views::ComparePanel::finished);
        panel->run();
        QVERIFY(finished.wait(120000));
        QVERIFY(!panel->outcome()->result.outputsPassed());
        QSignalSpy bisected(panel, &views::ComparePanel::bisectionFinished);
        panel->bisectPrecision();
        QVERIFY(panel->isBisecting());
        QVERIFY(bisected.wait(120000));
        const QString summary = bisected.front().at(0).toString(), error = bisected.front().at(1).toString();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(summary.contains("--keep-fp32 'node:"), qPrintable(summary));
        qInfo("%s", qPrintable(summary));
        QVERIFY(!panel->isBisecting());
    }

    // The dock and `portolan compare` are one Workbench call: seed S in the dock and --seed S on the
    // command line feed the same inputs and give the same comparison, metric for metric.
    void compareDockAndCliGiveTheSameComparison()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "cnn_bn"));
        auto *panel = window.comparePanel();
        session::CompareForm form;
        form.sideA = "reference";
        form.pipeline = "-O2";
        form.precision = "fp16";
        form.seed = 7;
        panel->setForm(form);
        QSignalSpy finished(panel, &views::ComparePanel::finished);
        panel->run();
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.front().at(0).toString(), QString());
        QVERIFY(panel->outcome());

        const auto cli = test::runPortolan({"compare", QString::fromStdString(test::fixturesDir() + "/cnn_bn/model.onnx"), "--a",
                                            "reference", "--b", "cpu:fp16", "-O2", "--seed", "7", "--json"});
        QVERIFY2(cli.exitCode == 0 || cli.exitCode == 1, cli.err.constData());
        const QJsonObject fromCli = test::comparisonWithoutTimes(cli.out);
        const QJsonObject fromDock = test::comparisonWithoutTimes(QByteArray::fromStdString(session::comparisonJson(*panel->outcome())));
        QVERIFY(fromCli["tensors"].toArray().size() > 3);
        QCOMPARE(fromDock["b"].toObject()["run"].toString(), QString("cpu:fp16"));
        QCOMPARE(fromDock, fromCli);
    }

    void comparisonCanBeCancelled()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "transformer_opset17"));
        auto *panel = window.comparePanel();
        panel->setInputsDir(QString::fromStdString(test::fixturesDir() + "/transformer_opset17/test_data_set_0"));
        QSignalSpy finished(panel, &views::ComparePanel::finished);
        panel->run();
        panel->cancel(); // before the worker reaches the first node: the runs stop there
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.front().at(0).toString(), QString()); // asked for: no error dialog
        QVERIFY(!panel->isRunning());
        QVERIFY(!panel->outcome());
        // and the next run goes through, its progress in the status bar while it runs
        panel->run();
        QTRY_VERIFY_WITH_TIMEOUT(window.statusBar()->findChild<QProgressBar *>()->isVisible() || !panel->isRunning(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 120000);
        QVERIFY(panel->outcome());
        QTRY_VERIFY_WITH_TIMEOUT(!window.statusBar()->findChild<QProgressBar *>()->isVisible(), 5000);
        QCOMPARE(panel->progressPermille(), -1);
    }

    void sessionReopensWhereItWasLeft()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath("work.portolan");
        {
            gui::MainWindow window;
            window.show();
            QVERIFY(window.saveSession(path).contains("Open a model first"));
            QVERIFY(openFixture(window, "transformer_opset17"));
            window.pipeline()->setPipelineText("infer-shapes,fuse-layer-norm");
            window.comparePanel()->setPrecision("bf16");
            window.comparePanel()->setTolerance(1e-3, 1e-2);
            QSignalSpy checked(window.findingsPanel(), &views::FindingsPanel::checked);
            window.findingsPanel()->setTarget("tensorrt-10");
            QVERIFY(checked.wait(60000));
            QCOMPARE(window.saveSession(path), QString());
        }
        gui::MainWindow window;
        window.show();
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openFile(path); // a .portolan opens as a session, as from the command line or a drop
        QVERIFY(loaded.wait(30000));
        QVERIFY(loaded.front().at(0).toBool());
        QVERIFY(window.windowTitle().contains("model.onnx"));
        QCOMPARE(window.pipeline()->pipelineText(), QString("infer-shapes,fuse-layer-norm"));
        const session::CompareForm form = window.comparePanel()->form();
        QCOMPARE(form.precision, std::string("bf16"));
        QCOMPARE(form.atol, std::string("0.001"));
        QCOMPARE(form.rtol, std::string("0.01"));
        QCOMPARE(window.findingsPanel()->targetId(), QString("tensorrt-10"));
        QTRY_VERIFY_WITH_TIMEOUT(window.findingsPanel()->check() != nullptr, 60000);
        QCOMPARE(window.findingsPanel()->check()->targetId, std::string("tensorrt-10"));

        // a broken session: an error dialog naming it, and the open model stays
        QFile broken(tmp.filePath("broken.portolan"));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("{\"format\": \"portolan-session\", \"format_version\": 1, \"model\": 5}");
        broken.close();
        DialogReader dialogs;
        window.openFile(broken.fileName());
        QVERIFY2(dialogs.all().contains("broken.portolan") && dialogs.all().contains("wrong type"), qPrintable(dialogs.all()));
        QVERIFY(window.windowTitle().contains("model.onnx"));
    }

    void corruptFileShowsErrorDialog()
    {
        QTemporaryDir dir;
        QFile file(dir.filePath("corrupt.onnx"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not an onnx model at all, just text");
        file.close();

        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "cnn_bn"));
        const QString opened = window.statusText();
        DialogReader dialogs;
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openFile(file.fileName());
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.takeFirst().at(0).toBool(), false);
        QVERIFY2(dialogs.all().contains("cannot parse"), qPrintable(dialogs.all()));
        QVERIFY(dialogs.all().contains("corrupt.onnx"));
        QCOMPARE(window.statusText(), opened); // the open model's summary again, not "Loading…"

        // a window with no model says so
        gui::MainWindow empty;
        empty.show();
        QSignalSpy failed(&empty, &gui::MainWindow::modelLoaded);
        empty.openFile(file.fileName());
        QVERIFY(failed.wait(30000));
        QVERIFY2(!empty.statusText().contains("Loading"), qPrintable(empty.statusText()));
    }

    // Exporters name every file model.onnx: Open Recent tells them apart by their folders.
    void recentFilesShowTheirFolders()
    {
        gui::MainWindow window;
        window.show();
        QVERIFY(openFixture(window, "cnn_bn"));
        QVERIFY(openFixture(window, "transformer_opset17"));
        QMenu *recent = nullptr;
        for (QMenu *menu : window.findChildren<QMenu *>())
            if (menu->title() == "Open &Recent")
                recent = menu;
        QVERIFY(recent);
        QStringList labels;
        for (const QAction *action : recent->actions())
            labels << action->text();
        QVERIFY2(labels.size() >= 2, qPrintable(labels.join('|')));
        QVERIFY2(labels[0].startsWith("model.onnx — ") && labels[0].contains("transformer_opset17"), qPrintable(labels.join('|')));
        QVERIFY2(labels[1].startsWith("model.onnx — ") && labels[1].contains("cnn_bn"), qPrintable(labels.join('|')));
    }

    void malformedModelOpensAndItsPipelineIsRefusedInADialog()
    {
        // a Conv whose kernel_shape is a STRING: shown with its finding, refused by the pipeline
        gui::MainWindow window;
        window.show();
        DialogReader dialogs;
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openFile(PORTOLAN_SOURCE_DIR "/tests/data/hostile/conv_kernel_shape_string.onnx");
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.takeFirst().at(0).toBool(), true);
        QSignalSpy finished(window.pipeline(), &views::PipelinePanel::finished);
        window.pipeline()->setPipelineText("-O2");
        window.pipeline()->run();
        QVERIFY(!finished.isEmpty() || finished.wait(30000));
        QTRY_VERIFY_WITH_TIMEOUT(!dialogs.texts.isEmpty(), 5000);
        const QString said = dialogs.all();
        QVERIFY2(said.contains("conv_kernel_shape_string.onnx") && said.contains("'conv'") && said.contains("kernel_shape"),
                 qPrintable(said));
        // the window is still usable: another model opens
        QVERIFY(openFixture(window, "cnn_bn"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_MainWindow.moc"
