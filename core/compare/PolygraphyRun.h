// Polygraphy's saved run results (`polygraphy run … --save-outputs FILE.json`): a RunResults JSON
// holding, per runner, a list of iterations, each a map of output names to NumPy arrays (base64 of
// the .npy bytes; wrapped in a LazyArray since Polygraphy 0.44, bare before).
#pragma once

#include "runtime/Tensor.h"
#include "support/Expected.h"

#include <string>
#include <utility>
#include <vector>

namespace portolan::compare {

struct PolygraphyRun {
    std::string runner;
    std::vector<std::string> runners;  ///< every runner in the file
    std::size_t iterations = 0;        ///< the chosen runner's
    std::vector<std::pair<std::string, runtime::Tensor>> tensors; ///< its first iteration's outputs
};

/// Reads `path`; `runner` picks a runner by name (or a unique prefix such as "trt"); empty takes
/// the only runner, and is an error listing them when there are several.
support::Expected<PolygraphyRun> readPolygraphyRunResults(const std::string &path, const std::string &runner);

} // namespace portolan::compare
