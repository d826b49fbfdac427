// How `portolan compare` and `repro` print their results as text (--json: session/ComparisonJson.h).
#pragma once

#include "session/Workbench.h"

#include <string>

namespace portolan::cli {

/// The runs, the outputs' metrics, the first divergence, the suspects with their kernel checks, and
/// with `everyTensor` every compared tensor.
void printComparison(const session::ComparisonOutcome &outcome, bool everyTensor);
/// "Wrote a repro around NODE (OP): N node(s) … to DIR: …".
void printReproWritten(const session::ReproWritten &written, const std::string &dir, const std::string &runB);

} // namespace portolan::cli
