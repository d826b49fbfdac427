// The report's fields from the comparison, the models and the executor (see ReportBuilder.h).
#include "session/PortReportBuilder.h"

#include "compare/NodeHeat.h"
#include "compare/RunComparison.h"
#include "diagnose/CheckFormat.h"
#include "report/HeatThumbnail.h"
#include "support/StagedFile.h"

#include "support/Sha256.h"

#include <sys/utsname.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

namespace portolan::session {

namespace {

std::map<std::string, int> opHistogram(const ir::Model &model)
{
    std::map<std::string, int> ops;
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes)
        if (model.node(n).alive)
            ++ops[(model.node(n).domain.empty() ? "" : model.node(n).domain + "::") + model.node(n).opType];
    return ops;
}

std::size_t liveNodes(const ir::Model &model)
{
    std::size_t n = 0;
    for (const ir::NodeId id : model.graph(model.mainGraph()).nodes)
        n += model.node(id).alive;
    return n;
}

std::string sha256Of(const std::string &path)
{
    return support::sha256HexOfFile(path).value_or("unreadable");
}

/// The machine's architecture (uname -m).
std::string architecture()
{
    utsname names{};
    return uname(&names) == 0 ? std::string(names.machine) : std::string("unknown architecture");
}

/// The operating system as /etc/os-release names it ("Debian GNU/Linux 12 (bookworm)").
std::string operatingSystem()
{
    std::ifstream release("/etc/os-release");
    for (std::string line; std::getline(release, line);)
        if (line.starts_with("PRETTY_NAME=")) {
            std::string name = line.substr(12);
            if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
                name = name.substr(1, name.size() - 2);
            return name;
        }
    return "Linux";
}

std::string cpuName()
{
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; std::getline(info, line);)
        if (line.starts_with("model name")) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return architecture();
}

report::ReportTarget targetSummary(const diagnose::TargetCheck &c)
{
    report::ReportTarget t;
    t.id = c.targetId;
    t.name = c.targetName;
    t.source = c.source.document + ", " + c.source.version;
    t.nodes = c.nodes;
    t.unsupportedNodes = c.unsupportedNodes;
    for (const diagnose::ProblemGroup &g : c.groups) {
        report::ReportTargetGroup line;
        line.cause = diagnose::causeTitle(g.cause);
        line.opType = (g.domain.empty() ? "" : g.domain + ":") + g.opType;
        line.nodes = g.nodes.size();
        if (!g.nodes.empty())
            line.example = g.nodes.front().nodeName + ": " + g.nodes.front().detail;
        for (const diagnose::Fix &f : g.fixes)
            if (diagnose::fixWorthShowing(f)) {
                line.fix = diagnose::fixLine(f, g.nodes.size());
                break;
            }
        t.groups.push_back(std::move(line));
    }
    for (const support::Diagnostic &d : c.modelFindings)
        t.modelProblems.push_back(std::string(support::severityName(d.severity)) + ": " + d.message);
    t.fallbackPartitions = c.partitions.fallbackPartitions;
    t.crossingTensors = c.partitions.crossingTensors;
    if (c.combined && c.combined->ran()) {
        t.combinedPipeline = c.combined->pipeline;
        t.unsupportedAfterCombined = c.combined->unsupportedAfter;
    }
    return t;
}

/// B on a GPU: its memory, FLOPs and fallbacks as the compiled executor's are reported, and its profile.
void fillGpu(report::PortReport &r, const runtime::AcceleratorProfile &p)
{
    r.arenaBytes = p.arenaBytes;
    r.weightBytes = p.weightBytes;
    report::ReportGpu gpu;
    gpu.device = p.device;
    gpu.copyBytesPerSecond = p.copyBytesPerSecond;
    gpu.matmulFlopsPerSecond = p.matmulFlopsPerSecond;
    gpu.transferBytes = p.uploadBytes + p.downloadBytes;
    for (const runtime::AcceleratorNode &n : p.nodes) {
        r.flops += static_cast<std::uint64_t>(std::max<std::int64_t>(n.flops, 0));
        if (n.onHost()) {
            ++r.fallbacks[n.opType];
            gpu.hostMilliseconds += n.milliseconds;
        } else {
            gpu.deviceMilliseconds += n.milliseconds;
        }
    }
    for (const runtime::AcceleratorNode &n : p.byTime()) {
        if (n.milliseconds <= 0)
            break;
        const auto rates = p.ratesOf(n);
        gpu.kernels.push_back({n.name, n.opType, n.implementation, n.precision, n.milliseconds, rates.bandwidthShare, rates.flopsShare});
    }
    r.gpu = std::move(gpu);
}

} // namespace

