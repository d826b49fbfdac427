// Everything said about a model before it runs: what the execution gate refuses, ONNX's checker node by node, shape inference (as
// warnings: the model is valid, a target may still trip on it) and the export pitfalls judged
// against the shipped target profiles. Shared by inspect, the port report and the GUI.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"

namespace portolan::session {

/// The findings of `model`, after `loadWarnings` (what loading it said).
support::Diagnostics modelFindings(const ir::Model &model, support::Diagnostics loadWarnings = {});

} // namespace portolan::session
