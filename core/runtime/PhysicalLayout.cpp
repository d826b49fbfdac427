#include "runtime/PhysicalLayout.h"

#include "ir/Type.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace portolan::runtime {

namespace {

/// A position in memory order as indices per physical dim, with its row-major offset kept in step.
class Odometer {
public:
    Odometer(const PhysicalLayout &layout, std::int64_t k) : m_dims(layout.dims)
    {
        for (std::size_t d = m_dims.size(); d-- > 0;) {
            m_index[d] = k % m_dims[d].size;
            k /= m_dims[d].size;
            m_offset += m_index[d] * m_dims[d].rowMajorStride;
        }
    }
    std::int64_t offset() const { return m_offset; }
    /// How many steps the innermost dim has left before it wraps.
    std::int64_t innerLeft() const { return m_dims.back().size - m_index[m_dims.size() - 1]; }
    /// Moves `steps` along the innermost dim (at most innerLeft()), carrying into the outer dims.
    void advanceInner(std::int64_t steps)
    {
        std::size_t d = m_dims.size() - 1;
        m_index[d] += steps;
        m_offset += steps * m_dims[d].rowMajorStride;
        while (d > 0 && m_index[d] == m_dims[d].size) {
            m_offset -= m_dims[d].size * m_dims[d].rowMajorStride;
            m_index[d] = 0;
            --d;
            ++m_index[d];
            m_offset += m_dims[d].rowMajorStride;
        }
    }

private:
    const std::vector<PhysicalLayout::Dim> &m_dims;
    std::array<std::int64_t, PhysicalLayout::kMaxDims> m_index{};
    std::int64_t m_offset = 0;
};

/// Calls f(rowMajorOffset, stride, memoryIndex, run) for the runs of elements [start, start + count)
/// along the innermost physical dim.
template <typename F>
void forEachRun(const PhysicalLayout &layout, std::int64_t start, std::int64_t count, F &&f)
{
    Odometer at(layout, start);
    const std::int64_t stride = layout.dims.back().rowMajorStride;
    for (std::int64_t done = 0; done < count;) {
        const std::int64_t run = std::min(at.innerLeft(), count - done);
        f(at.offset(), stride, start + done, run);
        done += run;
        at.advanceInner(run);
    }
}

} // namespace

std::int64_t PhysicalLayout::elementCount() const
{
    std::int64_t n = 1;
    for (const Dim &d : dims)
        n *= d.size;
    return n;
}

std::int64_t PhysicalLayout::rowMajorIndexOf(std::int64_t k) const
{
    std::int64_t index = 0;
    for (std::size_t d = dims.size(); d-- > 0;) {
        index += k % dims[d].size * dims[d].rowMajorStride;
        k /= dims[d].size;
    }
    return index;
}

PhysicalLayout PhysicalLayout::simplified() const
{
    PhysicalLayout merged;
    for (const Dim &d : dims) {
        if (d.size == 1)
            continue;
        if (!merged.dims.empty() && merged.dims.back().rowMajorStride == d.rowMajorStride * d.size) {
            merged.dims.back() = {merged.dims.back().size * d.size, d.rowMajorStride};
            continue;
        }
        merged.dims.push_back(d);
    }
    if (merged.dims.empty())
        merged.dims.push_back({1, 1});
    return merged;
}

