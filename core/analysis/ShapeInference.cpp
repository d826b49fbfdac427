// Shape inference in strict mode: every node-level error is reported, none is thrown to the caller.
#include "analysis/ShapeInference.h"

#include "analysis/NodeArity.h"
#include "analysis/OpSchemas.h"

#include "ir/ModelSaver.h"
#include "ir/Topology.h"
#include "opset/PortolanOps.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <map>
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
            support::Diagnostic d;
            d.severity = support::Severity::Error;
            d.code = "node-arity";
            d.message = node.op_type() + " node has " + window + "; each must be positive (inferred as if it had none)";
            d.model = model.sourcePath;
            d.graph = graph.name();
            d.node = node.name();
            findings.push_back(std::move(d));
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

/// ONNX 1.12's ConvTranspose inference reads the kernel from W's dims when kernel_shape is absent,
/// without checking W's rank against X's (a rank-2 W crashed it). Where W's dims are known (a constant,
/// or a graph input of static shape), its kernel dims become kernel_shape in the copy (the same node;
/// ONNX checks that attribute's length); otherwise the node is left out of the copy and named.
void guardConvTranspose(const ir::Model &model, onnx::GraphProto &graph, support::Diagnostics &findings)
{
    // W's dims: a constant's, or a graph input's declared static ones
    std::unordered_map<std::string, std::vector<std::int64_t>> weightDims;
    for (const onnx::ValueInfoProto &input : graph.input()) {
        if (!input.type().has_tensor_type() || !input.type().tensor_type().has_shape())
            continue;
        std::vector<std::int64_t> dims;
        for (const auto &d : input.type().tensor_type().shape().dim())
            dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
        if (std::all_of(dims.begin(), dims.end(), [](std::int64_t d) { return d >= 0; }))
            weightDims[input.name()] = std::move(dims);
    }
    for (const onnx::TensorProto &t : graph.initializer())
        weightDims[t.name()] = std::vector<std::int64_t>(t.dims().begin(), t.dims().end());
    auto *nodes = graph.mutable_node();
    for (int i = nodes->size(); i-- > 0;) {
        onnx::NodeProto &node = nodes->at(i);
        for (onnx::AttributeProto &a : *node.mutable_attribute()) {
            if (a.has_g())
                guardConvTranspose(model, *a.mutable_g(), findings);
            for (onnx::GraphProto &body : *a.mutable_graphs())
                guardConvTranspose(model, body, findings);
        }
        if (node.op_type() != "ConvTranspose" || !node.domain().empty() || node.input_size() < 2)
            continue;
        if (std::any_of(node.attribute().begin(), node.attribute().end(), [](const auto &a) { return a.name() == "kernel_shape"; }))
            continue;
        const auto w = weightDims.find(node.input(1));
        if (w != weightDims.end() && w->second.size() >= 3) {
            onnx::AttributeProto *kernel = node.add_attribute();
            kernel->set_name("kernel_shape");
            kernel->set_type(onnx::AttributeProto::INTS);
            for (std::size_t d = 2; d < w->second.size(); ++d)
                kernel->add_ints(w->second[d]);
            continue;
        }
        support::Diagnostic d;
        d.severity = support::Severity::Warning;
        d.code = "shape-inference";
        d.message = "ConvTranspose node has no kernel_shape and its weight '" + node.input(1) +
                    "' is neither a constant nor a graph input of static rank 3 or more: its output shape is not inferred";
        d.model = model.sourcePath;
        d.graph = graph.name();
        d.node = node.name();
        findings.push_back(std::move(d));
        nodes->DeleteSubrange(i, 1);
    }
}

/// ONNX 1.12's inference functions read a required attribute without checking that it is there (Scan-8
/// without num_scan_inputs dereferenced null). A node that lacks one is left out of the copy and named;
/// the validation gate refuses such a model before anything runs it.
void guardRequiredAttributes(const ir::Model &model, const std::map<std::string, int> &opsets, onnx::GraphProto &graph,
                             support::Diagnostics &findings)
{
    auto *nodes = graph.mutable_node();
    for (int i = nodes->size(); i-- > 0;) {
        onnx::NodeProto &node = nodes->at(i);
        for (onnx::AttributeProto &a : *node.mutable_attribute()) {
            if (a.has_g())
                guardRequiredAttributes(model, opsets, *a.mutable_g(), findings);
            for (onnx::GraphProto &body : *a.mutable_graphs())
                guardRequiredAttributes(model, opsets, body, findings);
        }
        const std::string domain = node.domain() == "ai.onnx" ? std::string() : node.domain();
        const auto opset = opsets.find(domain);
        const onnx::OpSchema *schema = opset == opsets.end() ? nullptr : findSchema(node.op_type(), domain, opset->second);
        if (schema == nullptr)
            continue;
        std::string missing;
        for (const auto &[name, attribute] : schema->attributes())
            if (attribute.required && std::none_of(node.attribute().begin(), node.attribute().end(),
                                                   [&name = name](const auto &a) { return a.name() == name; }))
                missing += (missing.empty() ? "'" : ", '") + name + "'";
        if (missing.empty())
            continue;
        support::Diagnostic d;
        d.severity = support::Severity::Warning; // the validation gate's finding is the error
        d.code = "shape-inference";
        d.message = node.op_type() + " node lacks the required attribute(s) " + missing + ": its outputs are not inferred";
        d.model = model.sourcePath;
        d.graph = graph.name();
        d.node = node.name();
        findings.push_back(std::move(d));
        nodes->DeleteSubrange(i, 1);
    }
}

bool isNarrowElementType(std::int64_t type)
{
    return type >= 17 && type <= 26;
}

/// Whether any value, weight or type attribute of the model is one of the narrow types (float8,
/// float4, int4, int2), which libonnx 1.12's type checks cannot name.
bool usesNarrowTypes(const ir::Model &model)
{
    for (std::size_t v = 0; v < model.valueCapacity(); ++v) {
        const ir::Value &value = model.value(ir::ValueId(static_cast<std::uint32_t>(v)));
        if (isNarrowElementType(value.elementType()) ||
            (value.initializer && isNarrowElementType(value.initializer->proto.data_type())))
            return true;
    }
    for (std::size_t n = 0; n < model.nodeCapacity(); ++n)
        for (const ir::Attribute &a : model.node(ir::NodeId(static_cast<std::uint32_t>(n))).attributes)
            if ((a.name() == "to" || a.name() == "output_dtype") && isNarrowElementType(a.proto.i()))
                return true;
    return false;
}

ShapeInferenceResult infer(const ir::Model &model, onnx::ModelProto &proto, bool strict)
{
    ShapeInferenceResult result;
    dropNonPositiveWindows(model, *proto.mutable_graph(), result.findings);
    guardConvTranspose(model, *proto.mutable_graph(), result.findings);
    std::map<std::string, int> opsets;
    for (const onnx::OperatorSetIdProto &entry : proto.opset_import())
        opsets[entry.domain() == "ai.onnx" ? std::string() : entry.domain()] = static_cast<int>(entry.version());
    guardRequiredAttributes(model, opsets, *proto.mutable_graph(), result.findings);
    try {
        // libonnx cannot name the narrow types in its type checks (it would refuse every float8 value),
        // so a model that has them is inferred without; the shapes and element types still flow.
        const bool checkTypes = !usesNarrowTypes(model);
        onnx::ShapeInferenceOptions options(checkTypes, /*strict_mode=*/strict ? 1 : 0, /*data_prop=*/true);
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
