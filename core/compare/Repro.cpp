// Cutting a repro out of run B's model: the node and `depth` levels of producers (Constant producers
// always come along), every value they read from outside the cut becomes a graph input fed with
// B's tensor, weights are embedded, and the node's outputs are the repro's outputs.
#include "compare/Repro.h"

#include "compare/CaptureObserver.h"

#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "ir/Topology.h"
#include "runtime/TensorProtoIO.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <unordered_set>

namespace portolan::compare {

using support::makeError;

namespace {


onnx::ValueInfoProto infoOf(const std::string &name, const runtime::Tensor &tensor)
{
    onnx::ValueInfoProto info;
    info.set_name(name);
    auto *type = info.mutable_type()->mutable_tensor_type();
    type->set_elem_type(tensor.dataType());
    auto *shape = type->mutable_shape();
    for (const std::int64_t d : tensor.shape())
        shape->add_dim()->set_dim_value(d);
    return info;
}

} // namespace

support::Expected<Repro> extractRepro(const RunSide &b, const runtime::NamedValues &feeds, const ReproRequest &request)
{
    const ir::Model &model = *b.model;
    if (!request.node.valid() || request.node.index >= model.nodeCapacity() || !model.node(request.node).alive ||
        model.node(request.node).graph != model.mainGraph())
        return makeError("bad-node", "the repro's node is not a node of the main graph", model.sourcePath);
    // the cut: the node, `depth` levels of producers, and the Constant nodes any of them reads
    std::set<ir::NodeId> cut{request.node};
    std::vector<ir::NodeId> frontier{request.node};
    for (int level = 0; level <= request.depth; ++level) {
        std::vector<ir::NodeId> next;
        for (const ir::NodeId n : frontier)
            for (const ir::ValueId in : model.node(n).inputs) {
                if (!in.valid() || !model.value(in).producer.valid())
                    continue;
                const ir::NodeId p = model.value(in).producer;
                const bool constant = model.node(p).opType == "Constant" && model.node(p).domain.empty();
                if ((level < request.depth || constant) && cut.insert(p).second)
                    next.push_back(p);
            }
        frontier = std::move(next);
    }
    // what the cut reads from outside it: graph inputs and intermediates (fed), initializers (embedded)
    std::vector<ir::ValueId> boundary, weights;
    std::unordered_set<std::uint32_t> seen, wanted;
    auto consider = [&](ir::ValueId v) {
        if (!v.valid() || !seen.insert(v.index).second)
            return;
        const ir::Value &value = model.value(v);
        if (value.producer.valid() && cut.contains(value.producer))
            return;
        if (value.isInitializer())
            weights.push_back(v);
        else
            boundary.push_back(v);
    };
    for (const ir::NodeId n : cut) {
        for (const ir::ValueId in : model.node(n).inputs)
            consider(in);
        if (!model.node(n).attributes.empty())
            for (const ir::ValueId in : ir::capturedValues(model, n))
                consider(in);
    }
    for (const ir::ValueId v : boundary)
        wanted.insert(v.index);
    for (const ir::ValueId out : model.node(request.node).outputs)
        if (out.valid())
            wanted.insert(out.index);

    auto captured = captureValues(b, feeds, wanted);
    if (!captured)
        return captured.takeError();
    auto valueOf = [&](ir::ValueId v) -> const runtime::RuntimeValue * {
        if (const auto it = (*captured).find(v.index); it != (*captured).end())
            return &it->second;
        for (const auto &[name, value] : feeds)
            if (name == model.value(v).name)
                return &value;
        return nullptr;
    };

    Repro repro;
    repro.model = ir::toModelProto(model);
    repro.model.clear_graph();
    onnx::GraphProto &graph = *repro.model.mutable_graph();
    graph.set_name("repro_" + displayNameOf(model.node(request.node)));
    auto order = ir::topologicalOrder(model, model.mainGraph());
    if (!order)
        return order.takeError();
    for (const ir::NodeId n : *order)
        if (cut.contains(n)) {
            *graph.add_node() = ir::toNodeProto(model, n);
            repro.nodes.push_back(displayNameOf(model.node(n)));
        }
    for (const ir::ValueId v : boundary) {
        const runtime::RuntimeValue *value = valueOf(v);
        if (!value || !value->isTensor())
            return makeError("repro-input", "run " + b.label + " produced no tensor for '" + model.value(v).name +
                                                "', which the repro reads", model.sourcePath);
        *graph.add_input() = infoOf(model.value(v).name, value->tensor);
        repro.inputs.emplace_back(model.value(v).name, *value);
    }
    for (const ir::ValueId w : weights) {
        auto tensor = runtime::tensorFromInitializer(model.value(w).initializer);
        if (!tensor)
            return tensor.takeError();
        *graph.add_initializer() = runtime::tensorToProto(*tensor, model.value(w).name); // embedded: the repro stands alone
    }
    for (const ir::ValueId out : model.node(request.node).outputs) {
        if (!out.valid())
            continue;
        const runtime::RuntimeValue *value = valueOf(out);
        if (!value || !value->isTensor())
            return makeError("repro-output", "run " + b.label + " produced no tensor for '" + model.value(out).name + "'",
                             model.sourcePath);
        *graph.add_output() = infoOf(model.value(out).name, value->tensor);
        repro.actual.emplace_back(model.value(out).name, *value);
    }

    // the reference interpreter on the repro itself gives the expected outputs
    onnx::ModelProto copy = repro.model;
    auto loaded = ir::loadModelProto(std::move(copy), "repro", model.baseDir);
    if (!loaded)
        return makeError("repro-invalid", "the cut-out model does not load: " + loaded.error().format(), model.sourcePath);
    auto expected = runtime::Interpreter(*loaded->model).run(repro.inputs);
    if (!expected)
        return makeError("repro-invalid", "the reference interpreter cannot run the repro: " + expected.error().format(),
                         model.sourcePath);
    repro.expected = std::move(*expected);
    for (std::size_t k = 0; k < repro.expected.size() && k < repro.actual.size(); ++k)
        repro.metrics.push_back(compareTensors(repro.expected[k].second.tensor, repro.actual[k].second.tensor, request.tolerance));
    return repro;
}

support::Status writeRepro(const Repro &repro, const std::string &dir, const std::string &readme, bool force)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec) && (!fs::is_directory(dir, ec) || (!fs::is_empty(dir, ec) && !force)))
        return makeError("directory-not-empty", "already exists and holds files (use --force to write into it)", dir);
    const fs::path data = fs::path(dir) / "test_data_set_0";
    fs::create_directories(data, ec);
    if (ec)
        return makeError("cannot-write", "cannot create the folder: " + ec.message(), dir);
    {
        std::ofstream out(fs::path(dir) / "model.onnx", std::ios::binary | std::ios::trunc);
        if (!out || !repro.model.SerializeToOstream(&out))
            return makeError("cannot-write", "cannot write model.onnx", dir);
    }
    for (std::size_t k = 0; k < repro.inputs.size(); ++k)
        if (auto st = runtime::writeValueFile(repro.inputs[k].second, repro.inputs[k].first,
                                              (data / ("input_" + std::to_string(k) + ".pb")).string(), true); !st)
            return st;
    for (std::size_t k = 0; k < repro.expected.size(); ++k)
        if (auto st = runtime::writeValueFile(repro.expected[k].second, repro.expected[k].first,
                                              (data / ("output_" + std::to_string(k) + ".pb")).string(), true); !st)
            return st;
    std::ofstream notes(fs::path(dir) / "README.md", std::ios::trunc);
    if (!(notes << readme))
        return makeError("cannot-write", "cannot write README.md", dir);
    return support::Status::ok();
}

} // namespace portolan::compare
