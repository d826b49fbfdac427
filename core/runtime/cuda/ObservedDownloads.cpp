#include "runtime/cuda/ObservedDownloads.h"

#include "ir/Type.h"
#include "runtime/cuda/CudaError.h"
#include "runtime/Dispatch.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace portolan::runtime::cuda {

namespace {

constexpr std::size_t kAlignment = 256; // each download starts where the DMA engine likes it

std::size_t bytesOf(const ObservedDownloads::Output &output)
{
    return static_cast<std::size_t>(elementCount(output.shape)) * ir::dataTypeSize(output.storedType);
}

} // namespace

ObservedDownloads::ObservedDownloads(RunObserver &observer, void *stream, PinnedBuffer &staging, std::size_t budgetBytes,
                                     TransferFigures &transfers)
    : m_observer(observer), m_stream(stream), m_staging(staging), m_budget(std::max(budgetBytes, kAlignment)), m_transfers(transfers)
{
}

void ObservedDownloads::add(const ir::Node &node, std::vector<Output> outputs)
{
    auto stream = static_cast<cudaStream_t>(m_stream);
    const auto aligned = [](std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; };
    std::size_t total = 0;
    for (const Output &output : outputs)
        if (output.device)
            total += aligned(bytesOf(output));
    // a node whose outputs overflow the whole staging has them downloaded alone, into pageable tensors
    const bool batched = total <= m_budget;
    if (batched && m_used + total > std::min(m_staging.bytes(), m_budget)) {
        flush(); // the staging is free again: grow it, doubling up to the budget
        if (m_staging.bytes() < m_budget)
            m_staging.reserve(std::min(m_budget, std::max({total, 2 * m_staging.bytes(), std::size_t(1) << 20})));
    }
    Queued queued{&node, std::move(outputs), {}};
    for (Output &output : queued.outputs) {
        queued.offsets.push_back(m_used);
        if (!output.device)
            continue;
        const std::size_t bytes = bytesOf(output);
        if (bytes == 0) { // an empty tensor: nothing to copy (and maybe no staging yet to copy into)
            output.ready = RuntimeValue::ofTensor(Tensor::zeros(output.dataType, output.shape));
            output.device = nullptr;
            continue;
        }
        ++m_transfers.downloads;
        m_transfers.downloadBytes += bytes;
        if (batched) {
            checkCuda(cudaMemcpyAsync(m_staging.data() + m_used, output.device, bytes, cudaMemcpyDeviceToHost, stream),
                      "downloading an observed tensor");
            m_used += aligned(bytes);
            continue;
        }
        Tensor t = Tensor::uninitialized(output.storedType, output.shape);
        checkCuda(cudaMemcpyAsync(const_cast<std::byte *>(t.rawData()), output.device, t.byteSize(), cudaMemcpyDeviceToHost, stream),
                  "downloading an observed tensor");
        checkCuda(cudaStreamSynchronize(stream), "waiting for an observed tensor");
        output.ready = RuntimeValue::ofTensor(t.dataType() == output.dataType ? std::move(t) : kernels::convertTensor(t, output.dataType));
        output.device = nullptr;
    }
    m_queued.push_back(std::move(queued));
}

RuntimeValue ObservedDownloads::shown(const Output &output, const std::byte *stored) const
{
    const Tensor view = Tensor::view(output.storedType, output.shape, stored, nullptr);
    if (output.storedType != output.dataType)
        return RuntimeValue::ofTensor(kernels::convertTensor(view, output.dataType));
    // the staging is reused by the next batch: an observer that keeps what it sees gets a copy
    return RuntimeValue::ofTensor(m_observer.keepsOutputs() ? view.clone() : view);
}

void ObservedDownloads::flush()
{
    if (m_queued.empty())
        return;
    if (m_used > 0)
        checkCuda(cudaStreamSynchronize(static_cast<cudaStream_t>(m_stream)), "waiting for the observed tensors");
    std::vector<Queued> queued;
    queued.swap(m_queued);
    m_used = 0;
    for (const Queued &q : queued) {
        std::vector<RuntimeValue> seen;
        for (std::size_t k = 0; k < q.outputs.size(); ++k) {
            const Output &output = q.outputs[k];
            seen.push_back(output.device ? shown(output, m_staging.data() + q.offsets[k]) : output.ready);
        }
        m_observer.nodeFinished(*q.node, seen);
    }
}

} // namespace portolan::runtime::cuda
