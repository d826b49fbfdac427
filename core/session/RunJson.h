// A run as JSON: what `portolan run --json` prints (latency, what the executor measured, the
// outputs' statistics), written here so every client renders a RunOutcome the same way.
#pragma once

#include "session/ModelRun.h"
#include "support/JsonWriter.h"

#include <string>

namespace portolan::session {

/// The executor as `run --executor` names it: reference, cpu, cuda, cuda:fp16, external:CMD.
std::string executorText(const SideSpec &side);
/// "precision": the policy, the node count per precision, the calibration used.
void writePrecisionJson(support::JsonWriter &w, const std::vector<runtime::cpu::NodeProfile> &nodes,
                        const runtime::PrecisionPolicy &policy);
std::string runJson(const RunOutcome &outcome);

} // namespace portolan::session
