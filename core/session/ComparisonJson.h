// A comparison as JSON: what `portolan compare --json` prints, and what the parity tests hold the
// workbench's own outcome to.
#pragma once

#include "session/Comparison.h"
#include "support/JsonWriter.h"

#include <string>

namespace portolan::session {

/// One compared tensor's metrics as a JSON object (non-finite numbers as "nan", "inf", "-inf").
void writeTensorJson(support::JsonWriter &w, const compare::ComparedTensor &tensor);
/// The whole comparison: runs, outputs, first divergence, suspects with their kernel checks, every
/// tensor, what was not compared.
std::string comparisonJson(const ComparisonOutcome &outcome);

} // namespace portolan::session
