// Seeded random inputs for a model's graph inputs, with symbolic dims fixed by the caller.
#pragma once

#include "ir/Model.h"
#include "runtime/Executor.h"
#include "support/Expected.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace portolan::runtime {

/// A random tensor for graph input `input` (floats uniform in [-1, 1), integers in [0, 10), bools
/// fair coins). Symbolic or unknown dims must be given in `shapes` (by input name); the error names
/// the input and the dim otherwise.
/// "NAME=D0,D1,…" specs (the CLI's --shape values, the compare dock's field) → dims by input name;
/// the error quotes the malformed spec.
support::Expected<std::map<std::string, Shape>> parseShapeSpecs(const std::vector<std::string> &specs);

support::Expected<Tensor> randomInput(const ir::Value &input, std::uint64_t seed,
                                      const std::map<std::string, Shape> &shapes);

} // namespace portolan::runtime