namespace {

#if defined(__clang__)
// clang has no __builtin_shuffle; its __builtin_shufflevector takes the same lanes as constants.
#define PORTOLAN_SHUFFLE(a, b, picks) PORTOLAN_SHUFFLE_##picks(a, b)
#define PORTOLAN_SHUFFLE_pairsLow(a, b) __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define PORTOLAN_SHUFFLE_pairsHigh(a, b) __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define PORTOLAN_SHUFFLE_quadsLow(a, b) __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define PORTOLAN_SHUFFLE_quadsHigh(a, b) __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#define PORTOLAN_SHUFFLE_halvesLow(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11)
#define PORTOLAN_SHUFFLE_halvesHigh(a, b) __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15)
#else
#define PORTOLAN_SHUFFLE(a, b, picks) __builtin_shuffle(a, b, picks)
#endif

/// dst[j · dstStride + i] = src[i · srcStride + j] for i < rows, j < cols: 8×8 blocks transposed in
/// registers (three rounds of shuffles), the edges one element at a time.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
transposeInto(const float *src, std::int64_t srcStride, std::int64_t rows, std::int64_t cols, float *dst,
              std::int64_t dstStride)
{
    using Floats = float __attribute__((vector_size(8 * sizeof(float))));
    using Picks = std::int32_t __attribute__((vector_size(8 * sizeof(std::int32_t))));
    [[maybe_unused]] const Picks pairsLow{0, 8, 1, 9, 4, 12, 5, 13}, pairsHigh{2, 10, 3, 11, 6, 14, 7, 15};
    [[maybe_unused]] const Picks quadsLow{0, 1, 8, 9, 4, 5, 12, 13}, quadsHigh{2, 3, 10, 11, 6, 7, 14, 15};
    [[maybe_unused]] const Picks halvesLow{0, 1, 2, 3, 8, 9, 10, 11}, halvesHigh{4, 5, 6, 7, 12, 13, 14, 15};
    const std::int64_t rows8 = rows - rows % 8, cols8 = cols - cols % 8;
    for (std::int64_t i0 = 0; i0 < rows8; i0 += 8) {
        for (std::int64_t j0 = 0; j0 < cols8; j0 += 8) {
            Floats r[8], t[8], u[8];
#pragma GCC unroll 8
            for (int i = 0; i < 8; ++i)
                std::memcpy(&r[i], src + (i0 + i) * srcStride + j0, sizeof(Floats));
#pragma GCC unroll 4
            for (int i = 0; i < 8; i += 2) {
                t[i] = PORTOLAN_SHUFFLE(r[i], r[i + 1], pairsLow);
                t[i + 1] = PORTOLAN_SHUFFLE(r[i], r[i + 1], pairsHigh);
            }
#pragma GCC unroll 2
            for (int i = 0; i < 8; i += 4)
#pragma GCC unroll 2
                for (int k = 0; k < 2; ++k) {
                    u[i + 2 * k] = PORTOLAN_SHUFFLE(t[i + k], t[i + k + 2], quadsLow);
                    u[i + 2 * k + 1] = PORTOLAN_SHUFFLE(t[i + k], t[i + k + 2], quadsHigh);
                }
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                const Floats low = PORTOLAN_SHUFFLE(u[k], u[k + 4], halvesLow);
                const Floats high = PORTOLAN_SHUFFLE(u[k], u[k + 4], halvesHigh);
                std::memcpy(dst + (j0 + k) * dstStride + i0, &low, sizeof(Floats));
                std::memcpy(dst + (j0 + k + 4) * dstStride + i0, &high, sizeof(Floats));
            }
        }
        for (std::int64_t i = i0; i < i0 + 8; ++i)
            for (std::int64_t j = cols8; j < cols; ++j)
                dst[j * dstStride + i] = src[i * srcStride + j];
    }
    for (std::int64_t i = rows8; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j)
            dst[j * dstStride + i] = src[i * srcStride + j];
}
#undef PORTOLAN_SHUFFLE

} // namespace

