// Recording inferred types (see ShapeRecording.h).
#include "passes/ShapeRecording.h"

#include "analysis/ShapeInference.h"
#include "ir/Type.h"
#include "passes/Match.h"

#include <algorithm>
#include <cstdlib>

namespace portolan::passes {

bool refinesType(const onnx::TypeProto &declared, const onnx::TypeProto &inferred)
{
    if (declared.value_case() == onnx::TypeProto::VALUE_NOT_SET)
        return true;
    if (declared.value_case() != inferred.value_case())
        return false;
    if (declared.value_case() != onnx::TypeProto::kTensorType)
        return true; // sequences, optionals, maps: ONNX's merge is trusted
    const auto &d = declared.tensor_type();
    const auto &i = inferred.tensor_type();
    if (d.elem_type() != 0 && d.elem_type() != i.elem_type())
        return false;
    if (!d.has_shape())
        return true;
    if (!i.has_shape() || d.shape().dim_size() != i.shape().dim_size())
        return false;
    for (int k = 0; k < d.shape().dim_size(); ++k) {
        const auto &dd = d.shape().dim(k);
        const auto &id = i.shape().dim(k);
        if (dd.has_dim_value() && (!id.has_dim_value() || id.dim_value() != dd.dim_value()))
            return false;
        if (dd.has_dim_param() && !id.has_dim_value() && (!id.has_dim_param() || id.dim_param() != dd.dim_param()))
            return false;
    }
    return true;
}

// The node an inference finding names: by name, or "#index (Op)" for an unnamed node.
static ir::NodeId nodeNamed(const ir::Model &model, const std::string &name)
{
    const std::vector<ir::NodeId> nodes = liveNodes(model, model.mainGraph());
    if (name.empty())
        return {};
    for (const ir::NodeId n : nodes)
        if (model.node(n).name == name)
            return n;
    if (name.front() == '#') {
        const std::size_t index = std::strtoul(name.c_str() + 1, nullptr, 10);
        if (index < nodes.size())
            return nodes[index];
    }
    return {};
}

std::size_t recordInferredTypes(PassContext &cx, const std::string &pattern)
{
    ir::Model &model = cx.model;
    const analysis::ShapeInferenceResult inferred = analysis::inferShapes(model);
    for (const support::Diagnostic &d : inferred.findings) {
        cx.rewriter.notifyMatchFailure(nodeNamed(model, d.node), pattern, d.message);
        cx.rewriter.count("inference-errors");
    }
    std::vector<std::pair<ir::ValueId, const onnx::TypeProto *>> updates;
    auto consider = [&](const ir::Graph &graph, const std::string &name, const onnx::TypeProto &type) {
        const auto it = graph.scope.find(name);
        if (it == graph.scope.end() || model.value(it->second).graph != graph.id)
            return;
        const ir::Value &value = model.value(it->second);
        if (value.isInitializer() || isGraphInput(model, value.id) || value.declarationOnly)
            return;
        if (value.info.has_type() && value.info.type().SerializeAsString() == type.SerializeAsString())
            return;
        if (value.info.has_type() && !refinesType(value.info.type(), type)) {
            cx.rewriter.notifyMatchFailure(value.producer, pattern,
                                           "inferred type " + ir::typeString(type) + " of '" + name +
                                               "' contradicts its declaration " + ir::typeString(value.info.type()));
            return;
        }
        updates.emplace_back(value.id, &type);
    };
    for (const auto &[name, type] : inferred.types)
        consider(model.graph(model.mainGraph()), name, type);
    for (const ir::GraphId g : liveGraphs(model)) // bodies: each value in the graph that declares it
        if (g != model.mainGraph())
            for (const auto &[name, value] : model.graph(g).scope)
                if (const auto it = inferred.subgraphTypes.find(name); it != inferred.subgraphTypes.end())
                    consider(model.graph(g), name, it->second);
    if (updates.empty() || !cx.rewriter.begin(pattern))
        return 0;
    // A stable order (the map's is not): by value id.
    std::sort(updates.begin(), updates.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &[value, type] : updates)
        cx.rewriter.setValueType(value, *type);
    cx.rewriter.count("typed-values", static_cast<std::int64_t>(updates.size()));
    cx.rewriter.commit(std::to_string(updates.size()) + " values typed");
    return updates.size();
}

} // namespace portolan::passes
