// IR → ONNX ModelProto and file. Unchanged models save back to the same protobuf they came from.
#pragma once

#include "ir/Model.h"
#include "support/Expected.h"
#include "support/StagedFile.h"

#include <string>

namespace portolan::ir {

/// What of the initializers' values a rebuilt proto carries.
enum class Payloads {
    All,       ///< every value: for saving, conversion and anything that runs the model
    ShapesOnly ///< the main graph's weights (floating-point, 8- and 16-bit integer) over 64 KiB keep their
               ///< type and dims but not their values: for ONNX's checker and shape inference, which read
               ///< only small integer tensors' values (a Reshape's shape), without a copy of the weights
};

/// Rebuilds the full ModelProto (external data stays as references to the original files).
onnx::ModelProto toModelProto(const Model &model, Payloads payloads = Payloads::All);

/// True for an initializer that toModelProto(…, ShapesOnly) left without its values.
bool payloadLeftOut(const onnx::TensorProto &tensor);

/// Rebuilds one node (its subgraphs included) as a NodeProto.
onnx::NodeProto toNodeProto(const Model &model, NodeId node);

/// Rebuilds one graph (and its subgraphs) as a GraphProto.
onnx::GraphProto toGraphProto(const Model &model, GraphId graph, Payloads payloads = Payloads::All);

/// Protobuf's deterministic serialization of any message (canonical map and field order).
std::string serializeDeterministic(const google::protobuf::MessageLite &message);

/// Deterministic serialization of the model.
std::string serializeModel(const Model &model);

using Overwrite = support::Overwrite;

/// Writes the model to `path`; refuses an existing file unless `overwrite` is Allow. The saved model
/// opens on its own: the weights the source kept as external data go into `<file name>.data` beside
/// it (written, like the model, to a temporary file first), never left pointing at the source's.
support::Status saveModelFile(const Model &model, const std::string &path, Overwrite overwrite = Overwrite::Refuse);

/// The data file saveModelFile writes beside `path` for `model` ("" when its weights are all inline).
std::string externalDataFileFor(const Model &model, const std::string &path);

} // namespace portolan::ir
