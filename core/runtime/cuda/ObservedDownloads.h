// What an observer of a CUDA run is shown: only the outputs it wants, downloaded on the stream into
// pinned staging as their nodes finish, and handed over in node order a batch at a time, when the
// staging is full or the run ends. One wait per batch instead of one per node, and a bounded
// amount of host memory however many tensors a comparison reads. A value the host needs anyway (a
// graph output, a fallback's input) is not handed here: the shape plan downloads it once for all.
#pragma once

#include "runtime/cuda/CudaExecutor.h"
#include "runtime/cuda/DeviceState.h"
#include "runtime/Executor.h"

#include <cstddef>
#include <vector>

namespace portolan::runtime::cuda {

class ObservedDownloads {
public:
    /// One output of a node: a value already on the host, or device bytes to download.
    struct Output {
        RuntimeValue ready;           ///< handed over as it is, when `device` is null
        const void *device = nullptr; ///< else the output's device storage
        int storedType = 0;           ///< its element type there (fp16/bf16 storage of a float)
        int dataType = 0;             ///< the element type the observer sees
        Shape shape;
    };

    /// `stream` is the run's cudaStream_t; `staging` the shape plan's pinned memory, grown as needed up
    /// to `budgetBytes` (RunOptions::observerBatchBytes).
    ObservedDownloads(RunObserver &observer, void *stream, PinnedBuffer &staging, std::size_t budgetBytes, TransferFigures &transfers);
    ObservedDownloads(const ObservedDownloads &) = delete;
    ObservedDownloads &operator=(const ObservedDownloads &) = delete;

    /// Queues the node's outputs (an empty value for one the observer does not want), enqueuing the
    /// downloads after the work already on the stream.
    void add(const ir::Node &node, std::vector<Output> outputs);
    /// Waits for the queued downloads and hands every queued node over, in order.
    void flush();

private:
    struct Queued {
        const ir::Node *node;
        std::vector<Output> outputs;
        std::vector<std::size_t> offsets; ///< per output: its bytes in the staging
    };
    /// A tensor whose bytes are `stored` on the host, as the observer sees it.
    RuntimeValue shown(const Output &output, const std::byte *stored) const;

    RunObserver &m_observer;
    void *m_stream;
    PinnedBuffer &m_staging;
    std::size_t m_budget;
    TransferFigures &m_transfers;
    std::size_t m_used = 0; ///< bytes of the staging the queued downloads fill
    std::vector<Queued> m_queued;
};

} // namespace portolan::runtime::cuda
