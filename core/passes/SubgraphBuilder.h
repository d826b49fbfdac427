// Building a new subgraph under a node a rewrite has just created (FusedElementwise's body): the
// three edits the Rewriter has no verb for. Nodes and values inside the subgraph are still created
// through the Rewriter (createNode / createValue on the subgraph's id), so they land in the record.
#pragma once

#include "ir/Model.h"
#include "passes/Rewriter.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace portolan::passes {

/// Gives `node` (created in the open rewrite) a GRAPH attribute `attribute` holding a new empty
/// subgraph named `graphName`, and returns the subgraph.
ir::GraphId attachSubgraph(ir::Model &model, ir::NodeId node, const std::string &attribute, const std::string &graphName);

/// A new input of `graph` named after `nameHint`, declared with `type` when it has one.
ir::ValueId addSubgraphInput(Rewriter &rewriter, ir::GraphId graph, const std::string &nameHint, const onnx::TypeProto &type);

/// Lists `value` (defined in `graph`) as the next output of `graph`, declared with `type` when it has one.
void addSubgraphOutput(Rewriter &rewriter, ir::GraphId graph, ir::ValueId value, const onnx::TypeProto &type);

} // namespace portolan::passes
