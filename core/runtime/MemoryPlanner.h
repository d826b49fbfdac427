// Offsets for a run's intermediate tensors in one arena, reusing memory between tensors whose
// lifetimes do not overlap ("greedy by size", as TFLite's arena planner: the largest tensors are
// placed first, each at the lowest offset free during its whole lifetime).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace portolan::runtime {

/// One tensor to place: its size and the steps (inclusive) during which it must stay alive.
struct BufferLifetime {
    std::size_t bytes = 0;
    std::uint32_t firstStep = 0; ///< the step that produces it
    std::uint32_t lastStep = 0;  ///< the last step that reads it
};

struct MemoryPlan {
    std::vector<std::size_t> offsets; ///< per buffer, aligned to kBufferAlignment
    std::size_t arenaBytes = 0;       ///< the planned peak
    std::size_t naiveBytes = 0;       ///< the sum of all buffers: allocate-per-tensor with no reuse
    std::size_t livePeakBytes = 0;    ///< the largest sum of buffers alive at one step: the lower bound
};

inline constexpr std::size_t kBufferAlignment = 64; // a cache line; AVX-512 loads; CUDA vector loads need 16

/// Places every buffer; overlapping lifetimes never share bytes.
MemoryPlan planMemory(const std::vector<BufferLifetime> &buffers);

} // namespace portolan::runtime
