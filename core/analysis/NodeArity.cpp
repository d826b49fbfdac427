#include "analysis/NodeArity.h"

#include "analysis/OpSchemas.h"
#include "opset/OpVersions.h"
#include "opset/PortolanOps.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <set>
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

std::string attributeTypeName(int type)
{
    return onnx::AttributeProto::AttributeType_Name(static_cast<onnx::AttributeProto::AttributeType>(type));
}

struct Misfit {
    std::string code;
    std::string message; ///< "" when the node fits
};

/// Why `node` does not fit `schema`: its operand counts, empty required inputs, window attributes,
/// and its attributes' names and types (a kernel reads an INTS attribute as ints whatever it holds).
Misfit misfit(const ir::Node &node, const onnx::OpSchema &schema)
{
    const std::string &op = node.opType;
    const int inputs = static_cast<int>(node.inputs.size()), outputs = static_cast<int>(node.outputs.size());
    if (inputs < schema.min_input() || inputs > schema.max_input())
        return {"node-arity", op + " node has " + std::to_string(inputs) + " input(s); " + op + " takes " +
                                  countRange(schema.min_input(), schema.max_input())};
    if (outputs < schema.min_output() || outputs > schema.max_output())
        return {"node-arity", op + " node has " + std::to_string(outputs) + " output(s); " + op + " gives " +
                                  countRange(schema.min_output(), schema.max_output())};
    const auto &formal = schema.inputs();
    for (std::size_t i = 0; i < node.inputs.size() && i < formal.size(); ++i)
        if (formal[i].GetOption() == onnx::OpSchema::Single && !node.inputs[i].valid())
            return {"node-arity", op + " node leaves its required input " + std::to_string(i) + " ('" +
                                      formal[i].GetName() + "') empty"};
    const auto &declared = schema.attributes();
    for (const ir::Attribute &a : node.attributes) {
        if (!a.proto.ref_attr_name().empty())
            continue; // a function body's reference, bound when the function is called
        const auto found = declared.find(a.name());
        if (found == declared.end())
            return {"node-attribute", op + " node: attribute '" + a.name() + "' is not one " + op + " declares"};
        if (a.proto.type() != onnx::AttributeProto::UNDEFINED && a.proto.type() != found->second.type)
            return {"node-attribute", op + " node: attribute '" + a.name() + "' is a " + attributeTypeName(a.proto.type()) +
                                          "; " + op + " declares " + attributeTypeName(found->second.type)};
        if (std::string window = nonPositiveWindow(a.proto); !window.empty())
            return {"node-arity", op + " node has " + window + "; each must be positive"};
    }
    for (const auto &[name, attribute] : declared)
        if (attribute.required && !node.attribute(name))
            return {"node-attribute", op + " node lacks its required attribute '" + name + "'"};
    return {};
}

/// The experimental ops of ONNX 1.0 to 1.4, since removed: old model-zoo exports still hold them
/// (tiny-yolov2's ImageScaler). They are warned about, not refused: a pass may remove them.
bool formerExperimentalOp(const std::string &op)
{
    static const std::set<std::string> ops{"ATen", "Affine", "ConstantFill", "Crop", "DynamicSlice", "GRUUnit",
                                           "GivenTensorFill", "ImageScaler", "ParametricSoftplus", "Scale", "ScaledTanh"};
    return ops.contains(op);
}

/// Why a standard-domain node names no op ONNX defines at `opset` (message "" when it does).
support::Diagnostic unknownStandardOp(const ir::Node &node, int opset)
{
    support::Diagnostic d;
    d.code = "unknown-op";
    if (!opset::isStandardDomain(node.domain))
        return d;
    if (formerExperimentalOp(node.opType)) {
        d.severity = support::Severity::Warning;
        d.message = node.opType + " is an experimental op ONNX has removed: nothing can check or run it";
    } else if (!opset::isKnownStandardOp(node.opType)) {
        d.message = "ONNX defines no standard op '" + node.opType + "' (up to opset " + std::to_string(opset::kHighestStandardOpset) + ")";
    } else if (opset > 0 && opset::standardSinceVersion(node.opType, opset) == 0) {
        d.message = node.opType + " is not a standard op at opset " + std::to_string(opset) + ", the model's";
    }
    return d;
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
        if (support::Diagnostic unknown = unknownStandardOp(node, version.value_or(0)); !unknown.message.empty()) {
            unknown.model = model.sourcePath;
            unknown.graph = graph.name;
            unknown.node = display;
            out.push_back(std::move(unknown));
        }
        else if (const onnx::OpSchema *schema = version ? findSchema(node.opType, node.domain, *version) : nullptr)
            if (Misfit why = misfit(node, *schema); !why.message.empty())
                out.push_back({.severity = support::Severity::Error, .code = why.code, .message = why.message,
                               .model = model.sourcePath, .graph = graph.name, .node = display, .value = {}});
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
