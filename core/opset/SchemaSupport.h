// Helpers the ai.portolan schema files share.
#pragma once

#include <onnx/defs/schema.h>

#include <string>
#include <vector>

namespace portolan::opset {

/// "tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)".
const std::vector<std::string> &floatTypes();

/// Runs the inference function of the standard op `op` (its newest version up to `version`);
/// without one, propagates input 0's element type to output 0.
void inferAs(onnx::InferenceContext &ctx, const char *op, int version);

} // namespace portolan::opset
