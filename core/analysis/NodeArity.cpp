#include "analysis/NodeArity.h"

#include "analysis/OpSchemas.h"
#include "opset/PortolanOps.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <limits>

namespace portolan::analysis {

namespace {

std::string countRange(int least, int most)
{
    if (least == most)
        return std::to_string(least);
    if (most == std::numeric_limits<int>::max())
        return std::to_string(least) + " or more";
    return std::to_string(least) + " to " + std::to_string(most);
}

/// Why `node` does not fit `schema`, or "".
std::string misfit(const ir::Node &node, const onnx::OpSchema &schema)
{
    const int inputs = static_cast<int>(node.inputs.size()), outputs = static_cast<int>(node.outputs.size());
    if (inputs < schema.min_input() || inputs > schema.max_input())
        return "has " + std::to_string(inputs) + " input(s); " + node.opType + " takes " +
               countRange(schema.min_input(), schema.max_input());
    if (outputs < schema.min_output() || outputs > schema.max_output())
        return "has " + std::to_string(outputs) + " output(s); " + node.opType + " gives " +
               countRange(schema.min_output(), schema.max_output());
    const auto &formal = schema.inputs();
    for (std::size_t i = 0; i < node.inputs.size() && i < formal.size(); ++i)
        if (formal[i].GetOption() == onnx::OpSchema::Single && !node.inputs[i].valid())
            return "leaves its required input " + std::to_string(i) + " ('" + formal[i].GetName() + "') empty";
    for (const ir::Attribute &a : node.attributes)
        if (std::string window = schema.attributes().contains(a.name()) ? nonPositiveWindow(a.proto) : ""; !window.empty())
            return "has " + window + "; each must be positive";
    return {};
}

void checkGraph(const ir::Model &model, ir::GraphId graphId, support::Diagnostics &out)
{
    const ir::Graph &graph = model.graph(graphId);
    std::size_t index = 0;
    for (const ir::NodeId n : graph.nodes) {
        const ir::Node &node = model.node(n);
        const std::string display = node.displayName(index++);
        if (!node.alive)
            continue;
        const auto version = model.opsetVersion(node.domain);
        if (const onnx::OpSchema *schema = version ? findSchema(node.opType, node.domain, *version) : nullptr)
            if (std::string why = misfit(node, *schema); !why.empty())
                out.push_back({.severity = support::Severity::Error, .code = "node-arity",
                               .message = node.opType + " node " + why, .model = model.sourcePath,
                               .graph = graph.name, .node = display});
        for (const ir::Attribute &attribute : node.attributes)
            for (const ir::GraphId body : attribute.subgraphs)
                checkGraph(model, body, out);
    }
}

} // namespace

std::string nonPositiveWindow(const onnx::AttributeProto &attribute)
{
    if (attribute.name() != "strides" && attribute.name() != "dilations")
        return {};
    const auto &values = attribute.ints();
    if (std::none_of(values.begin(), values.end(), [](std::int64_t v) { return v <= 0; }))
        return {};
    std::string text = attribute.name() + " [";
    for (int i = 0; i < values.size(); ++i)
        text += (i ? "," : "") + std::to_string(values[i]);
    return text + "]";
}

support::Diagnostics checkNodeArity(const ir::Model &model)
{
    opset::registerPortolanSchemas();
    support::Diagnostics out;
    checkGraph(model, model.mainGraph(), out);
    return out;
}

} // namespace portolan::analysis
