// Which nodes to keep at fp32 so that a lowered run passes: nodes the policy lowers are kept one
// more at a time — each the end of the shortest topological prefix that, kept too, makes the
// outputs pass (found by bisection) — then each kept node is tried back at the lowered precision
// and left there when the outputs still pass. The result is a `--keep-fp32 node:NAME` list.
#pragma once

#include "compare/TensorMetrics.h"
#include "ir/Model.h"
#include "runtime/Precision.h"
#include "runtime/reference/Interpreter.h"
#include "support/Expected.h"

#include <string>
#include <vector>

namespace portolan::compare {

struct BisectionResult {
    bool neededNothing = false;       ///< the policy passed as it is
    std::vector<std::string> keepFp32; ///< node names, in topological order
    std::size_t candidates = 0;       ///< nodes the policy lowers (named ones)
    std::size_t runs = 0;
    double worstError = 0;            ///< the outputs' max |error| / scale with the list applied
    Tolerance tolerance;              ///< what the outputs were held to
};

/// `model` runs on the compiled executor under `policy` (plus the list) on `feeds`; `expected`
/// are the outputs to meet at `tolerance`. Fails when even keeping every candidate at fp32 does
/// not pass (the error is not the precision's), or after `maxRuns` runs.
support::Expected<BisectionResult> bisectPrecision(const ir::Model &model, const runtime::PrecisionPolicy &policy,
                                                   const runtime::NamedValues &feeds, const runtime::NamedValues &expected,
                                                   const Tolerance &tolerance, std::size_t maxRuns = 400);

} // namespace portolan::compare
