// Renderings of a ModelSummary: JSON for scripts (schema in docs/inspect-json.md), text for people.
#pragma once

#include "analysis/ModelSummary.h"

#include <string>

namespace portolan::analysis {

/// Version of the JSON layout below; bumped on any incompatible change.
inline constexpr int kInspectJsonSchemaVersion = 1;

std::string summaryJson(const ModelSummary &summary);
std::string summaryText(const ModelSummary &summary);

/// "12.3 MiB", "512 B".
std::string humanBytes(std::uint64_t bytes);

} // namespace portolan::analysis
