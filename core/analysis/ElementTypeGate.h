// The element types a node's inputs and type attributes carry, against the types its op's version
// allows. libonnx 1.12's type checks cannot name the narrow types (float8, float4, int4, int2), so
// Portolan judges those itself from ONNX's type lists (opset/StandardTypeConstraints.def): a float8
// input to Conv, or a Cast to int4 at opset 19 (Cast-21 added it), is refused with both types named.
#pragma once

#include "ir/Model.h"
#include "support/Diagnostic.h"

namespace portolan::analysis {

/// An error for every narrow-typed input, and every `to` / `output_dtype` attribute naming a narrow
/// type, that the node's op version does not take. Other types are left to ONNX's own checks.
support::Diagnostics checkNarrowElementTypes(const ir::Model &model);

} // namespace portolan::analysis
