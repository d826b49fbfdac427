// Multidirectional (numpy) broadcasting: the output shape and, per input, strides that are 0 along
// broadcast dims, walked with an odometer so each step costs O(1) amortized.
#pragma once

#include "runtime/Tensor.h"

#include <optional>
#include <vector>

namespace portolan::runtime::kernels {

/// The broadcast shape of `shapes`, or nullopt when two dims differ and neither is 1.
std::optional<Shape> broadcastShapes(const std::vector<Shape> &shapes);

/// Row-major strides of `shape` aligned to the right of an output of rank `outRank`, 0 where broadcast.
std::vector<std::int64_t> broadcastStrides(const Shape &shape, std::size_t outRank, const Shape &outShape);

/// Walks the output in row-major order, keeping one input offset per operand.
class BroadcastWalker {
public:
    BroadcastWalker(const Shape &outShape, const std::vector<Shape> &inputShapes);

    std::int64_t offset(std::size_t input) const { return m_offsets[input]; }
    /// Advances to the next output element.
    void next();

private:
    Shape m_out;
    std::vector<std::vector<std::int64_t>> m_strides; // [input][axis]
    std::vector<std::int64_t> m_counter;
    std::vector<std::int64_t> m_offsets;
};

} // namespace portolan::runtime::kernels
