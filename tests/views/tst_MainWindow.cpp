// The main window as a user meets it: the bundled sample opens, a corrupt file gives an error dialog.
#include "support/TestSupport.h"

#include "gui/MainWindow.h"

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
        saveScreenshot(window, "main_window_sample");
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
