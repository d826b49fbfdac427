// A run as JSON (see RunJson.h).
#include "session/RunJson.h"

#include "runtime/TensorStats.h"

#include <map>

namespace portolan::session {

namespace {

void writeValueStats(support::JsonWriter &w, const runtime::RuntimeValue &v)
{
    w.field("type", v.describe());
    if (!v.isTensor())
        return;
    const runtime::TensorStats s = runtime::tensorStats(v.tensor);
    if (!s.numeric)
        return;
    w.field("min", s.min).field("max", s.max).field("mean", s.mean).field("std", s.stddev);
    w.field("nan", s.nans).field("inf", s.infs);
}

void writeCpuJson(support::JsonWriter &w, const CpuRunRecord &cpu, bool withNodes)
{
    w.field("flops", static_cast<std::int64_t>(cpu.flops));
    w.field("nodes_run", static_cast<std::uint64_t>(cpu.nodes.size()))
        .field("fallback_nodes", static_cast<std::uint64_t>(cpu.fallbackCount()));
    w.key("memory").beginObject().field("arena_bytes", static_cast<std::uint64_t>(cpu.arenaBytes))
        .field("naive_bytes", static_cast<std::uint64_t>(cpu.naiveBytes))
        .field("live_peak_bytes", static_cast<std::uint64_t>(cpu.livePeakBytes))
        .field("fallback_peak_bytes", static_cast<std::uint64_t>(cpu.fallbackPeakBytes))
        .field("weight_bytes", static_cast<std::uint64_t>(cpu.weightBytes)).endObject();
    w.field("blocked_values", static_cast<std::uint64_t>(cpu.blockedValues));
    writePrecisionJson(w, cpu.nodes, cpu.policy);
    w.key("shape_plans").beginObject().field("compiled", static_cast<std::uint64_t>(cpu.stats.shapePlansCompiled))
        .field("cache_hits", static_cast<std::uint64_t>(cpu.stats.cacheHits))
        .field("compile_seconds", cpu.stats.compileSeconds).endObject();
    if (!withNodes)
        return;
    w.key("nodes").beginArray();
    for (const auto &n : cpu.nodes) {
        w.beginObject().field("name", n.name).field("op_type", n.opType).field("implementation", n.implementation);
        if (!n.whyFallback.empty() && n.implementation == "reference")
            w.field("why_fallback", n.whyFallback);
        w.field("precision", n.precision);
        if (!n.whyPrecision.empty())
            w.field("why_precision", n.whyPrecision);
        w.field("ms_per_run", n.runs ? n.seconds * 1e3 / static_cast<double>(n.runs) : 0.0).endObject();
    }
    w.endArray();
}

void writeAcceleratorJson(support::JsonWriter &w, const runtime::AcceleratorProfile &p, bool withNodes)
{
    w.field("device", p.device).field("precision", p.precision);
    w.field("nodes_run", static_cast<std::uint64_t>(p.nodes.size())).field("fallback_nodes", static_cast<std::uint64_t>(p.fallbackCount()));
    w.key("memory").beginObject().field("arena_bytes", p.arenaBytes).field("weight_bytes", p.weightBytes).endObject();
    w.field("cuda_graph", p.graphReplay);
    w.key("transfers").beginObject().field("uploads", p.uploads).field("upload_bytes", p.uploadBytes)
        .field("downloads", p.downloads).field("download_bytes", p.downloadBytes).endObject();
    if (!withNodes)
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

} // namespace

std::string executorText(const SideSpec &side)
{
    if (side.kind == SideSpec::Kind::Compiled)
        return side.executor == "cpu" || side.precision == "fp32" ? side.executor : side.label();
    return side.label();
}

void writePrecisionJson(support::JsonWriter &w, const std::vector<runtime::cpu::NodeProfile> &nodes,
                        const runtime::PrecisionPolicy &policy)
{
    std::map<std::string, std::uint64_t> counts;
    for (const auto &n : nodes)
        ++counts[n.precision];
    w.key("precision").beginObject().field("policy", runtime::precisionName(policy.precision));
    w.key("keep_fp32").beginArray();
    for (const runtime::KeepFp32Rule &rule : policy.keepFp32)
        w.value(rule.text);
    w.endArray();
    w.key("nodes").beginObject();
    for (const auto &[name, count] : counts)
        w.field(name, count);
    w.endObject();
    if (policy.calibration) {
        const runtime::CalibrationTable &table = *policy.calibration;
        w.key("calibration").beginObject().field("method", table.settings.describe()).field("batches", table.batches)
            .field("tensors", static_cast<std::uint64_t>(table.ranges.size())).endObject();
    }
    w.endObject();
}

std::string runJson(const RunOutcome &outcome)
{
    const RunRequest &request = outcome.request;
    const double seconds = outcome.medianSeconds();
    support::JsonWriter w;
    w.beginObject().field("model", outcome.modelPath).field("executor", executorText(request.executor))
        .field("pipeline", outcome.pipelineLabel).field("seconds", seconds);
    w.key("latency_ms").beginObject().field("min", outcome.latencies.front() * 1e3).field("median", seconds * 1e3)
        .field("max", outcome.latencies.back() * 1e3).field("runs", request.repeat).field("warmup", request.warmup).endObject();
    if (outcome.cpu)
        writeCpuJson(w, *outcome.cpu, request.profile);
    else if (outcome.accelerator)
        writeAcceleratorJson(w, *outcome.accelerator, request.profile);
    else
        w.field("nodes_run", static_cast<std::uint64_t>(outcome.reference.nodesRun))
            .field("peak_bytes", static_cast<std::uint64_t>(outcome.reference.peakBytes));
    w.key("outputs").beginArray();
    for (const auto &[name, value] : outcome.outputs) {
        w.beginObject().field("name", name);
        writeValueStats(w, value);
        w.endObject();
    }
    w.endArray().endObject();
    return w.str();
}

} // namespace portolan::session
