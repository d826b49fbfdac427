// Shape inference in strict mode: every node-level error is reported, none is thrown to the caller.
#include "analysis/ShapeInference.h"

#include "analysis/NodeArity.h"

#include "ir/ModelSaver.h"
#include "ir/Topology.h"
#include "opset/PortolanOps.h"

#include <onnx/shape_inference/implementation.h>

#include <regex>
#include <sstream>

namespace portolan::analysis {

// "[ShapeInferenceError] (op_type:Conv, node name: conv1): …" → node "conv1"
static std::string nodeNameIn(const std::string &line)
{
    static const std::regex pattern(R"(node name: ([^)]*)\))");
    std::smatch match;
    if (std::regex_search(line, match, pattern))
        return match[1].str();
    return {};
}

namespace {

/// The model as a proto whose main-graph nodes are in topological order, unnamed nodes named.
onnx::ModelProto sortedProto(const ir::Model &model)
{
    onnx::ModelProto proto = ir::toModelProto(model, ir::Payloads::ShapesOnly);
    // ONNX infers in file order and names nodes only by their name: sort the copy, and give unnamed
    // nodes the "#index (Op)" names diagnostics use.
    {
        const ir::Graph &main = model.graph(model.mainGraph());
        std::unordered_map<ir::NodeId, int> position;
        std::size_t index = 0;
        for (const ir::NodeId n : main.nodes)
            if (model.node(n).alive)
                position[n] = static_cast<int>(index++);
        auto *nodes = proto.mutable_graph()->mutable_node();
        for (int i = 0; i < nodes->size(); ++i)
            if (nodes->Get(i).name().empty())
                nodes->Mutable(i)->set_name("#" + std::to_string(i) + " (" + nodes->Get(i).op_type() + ")");
        if (auto order = ir::topologicalOrder(model, model.mainGraph())) {
            google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
            for (const ir::NodeId n : *order)
                *sorted.Add() = nodes->Get(position.at(n));
            nodes->Swap(&sorted);
        }
    }
    return proto;
}

/// ONNX 1.12 divides by a Conv's or a pool's strides unchecked: a zero stops the process with
/// SIGFPE. A node with a stride or dilation below 1 is inferred as if it had none, and named.
void dropNonPositiveWindows(const ir::Model &model, onnx::GraphProto &graph, support::Diagnostics &findings)
{
    for (onnx::NodeProto &node : *graph.mutable_node()) {
        auto *attributes = node.mutable_attribute();
        for (int i = attributes->size(); i-- > 0;) {
            const std::string window = nonPositiveWindow(attributes->at(i));
            if (window.empty())
                continue;
            findings.push_back({.severity = support::Severity::Error, .code = "node-arity",
                                .message = node.op_type() + " node has " + window + "; each must be positive (inferred as if it had none)",
                                .model = model.sourcePath, .graph = graph.name(), .node = node.name()});
            attributes->DeleteSubrange(i, 1);
        }
        for (onnx::AttributeProto &a : *attributes) {
            if (a.has_g())
                dropNonPositiveWindows(model, *a.mutable_g(), findings);
            for (onnx::GraphProto &body : *a.mutable_graphs())
                dropNonPositiveWindows(model, body, findings);
        }
    }
}

ShapeInferenceResult infer(const ir::Model &model, onnx::ModelProto &proto, bool strict)
{
    ShapeInferenceResult result;
    dropNonPositiveWindows(model, *proto.mutable_graph(), result.findings);
    try {
        onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/strict ? 1 : 0, /*data_prop=*/true);
        onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception &e) {
        std::istringstream lines(e.what());
        std::string line;
        while (std::getline(lines, line)) {
            if (line.empty())
                continue;
            support::Diagnostic d;
            d.severity = support::Severity::Error;
            d.code = "shape-inference";
            d.message = line;
            d.model = model.sourcePath;
            d.node = nodeNameIn(line);
            d.graph = model.graph(model.mainGraph()).name;
            result.findings.push_back(std::move(d));
        }
    }
    const auto &graph = proto.graph();
    auto record = [&](const onnx::ValueInfoProto &info) {
        if (info.has_type())
            result.types[info.name()] = info.type();
    };
    for (const auto &info : graph.input())
        record(info);
    for (const auto &info : graph.value_info())
        record(info);
    for (const auto &info : graph.output())
        record(info);
    // bodies: ONNX types their values in place while inferring the node that holds them
    auto recordBodies = [&](auto &&self, const onnx::GraphProto &g) -> void {
        for (const auto &node : g.node())
            for (const auto &attribute : node.attribute()) {
                std::vector<const onnx::GraphProto *> bodies;
                if (attribute.has_g())
                    bodies.push_back(&attribute.g());
                for (const auto &body : attribute.graphs())
                    bodies.push_back(&body);
                for (const onnx::GraphProto *body : bodies) {
                    for (const auto *list : {&body->input(), &body->value_info(), &body->output()})
                        for (const auto &info : *list)
                            if (info.has_type())
                                result.subgraphTypes[info.name()] = info.type();
                    self(self, *body);
                }
            }
    };
    recordBodies(recordBodies, graph);
    return result;
}

} // namespace

ShapeInferenceResult inferShapes(const ir::Model &model)
{
    opset::registerPortolanSchemas();
    onnx::ModelProto proto = sortedProto(model);
    return infer(model, proto, true);
}

ShapeInferenceResult inferShapesLenient(const ir::Model &model)
{
    opset::registerPortolanSchemas();
    onnx::ModelProto proto = sortedProto(model);
    return infer(model, proto, false);
}

ShapeInferenceResult inferShapesAt(const ir::Model &model, const std::map<std::string, std::vector<std::int64_t>> &inputDims)
{
    opset::registerPortolanSchemas();
    onnx::ModelProto proto = sortedProto(model);
    onnx::GraphProto &graph = *proto.mutable_graph();
    for (auto &input : *graph.mutable_input()) {
        const auto it = inputDims.find(input.name());
        if (it == inputDims.end() || !input.type().has_tensor_type())
            continue;
        auto *shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
        shape->clear_dim();
        for (const std::int64_t d : it->second)
            shape->add_dim()->set_dim_value(d);
    }
    for (auto &info : *graph.mutable_value_info())
        if (info.type().has_tensor_type())
            info.mutable_type()->mutable_tensor_type()->clear_shape();
    for (auto &output : *graph.mutable_output())
        if (output.type().has_tensor_type())
            output.mutable_type()->mutable_tensor_type()->clear_shape();
    return infer(model, proto, false);
}

std::optional<std::vector<std::int64_t>> staticDims(const onnx::TypeProto &type)
{
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
        return std::nullopt;
    std::vector<std::int64_t> dims;
    for (const auto &d : type.tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0)
            return std::nullopt;
        dims.push_back(d.dim_value());
    }
    return dims;
}

} // namespace portolan::analysis
