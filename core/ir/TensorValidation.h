// Checks that a TensorProto's declared dims agree with the data it holds, before anything allocates.
#pragma once

#include "support/Expected.h"

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <optional>

namespace portolan::ir {

/// Validates dims (non-negative, no overflow) and, unless the data is external, that the stored data
/// holds exactly the declared element count. Returns the element count.
support::Expected<std::int64_t> validateTensorProto(const onnx::TensorProto &tensor);

/// Bytes the tensor's elements take at their element size; nullopt for strings or on overflow.
std::optional<std::size_t> expectedByteSize(const onnx::TensorProto &tensor);

} // namespace portolan::ir
