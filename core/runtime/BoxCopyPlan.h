// Slice, Split, Concat and Gather as lists of box copies: each output (or each input, for Concat)
// is one rectangular region of the other side. Planned once per shape plan from the node's
// static shapes and constant bounds (checked here, so a run never reads out of bounds), and carried
// out by each executor its own way (the CPU's memcpy runs, the CUDA executor's strided copies).
#pragma once

#include "runtime/KernelBinding.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace portolan::runtime {

/// A region `box` at `srcStart` of a row-major tensor of `srcShape`, copied to `dstStart` of one of `dstShape`.
struct BoxCopy {
    Shape srcShape, dstShape, box;
    std::vector<std::int64_t> srcStart, dstStart;
};

/// One copy of a node's plan: from input `input` to output `output`.
struct NodeBoxCopy {
    std::size_t input = 0, output = 0;
    BoxCopy box;
};

/// The plan for a Slice (steps of 1), Split, Concat or Gather (constant indices) node; nullopt with
/// `whyNot` set when the node is not one of them, or asks for what a box copy cannot do.
std::optional<std::vector<NodeBoxCopy>> planBoxCopies(const NodeBinding &binding, std::string &whyNot);

/// The element offset of `start` in a row-major tensor with `strides`.
std::int64_t offsetOf(const std::vector<std::int64_t> &start, const std::vector<std::int64_t> &strides);

} // namespace portolan::runtime
