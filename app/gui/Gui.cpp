// Starts QApplication and the main window.
#include "gui/Gui.h"

#include "gui/MainWindow.h"

#include <QApplication>

namespace portolan::gui {

int runGui(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("Portolan");
    QApplication::setOrganizationName("Portolan");
    QApplication::setApplicationVersion(PORTOLAN_VERSION);

    MainWindow window;
    window.show();
    const QStringList args = QApplication::arguments();
    if (args.size() > 1)
        window.openFile(args.at(1));
    else
        window.openSample();
    return app.exec();
}

} // namespace portolan::gui
