// `portolan run --executor cuda` (see CudaRun.h).
#include "cli/CudaRun.h"

#ifdef PORTOLAN_HAVE_CUDA
#include "cli/PrecisionOptions.h"
#include "runtime/cuda/CudaExecutor.h"
#include "support/TextColumn.h"

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

class CudaRun final : public GpuRun {
public:
    explicit CudaRun(std::unique_ptr<runtime::cuda::CudaExecutor> executor) : m_executor(std::move(executor)) {}

    support::Expected<runtime::NamedValues> run(const runtime::NamedValues &feeds, const runtime::RunOptions &options) override
    {
        return m_executor->run(feeds, options);
    }

    runtime::AcceleratorProfile profile(bool withPeaks) const override { return m_executor->lastProfile(withPeaks); }

    void printSummary(const std::string &path, const std::string &pipeline, double seconds, bool withProfile) const override
    {
        const runtime::AcceleratorProfile p = profile(withProfile);
        std::printf("Ran %s on the CUDA executor (%s, %s) after %s: %zu nodes (%zu on the CPU) in %.2f ms\n", path.c_str(),
                    p.device.c_str(), p.precision.c_str(), pipeline.empty() ? "no passes" : pipeline.c_str(), p.nodes.size(),
                    p.fallbackCount(), seconds * 1e3);
        std::printf("  memory: device arena %.2f MiB, weights %.2f MiB\n", mebibytes(p.arenaBytes), mebibytes(p.weightBytes));
        std::printf("  transfers: %llu to the device (%.2f MiB), %llu back (%.2f MiB)\n", static_cast<unsigned long long>(p.uploads),
                    mebibytes(p.uploadBytes), static_cast<unsigned long long>(p.downloads), mebibytes(p.downloadBytes));
        if (p.graphReplay)
            std::printf("  launched as one CUDA Graph (captured on the second run)\n");
        else if (!m_executor->whyNoGraph().empty())
            std::printf("  no CUDA Graph: %s\n", m_executor->whyNoGraph().c_str());
        if (p.precision != "fp32") {
            std::vector<std::pair<std::string, std::string>> precisions;
            for (const auto &n : p.nodes)
                precisions.emplace_back(n.precision, n.whyPrecision);
            printPrecisionCounts(p.precision, precisions);
        }
        if (!withProfile)
            return;
        if (p.whyNoPeaks.empty())
            std::printf("  device peaks (measured): copy %.0f GB/s (the memory's rate on paper: %.0f GB/s), MatMul 4096^3 at %s "
                        "%.1f TFLOP/s\n",
                        p.copyBytesPerSecond / 1e9, p.memoryBytesPerSecond / 1e9, p.precision.c_str(), p.matmulFlopsPerSecond / 1e12);
        else
            std::printf("  device peaks not measured: %s\n", p.whyNoPeaks.c_str());
        const auto byTime = p.byTime();
        std::printf("  profile (time per run, by node; GPU time from CUDA events, host time for the CPU's; what a "
                    "kernel moves and computes per second of it, and the shares of the peaks):\n");
        for (std::size_t i = 0; i < byTime.size() && i < 25; ++i) {
            const auto &n = byTime[i];
            const auto r = p.ratesOf(n);
            std::printf("    %8.3f ms %8.0f GB/s %4.0f%% %8.0f GFLOP/s %4.0f%%  %s %-22s %-5s %s%s\n", n.milliseconds,
                        r.bytesPerSecond / 1e9, 100 * r.bandwidthShare, r.flopsPerSecond / 1e9, 100 * r.flopsShare,
                        support::tailColumn(n.name, 40).c_str(), n.opType.c_str(), n.precision.c_str(), n.implementation.c_str(),
                        n.whyPrecision.empty() ? "" : (" (" + n.whyPrecision + ")").c_str());
        }
        std::map<std::string, int> reasons;
        for (const auto &n : p.nodes)
            if (n.onHost())
                ++reasons[n.opType + ": " + n.whyFallback];
        if (!reasons.empty())
            std::printf("  fallbacks to the CPU:\n");
        for (const auto &[reason, count] : reasons)
            std::printf("    %4d × %s\n", count, reason.c_str());
    }

    void writeJson(support::JsonWriter &w, bool withProfile) const override
    {
        const runtime::AcceleratorProfile p = profile(withProfile);
        w.field("device", p.device).field("precision", p.precision);
        w.field("nodes_run", static_cast<std::uint64_t>(p.nodes.size())).field("fallback_nodes", static_cast<std::uint64_t>(p.fallbackCount()));
        w.key("memory").beginObject().field("arena_bytes", p.arenaBytes).field("weight_bytes", p.weightBytes).endObject();
        w.field("cuda_graph", p.graphReplay);
        w.key("transfers").beginObject().field("uploads", p.uploads).field("upload_bytes", p.uploadBytes)
            .field("downloads", p.downloads).field("download_bytes", p.downloadBytes).endObject();
        if (!withProfile)
            return;
        const bool peaks = p.whyNoPeaks.empty();
        if (peaks)
            w.key("device_peaks").beginObject().field("copy_bytes_per_s", p.copyBytesPerSecond)
                .field("memory_bytes_per_s", p.memoryBytesPerSecond).field("matmul_flops_per_s", p.matmulFlopsPerSecond)
                .field("precision", p.precision).endObject();
        w.key("nodes").beginArray();
        for (const auto &n : p.nodes) {
            w.beginObject().field("name", n.name).field("op_type", n.opType).field("implementation", n.implementation);
            if (!n.whyFallback.empty())
                w.field("why_fallback", n.whyFallback);
            if (!n.precision.empty())
                w.field("precision", n.precision);
            if (!n.whyPrecision.empty())
                w.field("why_precision", n.whyPrecision);
            w.field("ms_per_run", n.milliseconds).field("flops", n.flops).field("bytes", n.bytes);
            if (peaks) {
                const auto r = p.ratesOf(n);
                w.field("bandwidth_share", r.bandwidthShare).field("flops_share", r.flopsShare);
            }
            w.endObject();
        }
        w.endArray();
    }

private:
    std::unique_ptr<runtime::cuda::CudaExecutor> m_executor;
};

} // namespace

support::Expected<std::unique_ptr<GpuRun>> openGpuRun(const ir::Model &model, const GpuRunOptions &options)
{
    auto executor =
        runtime::cuda::CudaExecutor::create(model, {options.allowFallback, options.precision, options.keepFp32, options.calibration});
    if (!executor)
        return executor.takeError();
    (*executor)->setProfiling(options.profiling);
    return std::unique_ptr<GpuRun>(std::make_unique<CudaRun>(std::move(*executor)));
}

#else

support::Expected<std::unique_ptr<GpuRun>> openGpuRun(const ir::Model &model, const GpuRunOptions &)
{
    return support::makeError("no-cuda", "this build of Portolan has no CUDA executor (nvcc was not found when it was built)",
                              model.sourcePath);
}

#endif

} // namespace portolan::cli