report::PortReport buildPortReport(const ReportInputs &in)
{
    report::PortReport r;
    const compare::ComparisonResult &result = *in.result;
    r.model = in.modelPath;
    r.modelHash = sha256Of(in.modelPath);
    r.generatedBy = std::string("Portolan ") + PORTOLAN_VERSION;
    r.environment = cpuName() + ", " + std::to_string(std::thread::hardware_concurrency()) + " threads, " +
                    operatingSystem();
    r.runA = result.labelA;
    r.runB = result.labelB;
    r.pipeline = in.pipeline;
    r.precision = result.labelB.starts_with("cpu:") ? result.labelB.substr(4) : "fp32";
    r.nodesBefore = liveNodes(*in.modelA);
    r.nodesAfter = liveNodes(*in.modelB);
    r.opsBefore = opHistogram(*in.modelA);
    r.opsAfter = opHistogram(*in.modelB);
    r.tolerances = in.tolerances;
    r.passed = result.outputsPassed();
    r.verdict = compare::verdictName(result.outputsVerdict());
    for (const compare::ComparedTensor *t : result.outputs())
        r.outputs.push_back({t->name, t->metrics.passed && t->metrics.mismatch.empty(), compare::verdictName(t->verdict),
                             t->metrics.maxAbs, compare::normalizedError(*t),
                             t->metrics.cosine, t->metrics.snrDb, t->metrics.top1, t->metrics.top5});
    if (in.firstDivergence)
        r.firstDivergence = compare::producerWithOp(in.firstDivergence->node, in.firstDivergence->opType);
    for (const compare::Suspect &s : *in.suspects) {
        report::ReportSuspect line{s.tensor->node, s.tensor->opType, s.why, {}, s.error, s.introduced};
        if (const auto it = in.kernelChecks->find(&s); it != in.kernelChecks->end())
            line.verdict = it->second.explanation;
        r.suspects.push_back(std::move(line));
    }
    r.heatSvg = report::heatThumbnailSvg(*in.modelA, compare::nodeHeat(result, *in.modelA));
    for (const compare::ComparedTensor &t : result.tensors)
        r.layers.push_back({t.name, t.node, t.opType, compare::normalizedError(t), t.metrics.passed && t.metrics.mismatch.empty()});
    r.secondsA = result.secondsA;
    r.secondsB = result.secondsB;
    if (in.figures) {
        r.arenaBytes = in.figures->arenaBytes;
        r.weightBytes = in.figures->weightBytes;
        r.flops = in.figures->flops;
        r.fallbacks = in.figures->fallbacks;
    }
    if (in.accelerator)
        fillGpu(r, *in.accelerator);
    if (in.findings)
        r.findings = *in.findings;
    if (in.shapes)
        for (const diagnose::DimSource &d : in.shapes->sources)
            r.dynamicDims.push_back({d.label(), d.valuesReached, d.staticNodes.size(), d.suggestion});
    if (in.target)
        r.target = targetSummary(*in.target);
    return r;
}

support::Status writePortReport(const report::PortReport &report, const std::string &path, bool force, const PdfWriter &pdf)
{
    const std::string extension = std::filesystem::path(path).extension().string();
    if (extension != ".json" && extension != ".md" && extension != ".html" && extension != ".htm" && extension != ".pdf")
        return support::makeError("bad-report", "a report is .json, .md, .html or .pdf", path);
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !force)
        return support::makeError("file-exists", "already exists (use --force to replace it)", path);
    if (extension == ".pdf") {
        if (pdf)
            return pdf(report, path, force);
        return support::makeError("no-pdf", "this portolan was built without the GUI (PORTOLAN_BUILD_GUI=OFF), whose "
                                            "renderer writes PDFs: write .html and print it", path);
    }
    const std::string text = extension == ".json" ? report::reportJson(report)
                             : extension == ".md" ? report::reportMarkdown(report)
                                                  : report::reportHtml(report);
    return support::writeFileWhole(path, text, force ? support::Overwrite::Allow : support::Overwrite::Refuse);
}

} // namespace portolan::session
