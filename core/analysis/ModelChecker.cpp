// Runs onnx::checker node by node and value by value, turning ValidationErrors into diagnostics.
#include "analysis/ModelChecker.h"

#include "ir/ModelSaver.h"
#include "opset/PortolanOps.h"

#include <onnx/checker.h>

namespace portolan::analysis {

using support::Diagnostic;
using support::Severity;

namespace {

// onnx appends "==> Context: …" to its messages; the diagnostic already names the node.
std::string firstPart(const std::string &what)
{
    const auto cut = what.find("\n\n==> Context");
    std::string text = what.substr(0, cut);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

class Checker {
public:
    explicit Checker(const ir::Model &model) : m_model(model)
    {
        m_ctx.set_ir_version(static_cast<int>(model.header.ir_version()));
        std::unordered_map<std::string, int> opsets;
        for (const auto &opset : model.header.opset_import())
            opsets[opset.domain() == "ai.onnx" ? "" : opset.domain()] = static_cast<int>(opset.version());
        m_ctx.set_opset_imports(std::move(opsets));
        if (!model.baseDir.empty())
            m_ctx.set_model_dir(model.baseDir);
    }

    support::Diagnostics run()
    {
        checkGraph(m_model.mainGraph());
        if (m_findings.empty())
            checkWholeModel();
        return std::move(m_findings);
    }

private:
    void add(Severity severity, std::string code, std::string message, const ir::Graph &graph,
             std::string node = {}, std::string value = {})
    {
        Diagnostic d;
        d.severity = severity;
        d.code = std::move(code);
        d.message = std::move(message);
        d.model = m_model.sourcePath;
        d.graph = graph.isMain() ? (graph.name.empty() ? "main" : graph.name) : graph.name;
        d.node = std::move(node);
        d.value = std::move(value);
        m_findings.push_back(std::move(d));
    }

    void checkDeclaredDims(const ir::Value &value, const ir::Graph &graph)
    {
        if (!value.hasDeclaredType || !value.type().has_tensor_type())
            return;
        const auto &shape = value.type().tensor_type().shape();
        for (int i = 0; i < shape.dim_size(); ++i)
            if (shape.dim(i).has_dim_value() && shape.dim(i).dim_value() < 0)
                add(Severity::Error, "negative-dim",
                    "declared dim " + std::to_string(i) + " is negative (" + std::to_string(shape.dim(i).dim_value()) +
                        ")",
                    graph, {}, value.name);
    }

    void checkGraph(ir::GraphId graphId)
    {
        const ir::Graph &graph = m_model.graph(graphId);
        m_ctx.set_is_main_graph(graph.isMain());
        onnx::checker::LexicalScopeContext lex;
        for (ir::GraphId g = graphId; g.valid(); g = m_model.graph(g).parent)
            for (const auto &[name, id] : m_model.graph(g).scope)
                lex.add(name);

        for (const ir::ValueId v : graph.initializers) {
            const ir::Value &value = m_model.value(v);
            try {
                onnx::checker::check_tensor(value.initializer->proto, m_ctx);
            } catch (const std::exception &e) {
                add(Severity::Error, "onnx-checker", firstPart(e.what()), graph, {}, value.name);
            }
        }
        auto checkInfo = [&](ir::ValueId v) {
            const ir::Value &value = m_model.value(v);
            checkDeclaredDims(value, graph);
            try {
                onnx::ValueInfoProto info = value.info;
                info.set_name(value.name);
                onnx::checker::check_value_info(info, m_ctx);
            } catch (const std::exception &e) {
                add(Severity::Error, "onnx-checker", firstPart(e.what()), graph, {}, value.name);
            }
        };
        for (const ir::ValueId v : graph.inputs)
            checkInfo(v);
        for (const ir::ValueId v : graph.outputs)
            checkInfo(v);
        for (const ir::ValueId v : graph.valueInfos)
            checkDeclaredDims(m_model.value(v), graph);

        std::size_t index = 0;
        for (const ir::NodeId n : graph.nodes) {
            const ir::Node &node = m_model.node(n);
            const std::string display = node.displayName(index++);
            if (!node.alive)
                continue;
            try {
                onnx::checker::check_node(ir::toNodeProto(m_model, n), m_ctx, lex);
            } catch (const std::exception &e) {
                add(Severity::Error, "onnx-checker", firstPart(e.what()), graph, display);
            }
        }
        m_ctx.set_is_main_graph(true);
    }

    void checkWholeModel()
    {
        try {
            // The model-level rules too: IR version, opset imports, metadata, sorting, functions.
            // check_model resolves external data against the working directory, so external
            // tensors (already checked against their files at load) are replaced by empty ones, as
            // are the weights left out of the copy (checked at load too).
            onnx::ModelProto proto = ir::toModelProto(m_model, ir::Payloads::ShapesOnly);
            for (auto &t : *proto.mutable_graph()->mutable_initializer())
                if (t.data_location() == onnx::TensorProto::EXTERNAL || ir::payloadLeftOut(t)) {
                    t.clear_external_data();
                    t.clear_data_location();
                    t.clear_dims();
                    t.add_dims(0);
                }
            onnx::checker::check_model(proto);
        } catch (const std::exception &e) {
            add(Severity::Error, "onnx-checker", firstPart(e.what()), m_model.graph(m_model.mainGraph()));
        }
    }

    const ir::Model &m_model;
    onnx::checker::CheckerContext m_ctx;
    support::Diagnostics m_findings;
};

} // namespace

support::Diagnostics checkModel(const ir::Model &model)
{
    opset::registerPortolanSchemas();
    return Checker(model).run();
}

} // namespace portolan::analysis