PhysicalOrderReader::PhysicalOrderReader(const float *rowMajor, const PhysicalLayout &layout)
    : m_source(rowMajor)
{
    const PhysicalLayout simple = layout.simplified();
    m_rowLength = simple.dims.back().size;
    m_rows.dims.assign(simple.dims.begin(), simple.dims.end() - 1);
    if (m_rows.dims.empty())
        m_rows.dims.push_back({1, 1});
    m_rowStride = simple.dims.back().rowMajorStride;
    constexpr std::int64_t kPanelElements = 1 << 16;
    m_panelRows = std::min(std::max(kMaxRead / m_rowLength + 2, kPanelElements / m_rowLength), m_rows.elementCount());
    // one panel per thread, kept from tensor to tensor: a fresh 256 KiB allocation is a fresh mapping,
    // whose page faults cost more than a small tensor's comparison
    thread_local std::vector<float> panel;
    panel.resize(std::max(panel.size(), static_cast<std::size_t>(m_panelRows * m_rowLength)));
    m_panel = panel.data();
}

const float *PhysicalOrderReader::read(std::int64_t start, std::int64_t count)
{
    if (start < m_begin || start + count > m_end)
        fill(start);
    return m_panel + (start - m_begin);
}

void PhysicalOrderReader::fill(std::int64_t start)
{
    const std::int64_t firstRow = start / m_rowLength;
    const std::int64_t rows = std::min(m_panelRows, m_rows.elementCount() - firstRow);
    // rows whose starts are consecutive in the source (a run along m_rows' innermost dim, when its
    // stride is 1) are one transpose: their elements form a matrix of m_rowLength rows there
    forEachRun(m_rows, firstRow, rows, [&](std::int64_t offset, std::int64_t stride, std::int64_t row, std::int64_t run) {
        float *to = m_panel + (row - firstRow) * m_rowLength;
        if (stride == 1) {
            transposeInto(m_source + offset, m_rowStride, m_rowLength, run, to, m_rowLength);
            return;
        }
        for (std::int64_t j = 0; j < run; ++j)
            transposeInto(m_source + offset + j * stride, m_rowStride, m_rowLength, 1, to + j * m_rowLength, m_rowLength);
    });
    m_begin = firstRow * m_rowLength;
    m_end = (firstRow + rows) * m_rowLength;
}

Tensor rowMajorOf(const Tensor &physical, const PhysicalLayout &layout)
{
    Tensor plain = Tensor::uninitialized(physical.dataType(), physical.shape()); // every element is written
    if (physical.dataType() == onnx::TensorProto::STRING) {
        std::vector<std::string> &to = plain.mutableStrings();
        forEachRun(layout, 0, physical.size(), [&](std::int64_t offset, std::int64_t stride, std::int64_t k, std::int64_t run) {
            for (std::int64_t i = 0; i < run; ++i)
                to[static_cast<std::size_t>(offset + i * stride)] = physical.strings()[static_cast<std::size_t>(k + i)];
        });
        return plain;
    }
    // elements as unsigned words of their size: a copy an instruction each, not a call
    const auto scatter = [&](auto word) {
        using Word = decltype(word);
        const auto *from = reinterpret_cast<const Word *>(physical.rawData());
        auto *to = plain.mutableData<Word>();
        forEachRun(layout, 0, physical.size(), [&](std::int64_t offset, std::int64_t stride, std::int64_t k, std::int64_t run) {
            for (std::int64_t i = 0; i < run; ++i)
                to[offset + i * stride] = from[k + i];
        });
    };
    switch (ir::dataTypeSize(physical.dataType())) {
    case 1: scatter(std::uint8_t{}); break;
    case 2: scatter(std::uint16_t{}); break;
    case 4: scatter(std::uint32_t{}); break;
    case 8: scatter(std::uint64_t{}); break;
    case 16: { // complex128: two words an element
        const auto *from = reinterpret_cast<const std::uint64_t *>(physical.rawData());
        auto *to = plain.mutableData<std::uint64_t>();
        forEachRun(layout, 0, physical.size(), [&](std::int64_t offset, std::int64_t stride, std::int64_t k, std::int64_t run) {
            for (std::int64_t i = 0; i < run; ++i)
                std::memcpy(to + 2 * (offset + i * stride), from + 2 * (k + i), 16);
        });
        break;
    }
    default: break; // no bytes to move
    }
    return plain;
}

} // namespace portolan::runtime
