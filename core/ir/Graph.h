// A graph of the IR: the main graph or a subgraph of an If/Loop/Scan attribute.
#pragma once

#include "ir/Ids.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace portolan::ir {

/// The three lists of a GraphProto that declare values.
enum class DeclarationList { Input, Output, ValueInfo };

struct Graph {
    GraphId id;
    std::string name;
    GraphId parent;                 ///< invalid for the main graph
    NodeId ownerNode;               ///< the If/Loop/Scan node holding this subgraph
    std::string ownerAttribute;     ///< "then_branch", "body", …
    int depth = 0;                  ///< 0 for the main graph

    std::vector<NodeId> nodes;      ///< in file order
    std::vector<ValueId> inputs;
    std::vector<ValueId> outputs;
    std::vector<ValueId> initializers; ///< in file order
    std::vector<ValueId> valueInfos;   ///< values that had a value_info entry, in file order
    onnx::GraphProto extras;        ///< doc_string, sparse initializers, quantization annotations, unknown fields
    /// List entries that declare a value differently from the value's effective declaration (a name
    /// declared twice with other types or doc strings), saved exactly as they were read.
    std::map<std::pair<DeclarationList, std::size_t>, onnx::ValueInfoProto> verbatimDeclarations;

    std::unordered_map<std::string, ValueId> scope; ///< names this graph defines

    bool isMain() const { return !parent.valid(); }
};

} // namespace portolan::ir
