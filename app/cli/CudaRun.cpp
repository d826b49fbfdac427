// `portolan run --executor cuda` (see CudaRun.h).
#include "cli/CudaRun.h"

#ifdef PORTOLAN_HAVE_CUDA
#include "runtime/cuda/CudaExecutor.h"

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
        auto byTime = nodes;
        std::stable_sort(byTime.begin(), byTime.end(), [](const auto &a, const auto &b) { return a.milliseconds > b.milliseconds; });
        std::printf("  profile (time per run, by node; GPU time from CUDA events, host time for the CPU's; what a "
                    "kernel moves and computes per second of it):\n");
        for (std::size_t i = 0; i < byTime.size() && i < 25; ++i) {
            const auto &n = byTime[i];
            const double ms = n.runs ? n.milliseconds / static_cast<double>(n.runs) : 0.0;
            const double seconds = ms * 1e-3;
            std::printf("    %8.3f ms %8.0f GB/s %8.0f GFLOP/s  %-28s %-18s %s\n", ms,
                        seconds > 0 ? static_cast<double>(n.bytes) / seconds / 1e9 : 0.0,
                        seconds > 0 ? static_cast<double>(n.flops) / seconds / 1e9 : 0.0, n.name.substr(0, 28).c_str(),
                        n.opType.c_str(), n.implementation.c_str());
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
        w.key("nodes").beginArray();
        for (const auto &n : nodes) {
            w.beginObject().field("name", n.name).field("op_type", n.opType).field("implementation", n.implementation);
            if (!n.whyFallback.empty())
                w.field("why_fallback", n.whyFallback);
            w.field("ms_per_run", n.runs ? n.milliseconds / static_cast<double>(n.runs) : 0.0)
                .field("flops", n.flops).field("bytes", n.bytes).endObject();
        }
        w.endArray();
    }

private:
    std::unique_ptr<runtime::cuda::CudaExecutor> m_executor;
    std::string m_precision;
};

} // namespace

support::Expected<std::unique_ptr<GpuRun>> openGpuRun(const ir::Model &model, const std::string &precision, bool allowFallback,
                                                      bool profiling)
{
    auto executor = runtime::cuda::CudaExecutor::create(model, {allowFallback, precision});
    if (!executor)
        return executor.takeError();
    (*executor)->setProfiling(profiling);
    return std::unique_ptr<GpuRun>(std::make_unique<CudaRun>(std::move(*executor), precision));
}

#else

support::Expected<std::unique_ptr<GpuRun>> openGpuRun(const ir::Model &model, const std::string &, bool, bool)
{
    return support::makeError("no-cuda", "this build of Portolan has no CUDA executor (nvcc was not found when it was built)",
                              model.sourcePath);
}

#endif

} // namespace portolan::cli
