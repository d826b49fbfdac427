// Helpers shared by the control-flow, sequence, recurrent, signal and detection kernels: scalar
// inputs, pieces of a tensor along an axis, and double-precision staging copies, all under the memory cap.
#pragma once

#include "runtime/KernelContext.h"

#include <cstdint>
#include <vector>

namespace portolan::runtime::kernels {

/// The one element of an integer tensor (any integer type), named `what` in errors.
support::Expected<std::int64_t> scalarInteger(KernelContext &ctx, const Tensor &t, const char *what);
/// The one element of a numeric tensor as a double.
support::Expected<double> scalarNumber(KernelContext &ctx, const Tensor &t, const char *what);

/// Elements [start, start + count) along `axis`; with !keepAxis (count must be 1) the axis is dropped.
support::Expected<Tensor> sliceAxis(KernelContext &ctx, const Tensor &t, std::size_t axis, std::int64_t start,
                                    std::int64_t count, bool keepAxis);
/// Joins `pieces` along an existing `axis`, or stacks them along a new one when `newAxis`.
support::Expected<Tensor> joinAxis(KernelContext &ctx, const std::vector<Tensor> &pieces, std::size_t axis, bool newAxis);

/// A double copy of a numeric tensor (the tensor itself when already double).
support::Expected<Tensor> toDouble(KernelContext &ctx, const Tensor &t);
/// A double tensor stored as `dataType` (any numeric type or bool; 16-bit floats go through float).
support::Expected<Tensor> fromDouble(KernelContext &ctx, const Tensor &t, int dataType);

} // namespace portolan::runtime::kernels
