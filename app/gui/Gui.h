// GUI entry point.
#pragma once

namespace portolan::gui {

/// Opens the workbench; argv[1], if given, is a model to open, else the bundled sample opens.
int runGui(int argc, char **argv);

} // namespace portolan::gui
