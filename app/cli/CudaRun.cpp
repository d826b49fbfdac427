// `portolan run --executor cuda` (see CudaRun.h).
#include "cli/CudaRun.h"

#ifdef PORTOLAN_HAVE_CUDA
#include "runtime/cuda/CudaExecutor.h"
#include "runtime/cuda/DevicePeaks.h"

#include <algorithm>
#include <cstdio>
#include <map>
#endif

namespace portolan::cli {

#ifdef PORTOLAN_HAVE_CUDA

namespace {

double mebibytes(std::uint64_t bytes)
{
    return static_cast<double>(bytes) / (1 << 20);
}

/// A node's rates per second of its time: bytes moved, FLOPs computed, and their shares of the peaks.
struct NodeRates {
    double bytesPerSecond = 0, flopsPerSecond = 0, bandwidthShare = 0, flopsShare = 0;
};
NodeRates ratesOf(const runtime::cuda::CudaNodeProfile &n, const runtime::cuda::DevicePeaks *peaks)
{
    NodeRates r;
    const double seconds = n.runs ? n.milliseconds * 1e-3 / static_cast<double>(n.runs) : 0.0;
    if (seconds <= 0)
        return r;
    r.bytesPerSecond = static_cast<double>(n.bytes) / seconds;
    r.flopsPerSecond = static_cast<double>(n.flops) / seconds;
    if (peaks && peaks->copyBytesPerSecond > 0)
        r.bandwidthShare = r.bytesPerSecond / peaks->copyBytesPerSecond;
    if (peaks && peaks->matmulFlopsPerSecond > 0)
        r.flopsShare = r.flopsPerSecond / peaks->matmulFlopsPerSecond;
    return r;
}

class CudaRun final : public GpuRun {
public:
    CudaRun(std::unique_ptr<runtime::cuda::CudaExecutor> executor, std::string precision)
        : m_executor(std::move(executor)), m_precision(std::move(precision))
    {
    }

    support::Expected<runtime::NamedValues> run(const runtime::NamedValues &feeds, const runtime::RunOptions &options) override
    {
        return m_executor->run(feeds, options);
    }

    void printSummary(const std::string &path, const std::string &pipeline, double seconds, bool withProfile) const override
    {
        const auto nodes = m_executor->lastNodes();
        const auto onCpu = std::count_if(nodes.begin(), nodes.end(), [](const auto &n) { return n.implementation == "cpu-fallback"; });
        const auto t = m_executor->lastTransfers();
        std::printf("Ran %s on the CUDA executor (%s, %s) after %s: %zu nodes (%td on the CPU) in %.2f ms\n", path.c_str(),
                    m_executor->deviceName().c_str(), m_precision.c_str(), pipeline.empty() ? "no passes" : pipeline.c_str(),
                    nodes.size(), onCpu, seconds * 1e3);
        std::printf("  memory: device arena %.2f MiB, weights %.2f MiB\n", mebibytes(m_executor->arenaBytes()),
                    mebibytes(m_executor->weightBytes()));
        std::printf("  transfers: %llu to the device (%.2f MiB), %llu back (%.2f MiB)\n",
                    static_cast<unsigned long long>(t.uploads), mebibytes(t.uploadBytes), static_cast<unsigned long long>(t.downloads),
                    mebibytes(t.downloadBytes));
        if (m_executor->lastRunWasGraph())
            std::printf("  launched as one CUDA Graph (captured on the second run)\n");
        else if (!m_executor->whyNoGraph().empty())
            std::printf("  no CUDA Graph: %s\n", m_executor->whyNoGraph().c_str());
        if (!withProfile)
            return;
        const auto peaks = runtime::cuda::measureDevicePeaks(m_precision);
        if (peaks)
            std::printf("  device peaks (measured): copy %.0f GB/s (the memory's rate on paper: %.0f GB/s), MatMul 4096^3 at %s "
                        "%.1f TFLOP/s\n",
                        peaks->copyBytesPerSecond / 1e9, peaks->memoryBytesPerSecond / 1e9, m_precision.c_str(),
                        peaks->matmulFlopsPerSecond / 1e12);
        else
            std::printf("  device peaks not measured: %s\n", peaks.error().format().c_str());
        auto byTime = nodes;
        std::stable_sort(byTime.begin(), byTime.end(), [](const auto &a, const auto &b) { return a.milliseconds > b.milliseconds; });
        std::printf("  profile (time per run, by node; GPU time from CUDA events, host time for the CPU's; what a "
                    "kernel moves and computes per second of it, and the shares of the peaks):\n");
        for (std::size_t i = 0; i < byTime.size() && i < 25; ++i) {
            const auto &n = byTime[i];
            const NodeRates r = ratesOf(n, peaks ? &*peaks : nullptr);
            std::printf("    %8.3f ms %8.0f GB/s %4.0f%% %8.0f GFLOP/s %4.0f%%  %-28s %-18s %-5s %s%s\n",
                        n.runs ? n.milliseconds / static_cast<double>(n.runs) : 0.0, r.bytesPerSecond / 1e9, 100 * r.bandwidthShare,
                        r.flopsPerSecond / 1e9, 100 * r.flopsShare, n.name.substr(0, 28).c_str(), n.opType.c_str(), n.precision.c_str(),
                        n.implementation.c_str(), n.whyPrecision.empty() ? "" : (" (" + n.whyPrecision + ")").c_str());
        }
        std::map<std::string, int> reasons;
        for (const auto &n : nodes)
            if (n.implementation == "cpu-fallback")
                ++reasons[n.opType + ": " + n.whyFallback];
        if (!reasons.empty())
            std::printf("  fallbacks to the CPU:\n");
        for (const auto &[reason, count] : reasons)
            std::printf("    %4d × %s\n", count, reason.c_str());
    }

