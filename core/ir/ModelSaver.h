// IR → ONNX ModelProto and file. Unchanged models save back to the same protobuf they came from.
#pragma once

#include "ir/Model.h"
#include "support/Expected.h"

#include <string>

namespace portolan::ir {

/// Rebuilds the full ModelProto (external data stays as references to the original files).
onnx::ModelProto toModelProto(const Model &model);

/// Rebuilds one node (its subgraphs included) as a NodeProto.
onnx::NodeProto toNodeProto(const Model &model, NodeId node);

/// Rebuilds one graph (and its subgraphs) as a GraphProto.
onnx::GraphProto toGraphProto(const Model &model, GraphId graph);

/// Protobuf's deterministic serialization of any message (canonical map and field order).
std::string serializeDeterministic(const google::protobuf::MessageLite &message);

/// Deterministic serialization of the model.
std::string serializeModel(const Model &model);

enum class Overwrite { Refuse, Allow };

/// Writes the model to `path`; refuses an existing file unless `overwrite` is Allow.
support::Status saveModelFile(const Model &model, const std::string &path, Overwrite overwrite = Overwrite::Refuse);

} // namespace portolan::ir
