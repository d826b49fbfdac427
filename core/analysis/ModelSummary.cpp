// Builds a ModelSummary by walking every graph once.
#include "analysis/ModelSummary.h"

#include "analysis/OpSchemas.h"
#include "ir/NameScopes.h"

#include <algorithm>
#include <set>

namespace portolan::analysis {

static IoSummary ioSummary(const ir::Value &value)
{
    IoSummary io;
    io.name = value.name;
    io.type = ir::typeString(value.type());
    const int elem = ir::tensorElementType(value.type());
    io.elementType = elem ? ir::dataTypeName(elem) : "";
    io.shape = ir::tensorShape(value.type());
    if (io.shape.dims)
        for (const ir::Dim &d : *io.shape.dims)
            if (!d.isStatic())
                io.symbolicDims.push_back(d.str());
    return io;
}

namespace {

struct Walker {
    const ir::Model &model;
    ModelSummary &summary;
    std::map<std::pair<std::string, std::string>, std::uint64_t> ops;
    std::map<int, DtypeBytes> byType;
    std::set<std::string> localFunctions;
    std::set<std::string> customDomains;

    void walk(ir::GraphId graphId)
    {
        const ir::Graph &graph = model.graph(graphId);
        summary.maxSubgraphDepth = std::max(summary.maxSubgraphDepth, graph.depth);
        for (const ir::ValueId v : graph.initializers) {
            const ir::Initializer &init = *model.value(v).initializer;
            DtypeBytes &entry = byType[init.proto.data_type()];
            entry.elementType = ir::dataTypeName(init.proto.data_type());
            ++entry.count;
            entry.bytes += init.byteSize();
            ++summary.initializers;
            summary.initializerBytes += init.byteSize();
            if (init.proto.data_location() == onnx::TensorProto::EXTERNAL)
                summary.externalBytes += init.byteSize();
        }
        for (const auto &sparse : graph.extras.sparse_initializer()) {
            const std::uint64_t bytes = sparse.values().ByteSizeLong() + sparse.indices().ByteSizeLong();
            DtypeBytes &entry = byType[sparse.values().data_type()];
            entry.elementType = ir::dataTypeName(sparse.values().data_type());
            ++entry.count;
            entry.bytes += bytes;
            ++summary.initializers;
            summary.initializerBytes += bytes;
        }
        for (const ir::NodeId n : graph.nodes) {
            const ir::Node &node = model.node(n);
            if (!node.alive)
                continue;
            ++summary.nodesWithSubgraphs;
            if (graph.isMain())
                ++summary.nodes;
            ++ops[{node.domain == "ai.onnx" ? "" : node.domain, node.opType}];
            if (!isOnnxDomain(node.domain))
                customDomains.insert(node.domain);
            for (const ir::Attribute &a : node.attributes)
                for (const ir::GraphId sub : a.subgraphs) {
                    ++summary.subgraphs;
                    walk(sub);
                }
        }
    }
};

} // namespace

ModelSummary summarize(const ir::Model &model, support::Diagnostics findings)
{
    ModelSummary s;
    const auto &h = model.header;
    s.path = model.sourcePath;
    s.irVersion = h.ir_version();
    s.producerName = h.producer_name();
    s.producerVersion = h.producer_version();
    s.modelDomain = h.domain();
    s.modelVersion = h.model_version();
    s.docString = h.doc_string();
    s.graphName = model.graph(model.mainGraph()).name;
    for (const auto &opset : h.opset_import())
        s.opsets.emplace_back(opset.domain(), opset.version());
    for (const auto &prop : h.metadata_props())
        s.metadata.emplace_back(prop.key(), prop.value());

    const ir::Graph &main = model.graph(model.mainGraph());
    for (const ir::ValueId v : main.inputs)
        if (!model.value(v).isInitializer())
            s.inputs.push_back(ioSummary(model.value(v)));
    for (const ir::ValueId v : main.outputs)
        s.outputs.push_back(ioSummary(model.value(v)));

    Walker walker{model, s, {}, {}, {}, {}};
    for (const auto &f : h.functions())
        walker.localFunctions.insert(f.domain() + "::" + f.name());
    walker.walk(model.mainGraph());
    for (const auto &opset : h.opset_import())
        if (!isOnnxDomain(opset.domain()))
            walker.customDomains.insert(opset.domain());

    for (const auto &[key, count] : walker.ops) {
        const auto &[domain, opType] = key;
        s.opHistogram.push_back({domain, opType, count});
        const int version = model.opsetVersion(domain).value_or(0);
        const bool known = (version > 0 && findSchema(opType, domain, version)) ||
                           walker.localFunctions.contains(domain + "::" + opType);
        if (!known)
            s.opsWithoutSchema.push_back({domain, opType, count});
    }
    std::stable_sort(s.opHistogram.begin(), s.opHistogram.end(),
                     [](const OpCount &a, const OpCount &b) { return a.count > b.count; });
    for (const auto &[type, entry] : walker.byType)
        s.initializersByType.push_back(entry);
    s.customDomains.assign(walker.customDomains.begin(), walker.customDomains.end());

    const ir::NameScopeTree tree = ir::NameScopeTree::build(model, model.mainGraph());
    s.groups = tree.groupCount() - 1;
    for (const std::size_t child : tree.root().children)
        s.topGroups.push_back({tree.pathOf(child), tree.group(child).totalNodes});

    s.findings = std::move(findings);
    return s;
}

} // namespace portolan::analysis
