// Shape inference in strict mode: every node-level error is reported, none is thrown to the caller.
#include "analysis/ShapeInference.h"

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

ShapeInferenceResult inferShapes(const ir::Model &model)
{
    opset::registerPortolanSchemas();
    ShapeInferenceResult result;
    onnx::ModelProto proto = ir::toModelProto(model);
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
    try {
        onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/true);
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
    return result;
}

} // namespace portolan::analysis
