// Splits a loop over the machine's cores (std::thread per call: used only for kernels whose work
// dwarfs the ~50 µs a thread costs to start).
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace portolan::support {

/// Threads parallelFor uses: the hardware's, at least 1.
inline unsigned workerCount()
{
    static const unsigned count = std::max(1u, std::thread::hardware_concurrency());
    return count;
}

/// Calls f(begin, end) on contiguous, disjoint chunks covering [0, count): on one thread when
/// `worthIt` is false or there is one chunk, else one chunk per core (the caller runs the first).
/// f must write only what its own chunk owns.
template <typename F>
void parallelFor(std::int64_t count, bool worthIt, F &&f)
{
    const std::int64_t chunks = worthIt ? std::min<std::int64_t>(workerCount(), count) : 1;
    if (chunks <= 1) {
        if (count > 0)
            f(std::int64_t(0), count);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(chunks - 1));
    const std::int64_t step = (count + chunks - 1) / chunks;
    for (std::int64_t c = 1; c < chunks; ++c) {
        const std::int64_t begin = c * step, end = std::min(count, begin + step);
        if (begin < end)
            threads.emplace_back([&f, begin, end] { f(begin, end); });
    }
    f(std::int64_t(0), std::min(count, step));
    for (std::thread &t : threads)
        t.join();
}

} // namespace portolan::support
