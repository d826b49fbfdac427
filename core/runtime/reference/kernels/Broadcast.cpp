// Broadcasting helpers.
#include "runtime/reference/kernels/Broadcast.h"

#include <algorithm>

namespace portolan::runtime::kernels {

std::optional<Shape> broadcastShapes(const std::vector<Shape> &shapes)
{
    std::size_t rank = 0;
    for (const Shape &s : shapes)
        rank = std::max(rank, s.size());
    Shape out(rank, 1);
    for (const Shape &s : shapes)
        for (std::size_t i = 0; i < s.size(); ++i) {
            std::int64_t &o = out[rank - s.size() + i];
            const std::int64_t d = s[i];
            if (d == o || d == 1)
                continue;
            if (o == 1)
                o = d;
            else
                return std::nullopt;
        }
    return out;
}

std::vector<std::int64_t> broadcastStrides(const Shape &shape, std::size_t outRank, const Shape &outShape)
{
    std::vector<std::int64_t> strides(outRank, 0);
    std::int64_t stride = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        const std::size_t axis = outRank - shape.size() + i;
        strides[axis] = (shape[i] == 1 && outShape[axis] != 1) ? 0 : stride;
        stride *= shape[i];
    }
    return strides;
}

BroadcastWalker::BroadcastWalker(const Shape &outShape, const std::vector<Shape> &inputShapes)
    : m_strides(inputShapes.size()), m_offsets(inputShapes.size(), 0)
{
    std::vector<std::vector<std::int64_t>> full;
    for (const Shape &s : inputShapes)
        full.push_back(broadcastStrides(s, outShape.size(), outShape));
    for (std::size_t axis = 0; axis < outShape.size(); ++axis) {
        if (outShape[axis] == 1)
            continue; // never stepped through
        bool merges = !m_out.empty();
        for (std::size_t k = 0; k < full.size() && merges; ++k)
            merges = m_strides[k].back() == full[k][axis] * outShape[axis];
        if (merges)
            m_out.back() *= outShape[axis];
        else
            m_out.push_back(outShape[axis]);
        for (std::size_t k = 0; k < full.size(); ++k) {
            if (merges)
                m_strides[k].back() = full[k][axis];
            else
                m_strides[k].push_back(full[k][axis]);
        }
    }
    m_counter.assign(m_out.size(), 0);
}

void BroadcastWalker::advance(std::size_t axis)
{
    while (axis-- > 0) {
        if (++m_counter[axis] < m_out[axis]) {
            for (std::size_t k = 0; k < m_offsets.size(); ++k)
                m_offsets[k] += m_strides[k][axis];
            return;
        }
        m_counter[axis] = 0;
        for (std::size_t k = 0; k < m_offsets.size(); ++k)
            m_offsets[k] -= m_strides[k][axis] * (m_out[axis] - 1);
    }
}

void BroadcastWalker::next() { advance(m_out.size()); }

void BroadcastWalker::nextRow()
{
    if (!m_out.empty())
        advance(m_out.size() - 1);
}

void BroadcastWalker::seekRow(std::int64_t row)
{
    std::fill(m_offsets.begin(), m_offsets.end(), 0);
    for (std::size_t axis = m_out.size(); axis-- > 0;) {
        if (axis + 1 == m_out.size()) { // the row's own axis starts at 0
            m_counter[axis] = 0;
            continue;
        }
        m_counter[axis] = row % m_out[axis];
        row /= m_out[axis];
        for (std::size_t k = 0; k < m_offsets.size(); ++k)
            m_offsets[k] += m_counter[axis] * m_strides[k][axis];
    }
}

} // namespace portolan::runtime::kernels
