// Topological order of a graph's nodes, counting values that subgraphs capture from this graph.
#pragma once

#include "ir/Model.h"
#include "support/Expected.h"

#include <vector>

namespace portolan::ir {

/// Values of `graph`'s enclosing scopes that `node`'s subgraphs read (implicit inputs).
std::vector<ValueId> capturedValues(const Model &model, NodeId node);

/// Live nodes of `graph` in an order where every producer precedes its consumers (stable: file order
/// wherever the file's order is already valid). Fails naming the nodes of a cycle.
support::Expected<std::vector<NodeId>> topologicalOrder(const Model &model, GraphId graph);

} // namespace portolan::ir