    void writeJson(support::JsonWriter &w, bool withProfile) const override
    {
        const auto nodes = m_executor->lastNodes();
        const auto t = m_executor->lastTransfers();
        w.field("device", m_executor->deviceName()).field("precision", m_precision);
        w.field("nodes_run", static_cast<std::uint64_t>(nodes.size()))
            .field("fallback_nodes", static_cast<std::uint64_t>(std::count_if(
                                         nodes.begin(), nodes.end(), [](const auto &n) { return n.implementation == "cpu-fallback"; })));
        w.key("memory").beginObject().field("arena_bytes", static_cast<std::uint64_t>(m_executor->arenaBytes()))
            .field("weight_bytes", static_cast<std::uint64_t>(m_executor->weightBytes())).endObject();
        w.field("cuda_graph", m_executor->lastRunWasGraph());
        w.key("transfers").beginObject().field("uploads", t.uploads).field("upload_bytes", t.uploadBytes)
            .field("downloads", t.downloads).field("download_bytes", t.downloadBytes).endObject();
        if (!withProfile)
            return;
        const auto peaks = runtime::cuda::measureDevicePeaks(m_precision);
        if (peaks)
            w.key("device_peaks").beginObject().field("copy_bytes_per_s", peaks->copyBytesPerSecond)
                .field("memory_bytes_per_s", peaks->memoryBytesPerSecond).field("matmul_flops_per_s", peaks->matmulFlopsPerSecond).field("precision", peaks->precision).endObject();
        w.key("nodes").beginArray();
        for (const auto &n : nodes) {
            w.beginObject().field("name", n.name).field("op_type", n.opType).field("implementation", n.implementation);
            if (!n.whyFallback.empty())
                w.field("why_fallback", n.whyFallback);
            if (!n.precision.empty())
                w.field("precision", n.precision);
            if (!n.whyPrecision.empty())
                w.field("why_precision", n.whyPrecision);
            w.field("ms_per_run", n.runs ? n.milliseconds / static_cast<double>(n.runs) : 0.0)
                .field("flops", n.flops).field("bytes", n.bytes);
            if (peaks) {
                const NodeRates r = ratesOf(n, &*peaks);
                w.field("bandwidth_share", r.bandwidthShare).field("flops_share", r.flopsShare);
            }
            w.endObject();
        }
        w.endArray();
    }

private:
    std::unique_ptr<runtime::cuda::CudaExecutor> m_executor;
    std::string m_precision;
};

} // namespace

support::Expected<std::unique_ptr<GpuRun>> openGpuRun(const ir::Model &model, const GpuRunOptions &options)
{
    auto executor =
        runtime::cuda::CudaExecutor::create(model, {options.allowFallback, options.precision, options.keepFp32, options.calibration});
    if (!executor)
        return executor.takeError();
    (*executor)->setProfiling(options.profiling);
    return std::unique_ptr<GpuRun>(std::make_unique<CudaRun>(std::move(*executor), options.precision));
}

#else

support::Expected<std::unique_ptr<GpuRun>> openGpuRun(const ir::Model &model, const GpuRunOptions &)
{
    return support::makeError("no-cuda", "this build of Portolan has no CUDA executor (nvcc was not found when it was built)",
                              model.sourcePath);
}

#endif

} // namespace portolan::cli
