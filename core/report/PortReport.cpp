// The report's three writers over one PortReport.
#include "report/PortReport.h"

#include "compare/RunComparison.h"
#include "diagnose/TargetCheck.h"
#include "support/JsonWriter.h"
#include "support/NumberText.h"

#include <algorithm>
#include <cmath>

namespace portolan::report {

namespace {

using support::shortNumber;

/// "Outputs within tolerance", or out of it as drift or as a bug.
std::string outputsHeadline(const PortReport &r)
{
    if (r.passed)
        return "Outputs within tolerance";
    return r.verdict == "drift" ? "Outputs OUT OF TOLERANCE, as drift (no more than rounding explains)" : "Outputs OUT OF TOLERANCE: a bug";
}

std::string html(const std::string &text)
{
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

void jsonNumber(support::JsonWriter &w, const char *key, double v)
{
    if (std::isfinite(v))
        w.field(key, v);
    else
        w.field(key, shortNumber(v));
}

/// The ops whose count changed between the two models: "FusedConv 0 → 3".
std::vector<std::string> opChanges(const PortReport &r)
{
    std::map<std::string, std::pair<int, int>> all;
    for (const auto &[op, n] : r.opsBefore)
        all[op].first = n;
    for (const auto &[op, n] : r.opsAfter)
        all[op].second = n;
    std::vector<std::string> lines;
    for (const auto &[op, counts] : all)
        if (counts.first != counts.second)
            lines.push_back(op + " " + std::to_string(counts.first) + " → " + std::to_string(counts.second));
    return lines;
}

/// How many findings and dynamic-dim origins the page lists; the JSON has them all.
constexpr std::size_t kPageRows = 8;

/// The findings worth a line on the page: errors and warnings first, then notes, in model order.
std::vector<const support::Diagnostic *> pageFindings(const PortReport &r)
{
    std::vector<const support::Diagnostic *> rows;
    for (const support::Severity severity : {support::Severity::Error, support::Severity::Warning, support::Severity::Info})
        for (const support::Diagnostic &d : r.findings)
            if (d.severity == severity)
                rows.push_back(&d);
    return rows;
}

std::string findingPlace(const support::Diagnostic &d)
{
    return !d.node.empty() ? d.node : !d.value.empty() ? d.value : d.graph.empty() ? std::string("model") : d.graph;
}

/// "TensorRT 10: 3 of 120 nodes unsupported (…)": the target section's first line, in plain text.
std::string targetVerdict(const ReportTarget &t)
{
    std::string line = t.name + " (" + t.source + "): ";
    if (t.unsupportedNodes == 0 && t.modelProblems.empty())
        return line + "all " + std::to_string(t.nodes) + " nodes supported";
    line += std::to_string(t.unsupportedNodes) + " of " + std::to_string(t.nodes) + " nodes unsupported";
    if (t.unsupportedNodes > 0)
        line += "; with them on the host the model runs in " + diagnose::counted(t.fallbackPartitions, "fallback partition") +
                ", " + diagnose::counted(t.crossingTensors, "tensor") + " crossing each run";
    return line;
}

std::string combinedLine(const ReportTarget &t)
{
    return "portolan optimize -p '" + t.combinedPipeline + "' leaves " + std::to_string(t.unsupportedAfterCombined) +
           " unsupported";
}

void writeTargetJson(support::JsonWriter &w, const ReportTarget &t)
{
    w.beginObject().field("id", t.id).field("name", t.name).field("source", t.source)
        .field("nodes", static_cast<std::uint64_t>(t.nodes)).field("unsupported_nodes", static_cast<std::uint64_t>(t.unsupportedNodes));
    w.key("groups").beginArray();
    for (const ReportTargetGroup &g : t.groups)
        w.beginObject().field("cause", g.cause).field("op_type", g.opType).field("nodes", static_cast<std::uint64_t>(g.nodes))
            .field("example", g.example).field("fix", g.fix).endObject();
    w.endArray().key("model_problems").beginArray();
    for (const std::string &p : t.modelProblems)
        w.value(p);
    w.endArray().field("fallback_partitions", static_cast<std::uint64_t>(t.fallbackPartitions))
        .field("crossing_tensors", static_cast<std::uint64_t>(t.crossingTensors));
    if (t.combinedPipeline.empty())
        w.key("combined_fix").null();
    else
        w.key("combined_fix").beginObject().field("pipeline", t.combinedPipeline)
            .field("unsupported_after", static_cast<std::uint64_t>(t.unsupportedAfterCombined)).endObject();
    w.endObject();
}

/// A table as rows of cells, the header first: the "before it runs" sections, written once and
/// rendered as Markdown or HTML.
using Table = std::vector<std::vector<std::string>>;

Table targetTable(const ReportTarget &t)
{
    Table table{{"cause", "op", "nodes", "e.g.", "best fix"}};
    for (std::size_t i = 0; i < t.groups.size() && i < kPageRows; ++i) {
        const ReportTargetGroup &g = t.groups[i];
        table.push_back({g.cause, g.opType.empty() ? "(any)" : g.opType, std::to_string(g.nodes), g.example, g.fix});
    }
    return table;
}

Table dynamicTable(const PortReport &r)
{
    Table table{{"dynamic dim from", "values reached", "needing static", "what to do"}};
    for (std::size_t i = 0; i < r.dynamicDims.size() && i < kPageRows; ++i) {
        const ReportDynamicDim &d = r.dynamicDims[i];
        table.push_back({d.origin, std::to_string(d.valuesReached), std::to_string(d.staticNodes), d.suggestion});
    }
    return table;
}

Table findingsTable(const PortReport &r)
{
    Table table{{"severity", "code", "where", "finding"}};
    const auto rows = pageFindings(r);
    for (std::size_t i = 0; i < rows.size() && i < kPageRows; ++i)
        table.push_back({support::severityName(rows[i]->severity), rows[i]->code, findingPlace(*rows[i]), rows[i]->message});
    return table;
}

/// "…and 4 more (in the JSON report)" when the page left rows out.
std::string moreRows(std::size_t total)
{
    return total > kPageRows ? "…and " + std::to_string(total - kPageRows) + " more (the JSON report lists them all)." : "";
}

std::string markdownTable(const Table &table)
{
    std::string md;
    for (std::size_t row = 0; row < table.size(); ++row) {
        for (const std::string &cell : table[row]) {
            std::string escaped;
            for (const char c : cell)
                escaped += c == '|' ? std::string("\\|") : std::string(1, c);
            md += "| " + escaped + " ";
        }
        md += "|\n";
        if (row == 0) {
            for (std::size_t i = 0; i < table[0].size(); ++i)
                md += "|---";
            md += "|\n";
        }
    }
    return md;
}

std::string htmlTable(const Table &table)
{
    std::string out = "<table width=\"100%\">";
    for (std::size_t row = 0; row < table.size(); ++row) {
        out += "<tr>";
        for (const std::string &cell : table[row])
            out += (row == 0 ? "<th>" : "<td>") + html(cell) + (row == 0 ? "</th>" : "</td>");
        out += "</tr>";
    }
    return out + "</table>";
}

/// The "before it runs" section in either format: `heading` and `paragraph` wrap text, `table` a table.
template <typename Heading, typename Paragraph, typename TableWriter>
std::string beforeItRuns(const PortReport &r, Heading heading, Paragraph paragraph, TableWriter table)
{
    std::string out = heading("Before it runs");
    if (r.target) {
        const ReportTarget &t = *r.target;
        out += paragraph("Target " + targetVerdict(t) + ".");
        for (const std::string &problem : t.modelProblems)
            out += paragraph(problem);
        if (!t.groups.empty())
            out += table(targetTable(t)) + paragraph(moreRows(t.groups.size()));
        if (!t.combinedPipeline.empty())
            out += paragraph("All the pass fixes together: " + combinedLine(t) + ".");
    } else {
        out += paragraph("No target was checked (report --target T adds one: portolan check --list-targets).");
    }
    if (r.dynamicDims.empty())
        out += paragraph("Every dim is static.");
    else
        out += table(dynamicTable(r)) + paragraph(moreRows(r.dynamicDims.size()));
    const std::size_t errors = static_cast<std::size_t>(std::count_if(r.findings.begin(), r.findings.end(), [](const support::Diagnostic &d) {
        return d.severity == support::Severity::Error;
    }));
    if (r.findings.empty())
        out += paragraph("Findings: none (ONNX checker, shape inference, export pitfalls).");
    else
        out += paragraph("Findings (ONNX checker, shape inference, export pitfalls): " + std::to_string(r.findings.size()) + ", " +
                         std::to_string(errors) + " error" + (errors == 1 ? "" : "s") + ".") +
               table(findingsTable(r)) + paragraph(moreRows(r.findings.size()));
    return out;
}

Table gpuTable(const ReportGpu &gpu)
{
    Table table{{"node", "op", "kernel", "precision", "ms", "of copy bandwidth", "of MatMul rate"}};
    const auto share = [&](double s, double peak) { return peak > 0 ? shortNumber(100 * s) + "%" : std::string("—"); };
    for (std::size_t i = 0; i < gpu.kernels.size() && i < kPageRows; ++i) {
        const ReportKernel &k = gpu.kernels[i];
        table.push_back({k.node, k.opType, k.implementation, k.precision, shortNumber(k.milliseconds),
                         share(k.bandwidthShare, gpu.copyBytesPerSecond), share(k.flopsShare, gpu.matmulFlopsPerSecond)});
    }
    return table;
}

/// Run B's GPU profile in either format (nothing when B did not run on a GPU).
template <typename Heading, typename Paragraph, typename TableWriter>
std::string gpuSection(const PortReport &r, Heading heading, Paragraph paragraph, TableWriter table)
{
    if (!r.gpu)
        return {};
    const ReportGpu &g = *r.gpu;
    std::string line = "On " + g.device + ": kernels " + shortNumber(g.deviceMilliseconds) + " ms, CPU fallbacks " +
                       shortNumber(g.hostMilliseconds) + " ms, transfers " + shortNumber(static_cast<double>(g.transferBytes) / (1 << 20)) +
                       " MiB a run.";
    if (g.copyBytesPerSecond > 0)
        line += " Measured peaks: copy " + shortNumber(g.copyBytesPerSecond / 1e9) + " GB/s, MatMul " +
                shortNumber(g.matmulFlopsPerSecond / 1e12) + " TFLOP/s.";
    return heading("GPU profile") + paragraph(line) + table(gpuTable(g)) + paragraph(moreRows(g.kernels.size()));
}

} // namespace

std::string reportJson(const PortReport &r)
{
    support::JsonWriter w;
    w.beginObject().field("schema", "portolan-port-report").field("schema_version", PortReport::kSchemaVersion);
    w.field("generated_by", r.generatedBy).field("environment", r.environment);
    w.key("model").beginObject().field("path", r.model).field("sha256", r.modelHash)
        .field("nodes_before", static_cast<std::uint64_t>(r.nodesBefore)).field("nodes_after", static_cast<std::uint64_t>(r.nodesAfter));
    w.key("ops_before").beginObject();
    for (const auto &[op, n] : r.opsBefore)
        w.field(op, n);
    w.endObject().key("ops_after").beginObject();
    for (const auto &[op, n] : r.opsAfter)
        w.field(op, n);
    w.endObject().endObject();
    w.field("run_a", r.runA).field("run_b", r.runB).field("pipeline", r.pipeline).field("precision", r.precision);
    w.key("fallbacks").beginObject();
    for (const auto &[op, n] : r.fallbacks)
        w.field(op, n);
    w.endObject();
    w.field("tolerances", r.tolerances).field("passed", r.passed).field("verdict", r.verdict);
    w.key("outputs").beginArray();
    for (const ReportOutput &o : r.outputs) {
        w.beginObject().field("name", o.name).field("passed", o.passed).field("verdict", o.verdict);
        jsonNumber(w, "max_abs", o.maxAbs);
        jsonNumber(w, "normalized_error", o.normalizedError);
        jsonNumber(w, "cosine", o.cosine);
        jsonNumber(w, "snr_db", o.snrDb);
        if (o.top1)
            w.field("top1", *o.top1).field("top5", *o.top5);
        w.endObject();
    }
    w.endArray();
    if (r.firstDivergence.empty())
        w.key("first_divergence").null();
    else
        w.field("first_divergence", r.firstDivergence);
    w.key("suspects").beginArray();
    for (const ReportSuspect &s : r.suspects) {
        w.beginObject().field("node", s.node).field("op_type", s.opType).field("introduced", s.introduced).field("why", s.why);
        jsonNumber(w, "error", s.error);
        if (!s.verdict.empty())
            w.field("verdict", s.verdict);
        w.endObject();
    }
    w.endArray();
    w.key("layers").beginArray();
    for (const ReportLayer &l : r.layers) {
        w.beginObject().field("tensor", l.tensor).field("node", l.node).field("op_type", l.opType).field("passed", l.passed);
        jsonNumber(w, "error", l.error);
        w.endObject();
    }
    w.endArray();
    w.key("performance").beginObject().field("seconds_a", r.secondsA).field("seconds_b", r.secondsB)
        .field("arena_bytes", r.arenaBytes).field("weight_bytes", r.weightBytes).field("flops", r.flops).endObject();
    if (r.gpu) {
        const ReportGpu &g = *r.gpu;
        w.key("gpu").beginObject().field("device", g.device).field("copy_bytes_per_s", g.copyBytesPerSecond)
            .field("matmul_flops_per_s", g.matmulFlopsPerSecond).field("device_ms", g.deviceMilliseconds)
            .field("host_ms", g.hostMilliseconds).field("transfer_bytes", g.transferBytes).key("kernels").beginArray();
        for (const ReportKernel &k : g.kernels)
            w.beginObject().field("node", k.node).field("op_type", k.opType).field("implementation", k.implementation)
                .field("precision", k.precision).field("ms", k.milliseconds).field("bandwidth_share", k.bandwidthShare)
                .field("flops_share", k.flopsShare).endObject();
        w.endArray().endObject();
    } else {
        w.key("gpu").null();
    }
    if (r.target)
        writeTargetJson(w.key("target"), *r.target);
    else
        w.key("target").null();
    w.key("dynamic_dims").beginArray();
    for (const ReportDynamicDim &d : r.dynamicDims)
        w.beginObject().field("origin", d.origin).field("values_reached", static_cast<std::uint64_t>(d.valuesReached))
            .field("static_nodes", static_cast<std::uint64_t>(d.staticNodes)).field("suggestion", d.suggestion).endObject();
    w.endArray().key("findings").beginArray();
    for (const support::Diagnostic &d : r.findings)
        support::writeDiagnostic(w, d);
    w.endArray();
    w.endObject();
    return w.str() + "\n";
}

std::string reportMarkdown(const PortReport &r)
{
    std::string md = "# Port report: " + r.model + "\n\n";
    md += "**" + outputsHeadline(r) + "** — " + r.runB + " against " + r.runA + (r.pipeline.empty() ? "" : " (after " + r.pipeline + ")") +
          ", " + r.tolerances + ".\n\n";
    md += "| output | verdict | max abs error | of scale | cosine | SNR dB | top-1 | top-5 |\n|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const ReportOutput &o : r.outputs)
        md += "| " + o.name + " | " + o.verdict + " | " + shortNumber(o.maxAbs) + " | " + shortNumber(o.normalizedError) +
              " | " + shortNumber(o.cosine) + " | " + shortNumber(o.snrDb) + " | " + (o.top1 ? shortNumber(*o.top1) : "—") + " | " +
              (o.top5 ? shortNumber(*o.top5) : "—") + " |\n";
    md += "\n**First divergence:** " + (r.firstDivergence.empty() ? std::string("none") : r.firstDivergence) + "\n\n";
    if (!r.suspects.empty()) {
        md += "| suspect | op | error | why | re-run alone |\n|---|---|---:|---|---|\n";
        for (const ReportSuspect &s : r.suspects)
            md += "| " + s.node + " | " + s.opType + " | " + shortNumber(s.error) + " | " + s.why + " | " + s.verdict + " |\n";
        md += "\n";
    }
    md += "**Model:** " + std::to_string(r.nodesBefore) + " nodes → " + std::to_string(r.nodesAfter) + " after the passes";
    for (const std::string &change : opChanges(r))
        md += "; " + change;
    md += ".\n\n**Fallbacks:** ";
    if (r.fallbacks.empty())
        md += "none";
    for (const auto &[op, n] : r.fallbacks)
        md += op + " ×" + std::to_string(n) + " ";
    md += "\n\n" + beforeItRuns(
              r, [](const std::string &h) { return "## " + h + "\n\n"; },
              [](const std::string &p) { return p.empty() ? p : p + "\n\n"; },
              [](const Table &t) { return markdownTable(t) + "\n"; });
    md += "**Speed and memory:** " + r.runA + " " + shortNumber(r.secondsA * 1e3) + " ms, " + r.runB + " " + shortNumber(r.secondsB * 1e3) +
          " ms; arena " + shortNumber(static_cast<double>(r.arenaBytes) / (1 << 20)) + " MiB, weights " +
          shortNumber(static_cast<double>(r.weightBytes) / (1 << 20)) + " MiB, " + shortNumber(static_cast<double>(r.flops) / 1e9) + " GFLOP.\n\n";
    md += gpuSection(
        r, [](const std::string &h) { return "## " + h + "\n\n"; }, [](const std::string &p) { return p.empty() ? p : p + "\n\n"; },
        [](const Table &t) { return markdownTable(t) + "\n"; });
    md += "*" + r.generatedBy + " · " + r.environment + " · model sha256 " + r.modelHash + "*\n";
    return md;
}

// The strip chart: one bar per compared tensor, its height log10 of the error over 1e-9..1.
std::string errorStripSvg(const PortReport &r)
{
    const double width = kStripWidth, height = kStripHeight - 20;
    const double bar = r.layers.empty() ? 0 : width / static_cast<double>(r.layers.size());
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + shortNumber(width) + "\" height=\"" + shortNumber(height + 20) +
                      "\" viewBox=\"0 0 " + shortNumber(width) + " " + shortNumber(height + 20) + "\" role=\"img\" aria-label=\"error per layer\">";
    svg += "<rect width=\"" + shortNumber(width) + "\" height=\"" + shortNumber(height) + "\" fill=\"#f6f6f6\"/>";
    for (const int decade : {-9, -6, -3, 0}) {
        const double y = height * (1 - (decade + 9) / 9.0);
        svg += "<line x1=\"0\" x2=\"" + shortNumber(width) + "\" y1=\"" + shortNumber(y) + "\" y2=\"" + shortNumber(y) +
               "\" stroke=\"#ddd\"/><text x=\"2\" y=\"" + shortNumber(std::max(10.0, y - 2)) + "\" font-size=\"9\" fill=\"#888\">1e" +
               std::to_string(decade) + "</text>";
    }
    for (std::size_t i = 0; i < r.layers.size(); ++i) {
        const ReportLayer &l = r.layers[i];
        const double level = l.error > 0 ? std::clamp((std::log10(l.error) + 9) / 9, 0.02, 1.0) : 0.0;
        const double h = height * level;
        svg += "<rect x=\"" + shortNumber(static_cast<double>(i) * bar) + "\" y=\"" + shortNumber(height - h) + "\" width=\"" +
               shortNumber(std::max(1.0, bar - 1)) + "\" height=\"" + shortNumber(h) + "\" fill=\"" + (l.passed ? "#4a7ab5" : "#c8423b") +
               "\"><title>" + html(compare::producerWithOp(l.node, l.opType) + ": " + shortNumber(l.error)) + "</title></rect>";
    }
    svg += "<text x=\"0\" y=\"" + shortNumber(height + 14) + "\" font-size=\"10\" fill=\"#555\">compared tensors in run order; "
           "height: max |error| / scale, log scale; red: out of tolerance</text></svg>";
    return svg;
}

std::string reportHtml(const PortReport &r, const HtmlImages &images)
{
    std::string body = "<h1>Port report: " + html(r.model) + "</h1>";
    body += std::string("<p class=\"") + (r.passed ? "ok" : "bad") + "\"><b>" +
            html(outputsHeadline(r)) + "</b> — " + html(r.runB) + " against " + html(r.runA) +
            (r.pipeline.empty() ? "" : " (after " + html(r.pipeline) + ")") + ", " + html(r.tolerances) + "</p>";
    body += "<table width=\"100%\"><tr><th>output</th><th>verdict</th><th>max abs error</th><th>of scale</th><th>cosine</th><th>SNR dB</th>"
            "<th>top-1</th><th>top-5</th></tr>";
    for (const ReportOutput &o : r.outputs)
        body += "<tr><td>" + html(o.name) + "</td><td>" + (o.passed ? o.verdict : "<b>" + o.verdict + "</b>") + "</td><td>" + shortNumber(o.maxAbs) +
                "</td><td>" + shortNumber(o.normalizedError) + "</td><td>" + shortNumber(o.cosine) + "</td><td>" + shortNumber(o.snrDb) +
                "</td><td>" + (o.top1 ? shortNumber(*o.top1) : "—") + "</td><td>" + (o.top5 ? shortNumber(*o.top5) : "—") + "</td></tr>";
    body += "</table><h2>Where the error starts</h2><p>First divergence: <b>" +
            html(r.firstDivergence.empty() ? std::string("none") : r.firstDivergence) + "</b></p>" +
            (images.strip.empty() ? errorStripSvg(r)
                                  : "<p><img src=\"" + html(images.strip) + "\" width=\"" + std::to_string(images.width) + "\" height=\"" +
                                        std::to_string(images.width * kStripHeight / kStripWidth) + "\"></p>");
    if (!r.heatSvg.empty())
        body += images.heat.empty() ? "<p>" + r.heatSvg + "</p>"
                                    : "<p><img src=\"" + html(images.heat) + "\" width=\"" + std::to_string(images.width) +
                                          "\" height=\"" + std::to_string(images.heatHeight) + "\"></p>";
    if (!r.suspects.empty()) {
        body += "<table width=\"100%\"><tr><th>suspect</th><th>op</th><th>error</th><th>why</th><th>re-run alone</th></tr>";
        for (const ReportSuspect &s : r.suspects)
            body += "<tr><td>" + html(s.node) + "</td><td>" + html(s.opType) + "</td><td>" + shortNumber(s.error) + "</td><td>" +
                    html(s.why) + "</td><td>" + html(s.verdict) + "</td></tr>";
        body += "</table>";
    }
    body += "<h2>Compile</h2><p>" + std::to_string(r.nodesBefore) + " nodes → " + std::to_string(r.nodesAfter) + " after " +
            html(r.pipeline.empty() ? std::string("no passes") : r.pipeline) + ". Op counts that changed: ";
    const std::vector<std::string> changes = opChanges(r);
    for (std::size_t i = 0; i < changes.size(); ++i)
        body += (i ? " · " : "") + html(changes[i]);
    body += std::string(changes.empty() ? "none" : "") + ".</p><p>Fallbacks to reference kernels: ";
    if (r.fallbacks.empty())
        body += "none";
    for (const auto &[op, n] : r.fallbacks)
        body += html(op) + " ×" + std::to_string(n) + " ";
    body += "</p>" + beforeItRuns(
                r, [](const std::string &h) { return "<h2>" + html(h) + "</h2>"; },
                [](const std::string &p) { return p.empty() ? p : "<p>" + html(p) + "</p>"; }, htmlTable);
    body += "<h2>Speed and memory</h2><p>" + html(r.runA) + " " + shortNumber(r.secondsA * 1e3) + " ms; " + html(r.runB) + " " +
            shortNumber(r.secondsB * 1e3) + " ms; arena " + shortNumber(static_cast<double>(r.arenaBytes) / (1 << 20)) + " MiB; weights " +
            shortNumber(static_cast<double>(r.weightBytes) / (1 << 20)) + " MiB; " + shortNumber(static_cast<double>(r.flops) / 1e9) +
            " GFLOP</p>" +
            gpuSection(
                r, [](const std::string &h) { return "<h2>" + html(h) + "</h2>"; },
                [](const std::string &p) { return p.empty() ? p : "<p>" + html(p) + "</p>"; }, htmlTable) +
            "<p class=\"foot\">" + html(r.generatedBy) + " · " + html(r.environment) + " · model sha256 " + html(r.modelHash) + "</p>";
    return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Port report: " + html(r.model) +
           "</title><style>body{font-family:system-ui,sans-serif;font-size:9pt;max-width:760px;margin:24px auto;color:#222}"
           "h1{font-size:14pt}h2{font-size:11pt;margin-top:10pt}"
           "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
           ".ok{color:#26734d}.bad{color:#b3261e}.foot{color:#777;font-size:8pt}</style></head><body>" +
           body + "</body></html>\n";
}

} // namespace portolan::report
