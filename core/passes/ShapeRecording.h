// Recording ONNX shape inference's results on the IR, shared by infer-shapes and freeze-shapes.
#pragma once

#include "passes/Pass.h"

#include <onnx/onnx_pb.h>

namespace portolan::passes {

/// Whether `inferred` says everything `declared` says and maybe more: same kind and element type
/// (or none declared), and where a shape is declared the same rank with every static dim kept
/// (symbolic and unknown dims may become static or named).
bool refinesType(const onnx::TypeProto &declared, const onnx::TypeProto &inferred);

/// Runs ONNX shape inference on the model as it is now and records, in one rewrite of `pattern`,
/// every inferred type that refines a main-graph value's declaration (graph inputs and
/// initializers are left as they are; subgraph values are not inferred). Statistics:
/// "typed-values", "inference-errors". An inference error does not fail: it becomes a match
/// failure of `pattern` on the node it names (inference of the rest still counts). An inferred type
/// that contradicts a declaration is a match failure too. Returns the number of values typed.
std::size_t recordInferredTypes(PassContext &cx, const std::string &pattern);

} // namespace portolan::passes
