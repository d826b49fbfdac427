// freeze-shapes' option, readable outside the pass: the pass manager's numeric check feeds the
// frozen dims, so the model before and after the pass can run on the same inputs.
#pragma once

#include "ir/Model.h"
#include "support/Expected.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace portolan::passes {

/// The dims freeze-shapes{input=TEXT} gives each graph input of `model`, by input name; fails as the
/// pass would (an unknown input, a rank or static-dim conflict).
support::Expected<std::map<std::string, std::vector<std::int64_t>>> frozenInputShapes(const ir::Model &model,
                                                                                      const std::string &text);

} // namespace portolan::passes
