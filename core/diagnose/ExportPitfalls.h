// What an exporter's trace baked into a model that breaks on another input or another target: a
// constant shape that fits only the example input, If conditions and Loop trip counts fixed at the
// example's values, training-mode nodes, leftovers, int64 shape arithmetic at run time, an opset
// newer than targets accept, custom-domain ops. Each finding names the node and says why in a line.
#pragma once

#include "diagnose/TargetProfile.h"
#include "ir/Model.h"
#include "support/Diagnostic.h"

#include <vector>

namespace portolan::diagnose {

/// Largest constant Loop trip count read as "the example's length" rather than a real constant.
inline constexpr std::int64_t kSmallTripCount = 64;

/// The pitfalls of `model`. `targets` (the shipped profiles, usually) are what "newer than targets
/// accept" and "targets without int64" are judged against.
support::Diagnostics findExportPitfalls(const ir::Model &model, const std::vector<TargetProfile> &targets);

} // namespace portolan::diagnose
