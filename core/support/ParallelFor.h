// Splits a loop over the machine's cores on the OpenMP pool that oneDNN also runs on: one pool for
// the whole process, so the reference kernels, the compiled executor's native loops and oneDNN's
// primitives never compete with each other's workers spinning between parallel regions (std::thread
// loops next to oneDNN ran 2.5× slower on two cores, and a reference run right after a compiled one
// lost half its speed to them), and a parallel loop costs a wake-up, not a thread start.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <thread>

namespace portolan::support {

/// Threads parallelFor uses: the hardware's, at least 1.
inline unsigned workerCount()
{
    static const unsigned count = std::max(1u, std::thread::hardware_concurrency());
    return count;
}

/// Calls f(begin, end) on contiguous, disjoint chunks covering [0, count): on the calling thread when
/// `worthIt` is false or there is one chunk, else one chunk per core. Inside another parallel region
/// it runs on the calling thread alone. f must write only what its own chunk owns.
template <typename F>
void parallelFor(std::int64_t count, bool worthIt, F &&f)
{
    const std::int64_t chunks = worthIt ? std::min<std::int64_t>(workerCount(), count) : 1;
    if (chunks <= 1) {
        if (count > 0)
            f(std::int64_t(0), count);
        return;
    }
#pragma omp parallel num_threads(static_cast<int>(chunks))
    {
        const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        const std::int64_t step = (count + threads - 1) / threads;
        const std::int64_t begin = std::min(count, t * step), end = std::min(count, begin + step);
        if (begin < end)
            f(begin, end);
    }
}

} // namespace portolan::support
