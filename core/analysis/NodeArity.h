// Inputs and outputs each node has against its op's schema: passes and kernels read a node's
// operands by position, so a node with too few of them, or a required one left empty, is refused
// with its name before anything reads past its ends. Also the window attributes (strides,
// dilations) that kernels and ONNX's own shape inference divide by: a zero there crashed ONNX 1.12.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"

namespace portolan::analysis {

/// An error for every live node (subgraphs included) whose input or output count is outside its
/// schema's range, whose required input is empty, whose strides or dilations are not positive, or
/// whose attributes are not the schema's (an unknown name, another type, a required one missing).
/// A standard-domain op ONNX does not define (at the model's opset) is an error too; other ops
/// without a schema are not judged.
support::Diagnostics checkNodeArity(const ir::Model &model);

/// "strides [0,1]" when `attribute` is a strides or dilations list with a value below 1; "" otherwise.
std::string nonPositiveWindow(const onnx::AttributeProto &attribute);

} // namespace portolan::analysis
