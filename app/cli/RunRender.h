// How `portolan run` prints a run as text (--json: session/RunJson.h).
#pragma once

#include "session/ModelRun.h"

#include <string>
#include <utility>
#include <vector>

namespace portolan::cli {

/// "precision POLICY policy, nodes: N fp16, M fp32" from each node's (precision, why not the
/// policy's), then the reasons nodes stayed at fp32, counted: the CPU and GPU summaries' lines.
void printPrecisionCounts(const std::string &policy, const std::vector<std::pair<std::string, std::string>> &nodes);
/// The run's summary line, what the executor measured, the latency and each output's statistics.
void printRun(const session::RunOutcome &outcome);

} // namespace portolan::cli
