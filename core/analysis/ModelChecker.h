// Validation of a loaded model: onnx::checker per node (so one bad node does not hide the others)
// and Portolan's own checks, all as diagnostics naming the node and value.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"

namespace portolan::analysis {

/// Every finding of the ONNX checker and of Portolan's structural checks. Never throws.
support::Diagnostics checkModel(const ir::Model &model);

} // namespace portolan::analysis
