// Starts QApplication and the main window.
#include "gui/Gui.h"

#include "gui/MainWindow.h"

#include <QApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

namespace portolan::gui {

int runGui(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("Portolan");
    QApplication::setOrganizationName("Portolan");
    QApplication::setApplicationVersion(PORTOLAN_VERSION);
    QApplication::setDesktopFileName("io.github.portolan.Portolan");

    // English plural forms under everything; Portolan's own strings, then Qt's (dialog buttons), in
    // the user's language where we have it (a translator installed later is asked first).
    QTranslator pluralTranslator;
    if (pluralTranslator.load("portolan_en", ":/i18n"))
        QApplication::installTranslator(&pluralTranslator);
    QTranslator portolanTranslator;
    if (QLocale().language() != QLocale::English && portolanTranslator.load(QLocale(), "portolan", "_", ":/i18n"))
        QApplication::installTranslator(&portolanTranslator);
    QTranslator qtTranslator;
    if (qtTranslator.load(QLocale(), "qtbase", "_", QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QApplication::installTranslator(&qtTranslator);

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
