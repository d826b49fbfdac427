// Graphviz dot behind LayoutEngine (built only when libgvc is found).
#pragma once

#include "layout/LayoutEngine.h"

namespace portolan::layout {

/// dot through libgvc. Graphviz is not thread-safe: every call is serialized on one process-wide
/// lock, so callers may use it from any worker thread (never the GUI thread: dot is slow on big graphs).
std::unique_ptr<LayoutEngine> makeGraphvizLayout();

} // namespace portolan::layout
