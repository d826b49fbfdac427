// portolan: no command opens the GUI, a command runs headless (no display needed).
#include "cli/Command.h"

#ifdef PORTOLAN_HAVE_GUI
#include "gui/Gui.h"
#endif
#ifdef PORTOLAN_HAVE_CUDA
#include "runtime/cuda/CudaRegistration.h"
#endif

#include <cstdio>

int main(int argc, char **argv)
{
#ifdef PORTOLAN_HAVE_CUDA
    portolan::runtime::cuda::registerCudaExecutor(); // the workbench offers it by name
#endif
    if (argc > 1 && portolan::cli::isCliInvocation(argv[1]))
        return portolan::cli::runCli(argc, argv);
#ifdef PORTOLAN_HAVE_GUI
    return portolan::gui::runGui(argc, argv);
#else
    std::fprintf(stderr, "portolan: built without the GUI (PORTOLAN_BUILD_GUI=OFF); see portolan --help\n");
    return portolan::cli::kExitUsage;
#endif
}
