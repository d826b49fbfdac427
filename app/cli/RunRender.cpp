// Text output of run (see RunRender.h).
#include "cli/RunRender.h"

#include "support/TextColumn.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace portolan::cli {

namespace {

double mib(std::uint64_t bytes)
{
    return static_cast<double>(bytes) / (1 << 20);
}

const char *orNoPasses(const std::string &pipeline)
{
    return pipeline.empty() ? "no passes" : pipeline.c_str();
}

void printCpuSummary(const session::RunOutcome &outcome, const session::CpuRunRecord &cpu)
{
    const double seconds = outcome.medianSeconds();
    std::printf("Ran %s on the compiled CPU executor after %s: %zu nodes (%zu on reference kernels) in %.2f ms "
                "(%.3f GFLOP, %.1f GFLOP/s)\n",
                outcome.modelPath.c_str(), orNoPasses(outcome.pipelineLabel), cpu.nodes.size(), cpu.fallbackCount(), seconds * 1e3,
                static_cast<double>(cpu.flops) / 1e9, seconds > 0 ? static_cast<double>(cpu.flops) / 1e9 / seconds : 0.0);
    std::printf("  memory: arena %.2f MiB (allocate-per-tensor would take %.2f MiB, the live peak is %.2f MiB), "
                "fallback outputs peak %.2f MiB, weights %.2f MiB\n",
                mib(cpu.arenaBytes), mib(cpu.naiveBytes), mib(cpu.livePeakBytes), mib(cpu.fallbackPeakBytes), mib(cpu.weightBytes));
    if (cpu.blockedValues)
        std::printf("  layouts: %zu values stay in the convolutions' own layouts between them (no reorder)\n", cpu.blockedValues);
    if (cpu.policy.precision != runtime::Precision::Fp32) {
        std::vector<std::pair<std::string, std::string>> nodes;
        for (const auto &n : cpu.nodes)
            nodes.emplace_back(n.precision, n.whyPrecision);
        printPrecisionCounts(runtime::precisionName(cpu.policy.precision), nodes);
        if (const auto &table = cpu.policy.calibration)
            std::printf("  calibration: %s over %d batch(es), %zu tensors\n", table->settings.describe().c_str(), table->batches,
                        table->ranges.size());
    }
    std::printf("  shape plans: %zu compiled (%.3f s), %zu cache hits\n", cpu.stats.shapePlansCompiled, cpu.stats.compileSeconds,
                cpu.stats.cacheHits);
}

/// The nodes by time, most first, then the fallbacks with their reasons.
void printCpuProfile(const session::CpuRunRecord &cpu)
{
    std::vector<runtime::cpu::NodeProfile> nodes = cpu.nodes;
    double total = 0;
    for (const auto &n : nodes)
        total += n.seconds;
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto &a, const auto &b) { return a.seconds > b.seconds; });
    std::printf("  profile (time per run, by node):\n");
    for (std::size_t i = 0; i < nodes.size() && i < 25; ++i) {
        const auto &n = nodes[i];
        std::printf("    %8.3f ms %5.1f%%  %s %-22s %-4s %s\n", n.runs ? n.seconds * 1e3 / static_cast<double>(n.runs) : 0.0,
                    total > 0 ? 100 * n.seconds / total : 0.0, support::tailColumn(n.name, 40).c_str(), n.opType.c_str(),
                    n.precision.c_str(), n.implementation.c_str());
    }
    if (nodes.size() > 25)
        std::printf("    … %zu more nodes\n", nodes.size() - 25);
    std::map<std::string, int> reasons;
    for (const auto &n : nodes)
        if (n.implementation == "reference")
            ++reasons[n.opType + ": " + n.whyFallback];
    if (!reasons.empty())
        std::printf("  fallbacks to reference kernels:\n");
    for (const auto &[reason, count] : reasons)
        std::printf("    %4d × %s\n", count, reason.c_str());
}

