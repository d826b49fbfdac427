// onnx::shape_inference over the IR: inferred types per value, and its complaints as diagnostics.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <unordered_map>

namespace portolan::analysis {

struct ShapeInferenceResult {
    /// Inferred type of every main-graph value ONNX could type, by name.
    std::unordered_map<std::string, onnx::TypeProto> types;
    /// The same for the values of If/Loop/Scan bodies, nested ones included (ONNX forbids a body
    /// name shadowing an outer one, so names do not collide).
    std::unordered_map<std::string, onnx::TypeProto> subgraphTypes;
    support::Diagnostics findings;
};

/// Runs ONNX shape inference (strict, with type checks and data propagation) on a copy of the model.
ShapeInferenceResult inferShapes(const ir::Model &model);

/// Lenient inference over the declared types: one op ONNX cannot type leaves only what depends on
/// it unknown, instead of ending the run there as strict mode does. `findings` stays empty.
ShapeInferenceResult inferShapesLenient(const ir::Model &model);

/// Shapes at given input dims (by input name; other inputs keep their declared type): the declared
/// intermediate shapes are dropped first (they may name other dims), and inference is lenient, so
/// one op it cannot type leaves only what depends on it unknown. What the compiled executor plans by.
ShapeInferenceResult inferShapesAt(const ir::Model &model, const std::map<std::string, std::vector<std::int64_t>> &inputDims);

/// The dims of a tensor type whose every dim is a known number, else nullopt.
std::optional<std::vector<std::int64_t>> staticDims(const onnx::TypeProto &type);

} // namespace portolan::analysis
