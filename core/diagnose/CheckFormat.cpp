#include "diagnose/CheckFormat.h"

#include "analysis/SummaryFormat.h"
#include "support/JsonWriter.h"

#include <algorithm>
#include <map>
#include <set>

namespace portolan::diagnose {

namespace {

constexpr std::size_t kNamesShown = 3;

/// "Resize ×3", or for a group of every op type "Add ×18, MatMul ×16, …".
std::string groupTitle(const ProblemGroup &g)
{
    if (!g.opType.empty())
        return (g.domain.empty() ? g.opType : g.domain + ":" + g.opType) + " ×" + std::to_string(g.nodes.size());
    std::map<std::string, std::size_t> counts;
    for (const NodeProblem &p : g.nodes)
        ++counts[p.opType];
    std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    std::string out;
    for (std::size_t i = 0; i < sorted.size() && i < 6; ++i)
        out += (i ? ", " : "") + sorted[i].first + " ×" + std::to_string(sorted[i].second);
    if (sorted.size() > 6)
        out += ", " + std::to_string(sorted.size() - 6) + " more op types";
    return out;
}

std::string nodeList(const ProblemGroup &g)
{
    std::string out;
    for (std::size_t i = 0; i < g.nodes.size() && i < kNamesShown; ++i)
        out += (i ? ", " : "") + g.nodes[i].nodeName + (g.nodes[i].graph == "main" ? "" : " (in " + g.nodes[i].graph + ")");
    if (g.nodes.size() > kNamesShown)
        out += " and " + std::to_string(g.nodes.size() - kNamesShown) + " more";
    return out;
}

std::string fixOutcome(const Fix &f, std::size_t groupSize)
{
    if (!f.tried)
        return {};
    if (!f.failure.empty())
        return " — tried: the pipeline failed: " + f.failure;
    std::string s = " — tried: fixes ";
    s += groupSize ? std::to_string(f.fixedNodes) + " of " + counted(groupSize, "node") : counted(f.fixedNodes, "node");
    if (!f.createdOps.empty()) {
        s += "; adds ";
        for (std::size_t i = 0; i < f.createdOps.size(); ++i)
            s += (i ? ", " : "") + f.createdOps[i];
    }
    s += "; " + counted(f.unsupportedAfter, "unsupported node") + " left in the model";
    return s;
}

void writeFix(support::JsonWriter &w, const Fix &f)
{
    w.beginObject();
    w.field("kind", fixKey(f.kind));
    w.field("pipeline", f.pipeline);
    w.field("summary", f.summary);
    w.field("tried", f.tried);
    if (f.tried) {
        w.field("failure", f.failure);
        w.field("fixedNodes", static_cast<std::uint64_t>(f.fixedNodes));
        w.field("unsupportedAfter", static_cast<std::uint64_t>(f.unsupportedAfter));
        w.key("createdOps").beginArray();
        for (const std::string &op : f.createdOps)
            w.value(op);
        w.endArray();
    }
    w.endObject();
}

} // namespace

std::string fixLine(const Fix &f, std::size_t groupSize)
{
    return (f.pipeline.empty() ? std::string(fixKey(f.kind)) : f.pipeline) + ": " + f.summary + fixOutcome(f, groupSize);
}

bool fixWorthShowing(const Fix &f)
{
    return !(f.ran() && f.fixedNodes == 0);
}

std::string checkText(const TargetCheck &c)
{
    std::string out = c.model + " on " + c.targetName + " (" + c.targetId + ")\n";
    out += "  profile from: " + c.source.document + ", " + c.source.version + (c.source.url.empty() ? "" : "\n    " + c.source.url) + "\n";
    out += "  dynamic shapes: ";
    out += c.dynamicShapes == DynamicShapes::Supported ? "supported"
           : c.dynamicShapes == DynamicShapes::Profile ? "supported with an optimization profile (min/opt/max dims)"
                                                       : "not supported: every dim must be fixed when compiling";
    out += "\n\n";
    if (c.supported())
        out += "All " + std::to_string(c.nodes) + " nodes can run on " + c.targetName + ".\n";
    else {
        std::set<Cause> causes;
        for (const ProblemGroup &g : c.groups)
            causes.insert(g.cause);
        out += std::to_string(c.unsupportedNodes) + " of " + counted(c.nodes, "node") + " cannot run on " + c.targetName;
        if (!causes.empty())
            out += " (" + std::to_string(causes.size()) + (causes.size() == 1 ? " cause" : " causes") + ")";
        out += ".\n";
    }
    for (const support::Diagnostic &d : c.modelFindings)
        out += std::string(support::severityName(d.severity)) + ": " + d.message + "\n";

    bool first = true;
    for (std::size_t i = 0; i < c.groups.size(); ++i) {
        const ProblemGroup &g = c.groups[i];
        if (first || c.groups[i - 1].cause != g.cause) {
            std::size_t count = 0;
            for (std::size_t j = i; j < c.groups.size() && c.groups[j].cause == g.cause; ++j)
                count += c.groups[j].nodes.size();
            out += "\n" + std::string(causeTitle(g.cause)) + " — " + std::to_string(count) + (count == 1 ? " node\n" : " nodes\n");
            first = false;
        }
        out += "  " + groupTitle(g) + ": " + nodeList(g) + "\n";
        std::set<std::string> shown;
        for (const NodeProblem &p : g.nodes)
            if (shown.size() < kNamesShown && shown.insert(p.detail).second)
                out += "      " + p.detail + "\n";
        if (!g.note.empty())
            out += "      note: " + g.note + "\n";
        std::size_t rank = 0;
        for (const Fix &f : g.fixes)
            if (fixWorthShowing(f)) // the JSON keeps the others
                out += "    " + std::to_string(++rank) + ". " + fixLine(f, g.nodes.size()) + "\n";
    }
    if (c.partitions.fallbackPartitions > 0) {
        const Partitioning &p = c.partitions;
        out += "\nWith a host fallback for every unsupported node: " + counted(p.targetPartitions, "target partition") +
               ", " + counted(p.fallbackPartitions, "host partition") + ", " + counted(p.crossingTensors, "tensor") +
               " crossing per run";
        if (p.crossingTensors > p.crossingUnsized)
            out += " (" + analysis::humanBytes(p.crossingBytes) + (p.crossingUnsized ? " of static size" : "") + ")";
        out += ".\n";
    }
    if (c.combined) {
        out += "\nNext: portolan optimize " + (c.model.empty() ? std::string("MODEL") : c.model) + " --pipeline '" +
               c.combined->pipeline + "' -o OUT.onnx" + fixOutcome(*c.combined, 0) + "\n";
    }
    return out;
}

std::string checkJson(const TargetCheck &c)
{
    support::JsonWriter w;
    w.beginObject();
    w.field("schemaVersion", kCheckJsonSchemaVersion);
    w.field("model", c.model);
    w.key("target").beginObject();
    w.field("id", c.targetId);
    w.field("name", c.targetName);
    w.field("dynamicShapes", dynamicShapesName(c.dynamicShapes));
    w.key("source").beginObject();
    w.field("document", c.source.document);
    w.field("version", c.source.version);
    w.field("url", c.source.url);
    w.endObject();
    w.endObject();
    w.field("supported", c.supported());
    w.field("nodes", static_cast<std::uint64_t>(c.nodes));
    w.field("unsupportedNodes", static_cast<std::uint64_t>(c.unsupportedNodes));
    w.key("modelFindings").beginArray();
    for (const support::Diagnostic &d : c.modelFindings)
        support::writeDiagnostic(w, d);
    w.endArray();
    w.key("groups").beginArray();
    for (const ProblemGroup &g : c.groups) {
        w.beginObject();
        w.field("cause", causeKey(g.cause));
        w.field("domain", g.domain);
        w.field("opType", g.opType);
        w.field("note", g.note);
        w.key("nodes").beginArray();
        for (const NodeProblem &p : g.nodes) {
            w.beginObject();
            w.field("name", p.nodeName);
            w.field("opType", p.opType);
            w.field("graph", p.graph);
            w.field("detail", p.detail);
            w.field("value", p.value);
            w.endObject();
        }
        w.endArray();
        w.key("fixes").beginArray();
        for (const Fix &f : g.fixes)
            writeFix(w, f);
        w.endArray();
        w.endObject();
    }
    w.endArray();
    w.key("partitions").beginObject();
    w.field("target", static_cast<std::uint64_t>(c.partitions.targetPartitions));
    w.field("fallback", static_cast<std::uint64_t>(c.partitions.fallbackPartitions));
    w.field("crossingTensors", static_cast<std::uint64_t>(c.partitions.crossingTensors));
    w.field("crossingBytes", c.partitions.crossingBytes);
    w.field("crossingUnsized", static_cast<std::uint64_t>(c.partitions.crossingUnsized));
    w.endObject();
    w.key("combined");
    if (c.combined)
        writeFix(w, *c.combined);
    else
        w.null();
    w.endObject();
    return w.str() + "\n";
}

} // namespace portolan::diagnose
