// How an executor stores a dense tensor whose elements are not in row-major order: oneDNN's blocked
// layouts (nChw16c: N, C/16, H, W, then 16 channels) and channel-last ones (nhwc). An observer that
// reads the executor's own bytes in such a layout saves the reorder to row-major.
#pragma once

#include "runtime/Tensor.h"

#include <cstdint>
#include <vector>

namespace portolan::runtime {

/// The order of a tensor's elements in memory, outermost dim first. A step along a physical dim moves
/// `rowMajorStride` elements in the row-major order of the logical shape (a logical dim split into
/// blocks is two physical dims). Dense: the k-th element in memory is the k-th in this order, and
/// there are exactly as many as the logical shape holds.
struct PhysicalLayout {
    static constexpr std::size_t kMaxDims = 16;
    struct Dim {
        std::int64_t size = 1;
        std::int64_t rowMajorStride = 1;
    };
    std::vector<Dim> dims;

    /// The same order with dims of one step dropped and neighbours that step as one merged (H and W
    /// of nhwc, whose row-major strides are W and 1), which gives the transposes longer runs.
    PhysicalLayout simplified() const;
    std::int64_t elementCount() const;
    /// The row-major (flat logical) index of the k-th element in memory.
    std::int64_t rowMajorIndexOf(std::int64_t k) const;
};

/// Reads a row-major float tensor in a layout's order, a stretch at a time. It transposes a panel of
/// some 16k elements at once, 8×8 in registers where the layout is a transpose of row-major, as the
/// channel-last and channel-blocked ones are, so the reference is read a cache line at a time. One
/// reader per thread at a time: the panel is the thread's.
class PhysicalOrderReader {
public:
    static constexpr std::int64_t kMaxRead = 4096;

    PhysicalOrderReader(const float *rowMajor, const PhysicalLayout &layout);
    /// Elements [start, start + count) in the layout's order, count ≤ kMaxRead; valid until the next
    /// call. Cheapest for increasing starts.
    const float *read(std::int64_t start, std::int64_t count);

private:
    void fill(std::int64_t start);

    const float *m_source;
    PhysicalLayout m_rows;      ///< the layout less its innermost dim: where each row of it starts
    std::int64_t m_rowLength;   ///< the innermost dim's size
    std::int64_t m_rowStride;   ///< and its row-major stride
    std::int64_t m_panelRows;
    float *m_panel;             ///< rows [m_begin, m_end) / m_rowLength of the layout's order (the thread's)
    std::int64_t m_begin = 0, m_end = 0;
};

/// `physical`, whose elements are in `layout`'s order, as a row-major tensor of the same shape.
Tensor rowMajorOf(const Tensor &physical, const PhysicalLayout &layout);

} // namespace portolan::runtime
