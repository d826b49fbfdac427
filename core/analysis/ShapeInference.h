// onnx::shape_inference over the IR: inferred types per value, and its complaints as diagnostics.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <unordered_map>

namespace portolan::analysis {

struct ShapeInferenceResult {
    /// Inferred type of every main-graph value ONNX could type, by name.
    std::unordered_map<std::string, onnx::TypeProto> types;
    support::Diagnostics findings;
};

/// Runs ONNX shape inference (strict, with type checks and data propagation) on a copy of the model.
ShapeInferenceResult inferShapes(const ir::Model &model);

} // namespace portolan::analysis
