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
    : m_out(outShape), m_counter(outShape.size(), 0), m_offsets(inputShapes.size(), 0)
{
    for (const Shape &s : inputShapes)
        m_strides.push_back(broadcastStrides(s, outShape.size(), outShape));
}

void BroadcastWalker::next()
{
    for (std::size_t axis = m_out.size(); axis-- > 0;) {
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

} // namespace portolan::runtime::kernels
