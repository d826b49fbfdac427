// A node (operator application) of the IR, with attributes whose subgraphs are IR graphs.
#pragma once

#include "ir/Ids.h"
#include "ir/Value.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace portolan::ir {

/// An attribute as in the file, except that GRAPH/GRAPHS payloads live as IR subgraphs.
struct Attribute {
    onnx::AttributeProto proto;     ///< with `g` and `graphs` cleared
    std::vector<GraphId> subgraphs; ///< one for GRAPH, n for GRAPHS, none otherwise
    bool firstFromG = false;        ///< subgraphs[0] was the `g` field (the rest were `graphs`)
    std::shared_ptr<const Initializer> externalTensor; ///< `t` when stored as external data, resolved

    const std::string &name() const { return proto.name(); }
};

struct Node {
    NodeId id;
    GraphId graph;
    std::string name;
    std::string opType;
    std::string domain;              ///< "" for the standard ai.onnx domain
    std::vector<ValueId> inputs;     ///< invalid id = omitted optional input ("")
    std::vector<ValueId> outputs;    ///< invalid id = omitted optional output ("")
    std::vector<Attribute> attributes;
    onnx::NodeProto extras;          ///< doc_string and unknown fields, input/output/attribute cleared
    bool alive = true;               ///< false once removed: ids are never reused

    const Attribute *attribute(const std::string &attributeName) const;
    /// The standard domain's Constant: its output is known before any run.
    bool isConstant() const { return opType == "Constant" && domain.empty(); }
    /// The standard domain's random ops (RandomNormal…, Bernoulli, Multinomial): their outputs differ
    /// from run to run, so they are neither folded nor compared for values.
    bool drawsRandomNumbers() const;
    /// "name" or, when unnamed, "#index (OpType)" — how diagnostics refer to the node.
    std::string displayName(std::size_t indexInGraph) const;
};

} // namespace portolan::ir