void printAcceleratorSummary(const session::RunOutcome &outcome, const runtime::AcceleratorProfile &p, bool withProfile)
{
    std::printf("Ran %s on the CUDA executor (%s, %s) after %s: %zu nodes (%zu on the CPU) in %.2f ms\n", outcome.modelPath.c_str(),
                p.device.c_str(), p.precision.c_str(), orNoPasses(outcome.pipelineLabel), p.nodes.size(), p.fallbackCount(),
                outcome.medianSeconds() * 1e3);
    std::printf("  memory: device arena %.2f MiB, weights %.2f MiB\n", mib(p.arenaBytes), mib(p.weightBytes));
    std::printf("  transfers: %llu to the device (%.2f MiB), %llu back (%.2f MiB)\n", static_cast<unsigned long long>(p.uploads),
                mib(p.uploadBytes), static_cast<unsigned long long>(p.downloads), mib(p.downloadBytes));
    if (p.graphReplay)
        std::printf("  launched as one CUDA Graph (captured on the second run)\n");
    else if (!p.whyNoGraph.empty())
        std::printf("  no CUDA Graph: %s\n", p.whyNoGraph.c_str());
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

} // namespace

void printPrecisionCounts(const std::string &policy, const std::vector<std::pair<std::string, std::string>> &nodes)
{
    std::map<std::string, int> counts, reasons;
    for (const auto &[precision, why] : nodes) {
        if (precision.empty()) // a node that runs nothing (a constant)
            continue;
        ++counts[precision];
        if (precision == "fp32" && !why.empty())
            ++reasons[why];
    }
    std::string line;
    for (const auto &[name, count] : counts)
        line += (line.empty() ? "" : ", ") + std::to_string(count) + " " + name;
    std::printf("  precision %s policy, nodes: %s\n", policy.c_str(), line.c_str());
    for (const auto &[reason, count] : reasons)
        std::printf("    %4d at fp32: %s\n", count, reason.c_str());
}

void printRun(const session::RunOutcome &outcome)
{
    const session::RunRequest &request = outcome.request;
    const double seconds = outcome.medianSeconds();
    if (outcome.cpu)
        printCpuSummary(outcome, *outcome.cpu);
    else if (outcome.accelerator)
        printAcceleratorSummary(outcome, *outcome.accelerator, request.profile);
    else if (request.executor.kind == session::SideSpec::Kind::External)
        std::printf("Ran %s on the external command '%s' in %.3f s (writing the feeds, running it, reading what it wrote)\n",
                    outcome.modelPath.c_str(), request.executor.command.c_str(), seconds);
    else if (request.executor.kind == session::SideSpec::Kind::Compiled)
        std::printf("Ran %s on %s after %s in %.3f s\n", outcome.modelPath.c_str(), request.executor.label().c_str(),
                    orNoPasses(outcome.pipelineLabel), seconds);
    else
        std::printf("Ran %s on the reference interpreter%s: %zu nodes in %.3f s, peak %.1f MiB of live tensors\n",
                    outcome.modelPath.c_str(), outcome.pipelineLabel.empty() ? "" : (" after " + outcome.pipelineLabel).c_str(),
                    outcome.reference.nodesRun, seconds, mib(outcome.reference.peakBytes));
    if (request.repeat > 1)
        std::printf("  latency over %d runs (after %d warm-up): min %.2f ms, median %.2f ms, max %.2f ms\n", request.repeat,
                    request.warmup, outcome.latencies.front() * 1e3, seconds * 1e3, outcome.latencies.back() * 1e3);
    if (outcome.cpu && request.profile)
        printCpuProfile(*outcome.cpu);
    for (const auto &[name, value] : outcome.outputs) {
        std::printf("  %s  %s", name.c_str(), value.describe().c_str());
        if (value.isTensor()) {
            const auto s = runtime::tensorStats(value.tensor);
            if (s.numeric)
                std::printf("  min %.6g  max %.6g  mean %.6g  std %.6g%s", s.min, s.max, s.mean, s.stddev,
                            s.nans || s.infs ? ("  (" + std::to_string(s.nans) + " NaN, " + std::to_string(s.infs) + " Inf)").c_str() : "");
        }
        std::printf("\n");
    }
    if (!request.dumpDir.empty())
        std::printf("Dumped %zu intermediate tensors to %s\n", outcome.dumped, request.dumpDir.c_str());
}

} // namespace portolan::cli
