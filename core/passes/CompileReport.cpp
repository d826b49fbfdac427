// JSON and text renderings of a pipeline run.
#include "passes/CompileReport.h"

#include "ir/NameScopes.h"
#include "support/JsonWriter.h"

#include <cstdio>

namespace portolan::passes {

std::map<std::string, int> opHistogram(const ir::Model &model)
{
    std::map<std::string, int> out;
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes) {
        const ir::Node &node = model.node(n);
        if (node.alive)
            ++out[node.domain.empty() || node.domain == "ai.onnx" ? node.opType : node.domain + "::" + node.opType];
    }
    return out;
}

// "Conv 'conv1'" or "Conv #12" (removed nodes stay in the arena, so their names are still there).
static std::string describeNode(const ir::Model &model, ir::NodeId id)
{
    const ir::Node &node = model.node(id);
    return node.opType + (node.name.empty() ? " #" + std::to_string(id.index) : " '" + node.name + "'");
}

bool numericsWithinTolerance(const CompileResult &result)
{
    for (const PassResult &p : result.passes)
        if (p.numerics.ran && !p.numerics.withinTolerance)
            return false;
    return !result.overall.ran || result.overall.withinTolerance;
}

static void writeHistogram(support::JsonWriter &w, const std::map<std::string, int> &ops)
{
    w.beginObject();
    for (const auto &[op, count] : ops)
        w.field(op, count);
    w.endObject();
}

std::string rewriteScope(const ir::Model &model, const RewriteRecord &rewrite)
{
    const std::vector<ir::NodeId> &nodes = rewrite.removedNodes.empty() ? rewrite.createdNodes : rewrite.removedNodes;
    std::vector<std::string> names;
    names.reserve(nodes.size());
    for (const ir::NodeId n : nodes)
        names.push_back(model.node(n).name);
    return ir::NameScopeTree::commonScope(names);
}

static void writeNodeNames(support::JsonWriter &w, const ir::Model &model, const std::vector<ir::NodeId> &nodes)
{
    w.beginArray();
    for (const ir::NodeId n : nodes)
        w.value(model.node(n).name);
    w.endArray();
}

static void writeNumerics(support::JsonWriter &w, const NumericCheck &n)
{
    w.beginObject();
    w.field("ran", n.ran);
    w.field("skipped_reason", n.skippedReason);
    w.field("compared_outputs", static_cast<std::int64_t>(n.comparedOutputs));
    w.field("compared_elements", static_cast<std::int64_t>(n.comparedElements));
    w.field("max_abs_error", n.maxAbsError);
    w.field("max_rel_error", n.maxRelError);
    w.field("worst_output", n.worstOutput);
    w.field("within_tolerance", n.withinTolerance);
    w.field("culprit_rewrite", n.culpritRewrite);
    w.endObject();
}

std::string compileReportJson(const CompileResult &result, const CompileReportOptions &options)
{
    const ir::Model &model = *result.model;
    support::JsonWriter w;
    w.beginObject();
    w.field("schema_version", kOptimizeJsonSchemaVersion);
    w.field("model", options.modelPath);
    w.field("output", options.outputPath);
    w.field("pipeline", options.pipeline);
    w.key("ops_before");
    writeHistogram(w, opHistogram(*result.input));
    w.key("ops_after");
    writeHistogram(w, opHistogram(model));
    w.field("numerics_within_tolerance", numericsWithinTolerance(result));
    w.key("numerics_overall");
    writeNumerics(w, result.overall);
    w.field("skipped_passes", static_cast<std::int64_t>(result.skippedPasses));
    w.key("passes").beginArray();
    for (const PassResult &p : result.passes) {
        w.beginObject();
        w.field("invocation", p.invocation);
        w.field("name", p.name);
        w.field("milliseconds", p.milliseconds);
        w.field("changed", p.changed);
        w.field("nodes_before", static_cast<std::int64_t>(p.nodesBefore));
        w.field("nodes_after", static_cast<std::int64_t>(p.nodesAfter));
        w.key("statistics").beginObject();
        for (const auto &[name, value] : p.statistics)
            w.field(name, value);
        w.endObject();
        w.key("rewrites").beginArray();
        for (const RewriteRecord &r : p.rewrites) {
            w.beginObject();
            w.field("pattern", r.pattern);
            w.field("scope", rewriteScope(model, r));
            w.field("detail", r.detail);
            w.key("removed");
            writeNodeNames(w, model, r.removedNodes);
            w.key("created");
            writeNodeNames(w, model, r.createdNodes);
            w.endObject();
        }
        w.endArray();
        w.key("match_failures").beginArray();
        for (const MatchFailure &f : p.matchFailures) {
            w.beginObject();
            w.field("pattern", f.pattern);
            w.field("node", f.node.valid() ? model.node(f.node).name : std::string());
            w.field("op", f.node.valid() ? model.node(f.node).opType : std::string());
            w.field("reason", f.reason);
            w.endObject();
        }
        w.endArray();
        w.key("numerics");
        writeNumerics(w, p.numerics);
        w.endObject();
    }
    w.endArray();
    // Where each node of the result came from, for nodes the pipeline created.
    w.key("provenance").beginArray();
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes) {
        if (!model.node(n).alive || result.provenance.isOriginal(n))
            continue;
        w.beginObject();
        w.field("node", model.node(n).name);
        w.field("op", model.node(n).opType);
        w.key("origins");
        writeNodeNames(w, *result.input, result.provenance.originsOf(n));
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return w.str() + "\n";
}

