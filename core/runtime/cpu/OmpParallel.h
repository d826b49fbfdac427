// Parallel loops of the native kernels, on the OpenMP pool oneDNN runs on: one pool for the whole
// executor, so a native loop never competes with oneDNN's workers spinning between primitives
// (std::thread loops next to them ran 2.5× slower on two cores).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace portolan::runtime::cpu {

/// Calls f(begin, end) on disjoint chunks covering [0, count), one per OpenMP thread when `worthIt`.
template <typename F>
void parallelChunks(std::int64_t count, bool worthIt, F &&f)
{
    if (!worthIt || count < 2) {
        if (count > 0)
            f(std::int64_t(0), count);
        return;
    }
#pragma omp parallel
    {
        const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        const std::int64_t step = (count + threads - 1) / threads;
        const std::int64_t begin = std::min(count, t * step), end = std::min(count, begin + step);
        if (begin < end)
            f(begin, end);
    }
}

} // namespace portolan::runtime::cpu
