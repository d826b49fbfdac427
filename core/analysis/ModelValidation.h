// The one gate before anything executes or rewrites a model: what it declares (IR version,
// opset imports) is within what Portolan supports, every node fits its op's schema (arity,
// attribute names and types, required attributes), standard ops exist, and no static dim is
// negative. inspect and the canvas still show a model that fails it, with these findings.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"
#include "support/Expected.h"

namespace portolan::analysis {

/// Every reason `model` must not be run or rewritten, as errors naming model, graph, node or value
/// (and warnings for what is doubtful but not refused: an experimental op ONNX has removed).
support::Diagnostics validateForExecution(const ir::Model &model);

/// The gate itself: ok, or one "malformed-model" error with the first finding (and how many more).
support::Status executionGate(const ir::Model &model);

} // namespace portolan::analysis
