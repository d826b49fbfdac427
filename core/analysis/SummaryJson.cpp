// JSON rendering of ModelSummary (documented in docs/inspect-json.md).
#include "analysis/SummaryFormat.h"

#include "support/JsonWriter.h"

namespace portolan::analysis {

using support::JsonWriter;

static void writeIo(JsonWriter &w, const IoSummary &io)
{
    w.beginObject();
    w.field("name", io.name);
    w.field("type", io.type);
    w.field("element_type", io.elementType);
    w.key("shape");
    if (io.shape.dims) {
        w.beginArray();
        for (const ir::Dim &d : *io.shape.dims) {
            // static dims as numbers, symbolic ones as strings, unknown ones as null
            if (d.isStatic())
                w.value(d.extent());
            else if (d.isSymbolic())
                w.value(d.symbol());
            else
                w.null();
        }
        w.endArray();
    } else {
        w.null();
    }
    w.field("dynamic", !io.shape.isStatic());
    w.endObject();
}

static void writeOps(JsonWriter &w, const std::vector<OpCount> &ops)
{
    w.beginArray();
    for (const OpCount &op : ops) {
        w.beginObject();
        w.field("domain", op.domain);
        w.field("op_type", op.opType);
        w.field("count", op.count);
        w.endObject();
    }
    w.endArray();
}

std::string summaryJson(const ModelSummary &s)
{
    JsonWriter w;
    w.beginObject();
    w.field("schema_version", kInspectJsonSchemaVersion);
    w.field("path", s.path);
    w.field("ir_version", s.irVersion);
    w.key("producer").beginObject().field("name", s.producerName).field("version", s.producerVersion).endObject();
    w.field("model_domain", s.modelDomain);
    w.field("model_version", s.modelVersion);
    w.field("graph_name", s.graphName);
    w.key("opset_import").beginArray();
    for (const auto &[domain, version] : s.opsets)
        w.beginObject().field("domain", domain).field("version", version).endObject();
    w.endArray();
    w.key("metadata").beginArray(); // an array: a file may repeat a key
    for (const auto &[key, value] : s.metadata)
        w.beginObject().field("key", key).field("value", value).endObject();
    w.endArray();

    w.key("inputs").beginArray();
    for (const IoSummary &io : s.inputs)
        writeIo(w, io);
    w.endArray();
    w.key("outputs").beginArray();
    for (const IoSummary &io : s.outputs)
        writeIo(w, io);
    w.endArray();

    w.key("nodes").beginObject();
    w.field("main_graph", s.nodes);
    w.field("with_subgraphs", s.nodesWithSubgraphs);
    w.field("subgraphs", s.subgraphs);
    w.field("max_subgraph_depth", s.maxSubgraphDepth);
    w.endObject();
    w.key("op_histogram");
    writeOps(w, s.opHistogram);

    w.key("initializers").beginObject();
    w.field("count", s.initializers);
    w.field("bytes", s.initializerBytes);
    w.field("external_bytes", s.externalBytes);
    w.key("by_type").beginArray();
    for (const DtypeBytes &d : s.initializersByType)
        w.beginObject().field("element_type", d.elementType).field("count", d.count).field("bytes", d.bytes).endObject();
    w.endArray();
    w.endObject();

    w.key("custom_domains").beginArray();
    for (const std::string &d : s.customDomains)
        w.value(d);
    w.endArray();
    w.key("ops_without_schema");
    writeOps(w, s.opsWithoutSchema);

    w.key("groups").beginObject();
    w.field("count", s.groups);
    w.key("top_level").beginArray();
    for (const GroupSummary &g : s.topGroups)
        w.beginObject().field("path", g.path).field("nodes", g.nodes).endObject();
    w.endArray();
    w.endObject();

    w.key("findings").beginArray();
    for (const support::Diagnostic &d : s.findings)
        support::writeDiagnostic(w, d);
    w.endArray();
    w.endObject();
    return w.str() + "\n";
}

} // namespace portolan::analysis
