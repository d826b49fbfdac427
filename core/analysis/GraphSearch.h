// Search of one graph by node name, op type or tensor name, as the canvas's search box uses it.
#pragma once

#include "ir/Model.h"

#include <string>
#include <vector>

namespace portolan::analysis {

struct SearchHit {
    ir::NodeId node;   ///< the node to show (for a tensor: its producer, or its first consumer)
    ir::ValueId value; ///< set when a tensor's name matched
    std::string why;   ///< "name", "op", "tensor"
};

/// Case-insensitive substring match on node names and tensor names, exact match on op types;
/// "op:Conv" matches only op types, "tensor:x" only tensors. Hits in graph order, each node once.
std::vector<SearchHit> searchGraph(const ir::Model &model, ir::GraphId graph, const std::string &query,
                                   std::size_t limit = 10000);

} // namespace portolan::analysis
