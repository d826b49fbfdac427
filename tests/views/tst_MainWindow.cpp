// The main window as a user meets it: the bundled sample opens, a corrupt file gives an error dialog.
#include "support/TestSupport.h"

#include "graph/GraphCanvas.h"
#include "gui/MainWindow.h"
#include "inspector/InspectorPanel.h"
#include "ir/ModelLoader.h"

#include <QDir>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTreeView>
#include <QtTest>

using namespace portolan;

class TestMainWindow : public QObject {
    Q_OBJECT

    static void saveScreenshot(QWidget &widget, const QString &name)
    {
        QDir().mkpath("screenshots");
        QVERIFY(widget.grab().save("screenshots/" + name + ".png"));
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
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openFile(QString::fromStdString(test::fixturesDir() + "/cnn_bn/model.onnx"));
        QVERIFY(loaded.wait(30000));
        auto *canvas = window.canvas();
        if (!canvas->scene())
            QVERIFY(QSignalSpy(canvas, &views::GraphCanvas::sceneReady).wait(30000));
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
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openFile(QString::fromStdString(test::fixturesDir() + "/transformer_opset17/model.onnx"));
        QVERIFY(loaded.wait(30000));
        if (!window.canvas()->scene())
            QVERIFY(QSignalSpy(window.canvas(), &views::GraphCanvas::sceneReady).wait(30000));
        const int hits = window.search("op:Softmax");
        QVERIFY(hits > 0);
        auto *inspector = window.findChild<views::InspectorPanel *>();
        QVERIFY(inspector->pageText().startsWith("Softmax"));
        window.nextHit();
        QVERIFY(inspector->pageText().startsWith("Softmax"));
        QCOMPARE(window.search("definitely-not-a-name"), 0);
    }

    void subgraphsOpenInTabs()
    {
        gui::MainWindow window;
        window.show();
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openFile(QString::fromStdString(test::fixturesDir() + "/control_flow/model.onnx"));
        QVERIFY(loaded.wait(30000));
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

    void corruptFileShowsErrorDialog()
    {
        QTemporaryDir dir;
        QFile file(dir.filePath("corrupt.onnx"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not an onnx model at all, just text");
        file.close();

        gui::MainWindow window;
        window.show();
        QString dialogText;
        // The error dialog is modal: read it and close it from a timer.
        QTimer closer;
        connect(&closer, &QTimer::timeout, [&] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
                dialogText = box->text();
                box->accept();
            }
        });
        closer.start(20);
        QSignalSpy loaded(&window, &gui::MainWindow::modelLoaded);
        window.openFile(file.fileName());
        QVERIFY(loaded.wait(30000));
        QCOMPARE(loaded.takeFirst().at(0).toBool(), false);
        QVERIFY2(dialogText.contains("cannot parse"), qPrintable(dialogText));
        QVERIFY(dialogText.contains("corrupt.onnx"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_MainWindow.moc"
