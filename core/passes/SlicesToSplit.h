// canonicalize's slices-to-split pattern (its own file: Canonicalize.cpp holds the shape patterns).
#pragma once

#include "ir/Model.h"
#include "passes/Pass.h"

namespace portolan::passes {

/// Slices of one tensor that tile an axis become one Split; returns the rewrites made in `graph`.
std::size_t slicesToSplit(PassContext &cx, ir::GraphId graph);

} // namespace portolan::passes
