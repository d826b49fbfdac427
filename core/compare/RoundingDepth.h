// How many rounding steps stand between a graph's inputs and each of its values: what a default
// tolerance grows with, since every op that computes new numbers rounds them once more.
#pragma once

#include "ir/Model.h"

#include <unordered_map>

namespace portolan::compare {

/// Ops whose outputs are copies of their data inputs' elements (or constants): they round nothing.
bool copiesElements(const ir::Node &node);

/// For every value of `model`'s main graph, the most nodes that compute new numbers on any path
/// from the graph's inputs and weights to it (0 for those; element copies, shape reads and casts
/// to integers add nothing). A node with subgraphs counts once.
std::unordered_map<ir::ValueId, int> roundingDepths(const ir::Model &model);

} // namespace portolan::compare
