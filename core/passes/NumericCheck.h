// The numeric check of a pass: seeded inputs, one reference run per model version, outputs compared
// at atol + rtol·|before|.
#pragma once

#include "ir/Model.h"
#include "passes/PassManager.h"
#include "runtime/reference/Interpreter.h"
#include "support/Expected.h"

namespace portolan::passes {

/// Random feeds by the seed rule (runtime/Feeds.h) for the model's graph inputs (dims of `shapes` by
/// input name; other symbolic dims are `symbolicDim`).
support::Expected<runtime::NamedValues> seededFeeds(const ir::Model &model, std::uint64_t seed,
                                                    const std::map<std::string, std::vector<std::int64_t>> &shapes,
                                                    std::int64_t symbolicDim);

/// Runs the model on the reference interpreter.
support::Expected<runtime::NamedValues> referenceOutputs(const ir::Model &model, const runtime::NamedValues &feeds);

/// Compares outputs position by position (names may differ after a pass: the interface is by position).
NumericCheck compareOutputs(const runtime::NamedValues &before, const runtime::NamedValues &after, double atol, double rtol);

} // namespace portolan::passes
