// How a model splits between a target and a fallback (host) runtime when some nodes are unsupported:
// the partition counts and the tensors that cross between them on every run — the cost a fallback
// has that users forget.
#pragma once

#include "diagnose/TargetCheck.h"

#include <set>

namespace portolan::diagnose {

/// Partitions of the main graph when the nodes in `unsupported` (any graph; a subgraph's node makes
/// its main-graph owner unsupported) run outside the target. Runs are merged only where doing so
/// cannot create a cycle between partitions, as ONNX Runtime's partitioner requires.
Partitioning partitionModel(const ir::Model &model, const std::set<ir::NodeId> &unsupported);

} // namespace portolan::diagnose
