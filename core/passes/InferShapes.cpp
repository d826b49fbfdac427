// infer-shapes: record ONNX shape inference's types and shapes on the values of the main graph and
// of every If/Loop/Scan body.
//
//   Before: x: float[1,3,8,8] → Conv → t (no type) → Relu → y: float[?]
//   After:  x: float[1,3,8,8] → Conv → t: float[1,4,8,8] → Relu → y: float[1,4,8,8]
//
// Only refinements are recorded: an inferred type replaces a declaration only when it keeps every
// element type and static dim the declaration has (symbolic dims may become static). Graph inputs
// and initializers keep their declarations (they are the interface and the data), body inputs too.
//
// A shape-inference error does not fail the pass: the pass is a cleanup step, and a model ONNX
// cannot fully infer (a custom op, a data-dependent shape) is still worth typing as far as it goes.
// Each error is a match failure on the node it names and counts in "inference-errors"; a
// contradiction between an inferred type and a declaration is a match failure too.
#include "passes/Pass.h"
#include "passes/ShapeRecording.h"

namespace portolan::passes {

support::Status InferShapes::run(PassContext &cx)
{
    recordInferredTypes(cx, "inferred-type");
    return support::Status::ok();
}

} // namespace portolan::passes
