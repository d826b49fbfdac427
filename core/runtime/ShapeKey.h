// What a compiled executor keys its shape plans by: the bound feeds' shapes (each distinct set is
// compiled once), with those shapes by input name for the compile.
#pragma once

#include "ir/Model.h"
#include "runtime/RuntimeValue.h"

#include <map>
#include <string>
#include <vector>

namespace portolan::runtime {

struct ShapeKey {
    std::string signature;                 ///< "name[dims];…" over the fed inputs
    std::map<std::string, Shape> shapes;   ///< the fed tensors' shapes, by input name
};

/// The key of `bound` (per main-graph input, as bindFeeds gives them; nullptr for unfed ones).
ShapeKey shapeKeyOf(const ir::Model &model, const std::vector<const RuntimeValue *> &bound);

} // namespace portolan::runtime
