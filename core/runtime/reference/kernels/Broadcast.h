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

/// Walks the output in row-major order, keeping one input offset per operand. Axes of extent 1 are
/// dropped and neighbours every input steps through alike are merged, so a row — the run along the
/// last remaining axis — is as long as the layouts allow ([197,1,768] − [197,1,1] has rows of 768).
class BroadcastWalker {
public:
    BroadcastWalker(const Shape &outShape, const std::vector<Shape> &inputShapes);

    std::int64_t offset(std::size_t input) const { return m_offsets[input]; }
    /// Advances to the next output element.
    void next();

    /// Elements in one row, and input `input`'s step along it (0 where it is broadcast).
    std::int64_t rowLength() const { return m_out.empty() ? 1 : m_out.back(); }
    std::int64_t rowStride(std::size_t input) const { return m_out.empty() ? 0 : m_strides[input].back(); }
    /// Advances from the start of a row to the start of the next.
    void nextRow();
    /// Moves to the start of row `row` (counted from 0 in row-major order).
    void seekRow(std::int64_t row);

private:
    /// Steps the odometer at `axis` (and carries into the axes before it).
    void advance(std::size_t axis);

    Shape m_out;
    std::vector<std::vector<std::int64_t>> m_strides; // [input][axis]
    std::vector<std::int64_t> m_counter;
    std::vector<std::int64_t> m_offsets;
};

} // namespace portolan::runtime::kernels