static std::string numericsText(const NumericCheck &n)
{
    if (!n.ran)
        return n.skippedReason.empty() ? std::string("-") : "not checked: " + n.skippedReason;
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "max abs %.3g, rel %.3g over %zu outputs%s", n.maxAbsError, n.maxRelError,
                  n.comparedOutputs, n.withinTolerance ? "" : "  OUT OF TOLERANCE");
    std::string out = buffer;
    if (!n.withinTolerance && !n.worstOutput.empty())
        out += " (worst: " + n.worstOutput + ")";
    if (!n.culpritRewrite.empty())
        out += "; first bad rewrite: " + n.culpritRewrite;
    return out;
}

std::string compileReportText(const CompileResult &result, const CompileReportOptions &options)
{
    const ir::Model &model = *result.model;
    std::string out = "Pipeline: " + options.pipeline + "\n";
    char line[256];
    for (std::size_t i = 0; i < result.passes.size(); ++i) {
        const PassResult &p = result.passes[i];
        std::snprintf(line, sizeof line, "%3zu  %-34s %9.1f ms  %-9s nodes %zu -> %zu  rewrites %zu\n", i + 1,
                      p.invocation.c_str(), p.milliseconds, p.changed ? "changed" : "unchanged", p.nodesBefore,
                      p.nodesAfter, p.rewrites.size());
        out += line;
        if (p.numerics.ran || !p.numerics.skippedReason.empty())
            if (p.changed || p.numerics.ran)
                out += "       numerics: " + numericsText(p.numerics) + "\n";
        if (options.statistics)
            for (const auto &[name, value] : p.statistics)
                out += "       " + name + " = " + std::to_string(value) + "\n";
        if (options.matchFailures)
            for (const MatchFailure &f : p.matchFailures)
                out += "       not " + f.pattern + " at " + (f.node.valid() ? describeNode(model, f.node) : std::string("?")) +
                       ": " + f.reason + "\n";
    }
    if (result.skippedPasses > 0)
        out += "(" + std::to_string(result.skippedPasses) + " passes not run: --stop-after)\n";
    const auto before = opHistogram(*result.input);
    const auto after = opHistogram(model);
    int nodesBefore = 0, nodesAfter = 0;
    for (const auto &[op, count] : before)
        nodesBefore += count;
    for (const auto &[op, count] : after)
        nodesAfter += count;
    if (result.overall.ran)
        out += "Numerics, output vs input model: " + numericsText(result.overall) + "\n";
    out += "Nodes: " + std::to_string(nodesBefore) + " -> " + std::to_string(nodesAfter) + "\n";
    std::map<std::string, std::pair<int, int>> ops;
    for (const auto &[op, count] : before)
        ops[op].first = count;
    for (const auto &[op, count] : after)
        ops[op].second = count;
    for (const auto &[op, counts] : ops)
        if (counts.first != counts.second) {
            std::snprintf(line, sizeof line, "  %-36s %5d -> %d\n", op.c_str(), counts.first, counts.second);
            out += line;
        }
    return out;
}

} // namespace portolan::passes
