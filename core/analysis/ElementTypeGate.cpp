#include "analysis/ElementTypeGate.h"

#include "analysis/OpSchemas.h"
#include "ir/Type.h"
#include "opset/OpVersions.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>

#include <algorithm>

namespace portolan::analysis {

namespace {

bool isNarrow(std::int64_t type)
{
    return type >= 17 && type <= 26;
}

/// The types a formal parameter's type string allows: a literal ("tensor(float)") or a constraint.
std::vector<std::string> allowedTypes(const onnx::OpSchema &schema, const std::string &typeString)
{
    if (auto listed = opset::standardTypeConstraint(schema.Name(), schema.SinceVersion(), typeString))
        return *listed;
    for (const auto &constraint : schema.typeConstraintParams())
        if (constraint.type_param_str == typeString)
            return constraint.allowed_type_strs;
    return {typeString};
}

std::string tensorType(std::int64_t type)
{
    return "tensor(" + ir::dataTypeName(static_cast<int>(type)) + ")";
}

bool allows(const std::vector<std::string> &types, std::int64_t type)
{
    return std::find(types.begin(), types.end(), tensorType(type)) != types.end();
}

class Gate {
public:
    explicit Gate(const ir::Model &model) : m_model(model) {}

    void checkGraph(ir::GraphId graphId)
    {
        const ir::Graph &graph = m_model.graph(graphId);
        std::size_t index = 0;
        for (const ir::NodeId n : graph.nodes) {
            const ir::Node &node = m_model.node(n);
            const std::string display = node.displayName(index++);
            if (!node.alive)
                continue;
            checkNode(node, graph, display);
            for (const ir::Attribute &attribute : node.attributes)
                for (const ir::GraphId body : attribute.subgraphs)
                    checkGraph(body);
        }
    }

    support::Diagnostics take() { return std::move(m_out); }

private:
    void checkNode(const ir::Node &node, const ir::Graph &graph, const std::string &display)
    {
        if (!opset::isStandardDomain(node.domain))
            return;
        const auto version = m_model.opsetVersion(node.domain);
        const onnx::OpSchema *schema = version ? findSchema(node.opType, node.domain, *version) : nullptr;
        if (!schema)
            return;
        const std::string op = node.opType + "-" + std::to_string(schema->SinceVersion());
        const auto &formal = schema->inputs();
        for (std::size_t i = 0; i < node.inputs.size() && !formal.empty(); ++i) {
            if (!node.inputs[i].valid())
                continue;
            const ir::Value &value = m_model.value(node.inputs[i]);
            const int type = value.initializer ? value.initializer->proto.data_type() : value.elementType();
            if (!isNarrow(type))
                continue;
            const auto &parameter = formal[std::min(i, formal.size() - 1)]; // a variadic last one repeats
            if (!allows(allowedTypes(*schema, parameter.GetTypeStr()), type))
                add(graph, display, value.name,
                    "input '" + value.name + "' is " + ir::dataTypeName(type) + ", which " + op + " does not take as " +
                        parameter.GetName());
        }
        for (const char *name : {"to", "output_dtype"}) {
            const ir::Attribute *attribute = node.attribute(name);
            if (!attribute || !isNarrow(attribute->proto.i()) || schema->outputs().empty())
                continue;
            if (!allows(allowedTypes(*schema, schema->outputs().front().GetTypeStr()), attribute->proto.i()))
                add(graph, display, {},
                    std::string("attribute '") + name + "' names " + ir::dataTypeName(static_cast<int>(attribute->proto.i())) +
                        ", which " + op + " cannot produce (a later version of the op may)");
        }
    }

    void add(const ir::Graph &graph, const std::string &node, const std::string &value, std::string message)
    {
        support::Diagnostic d;
        d.severity = support::Severity::Error;
        d.code = "unsupported-element-type";
        d.message = std::move(message);
        d.model = m_model.sourcePath;
        d.graph = graph.name;
        d.node = node;
        d.value = value;
        m_out.push_back(std::move(d));
    }

    const ir::Model &m_model;
    support::Diagnostics m_out;
};

} // namespace

support::Diagnostics checkNarrowElementTypes(const ir::Model &model)
{
    Gate gate(model);
    gate.checkGraph(model.mainGraph());
    return gate.take();
}

} // namespace portolan::analysis
