// Portolan's IR invariants, checked after a pass: uses mirror inputs, producers mirror outputs,
// every input resolves in scope, nodes are in topological order, graph outputs are defined.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"

namespace portolan::passes {

/// Every broken invariant, as an error naming the graph, node and value. Empty when the IR is sound.
support::Diagnostics verifyInvariants(const ir::Model &model);

} // namespace portolan::passes
