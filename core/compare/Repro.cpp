// Cutting a repro out of run B's model: the nodes of the cut (Constant producers always come
// along), every value they read from outside it becomes a graph input fed with B's tensor, weights
// are embedded, and the values no node of the cut reads are its outputs. Shrinking tries smaller
// cuts of the same capture, keeping each that still fails.
#include "compare/Repro.h"

#include "compare/CaptureObserver.h"

#include "ir/ModelLoader.h"
#include "ir/ModelSaver.h"
#include "ir/Topology.h"
#include "runtime/TensorProtoIO.h"
#include "support/StagedFile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <unordered_set>

namespace portolan::compare {

using support::makeError;

bool Repro::reproduces() const
{
    return std::any_of(metrics.begin(), metrics.end(), [](const TensorMetrics &m) { return !m.passed; });
}

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

/// What a node reads: its inputs and the outer-scope values its subgraphs capture.
std::vector<ir::ValueId> readsOf(const ir::Model &model, ir::NodeId n)
{
    std::vector<ir::ValueId> reads = model.node(n).inputs;
    if (!model.node(n).attributes.empty())
        for (const ir::ValueId v : ir::capturedValues(model, n))
            reads.push_back(v);
    return reads;
}

/// Builds the repros of subsets of one cut from one capture of run B.
class ReproBuilder {
public:
    ReproBuilder(const RunSide &b, const runtime::NamedValues &feeds, std::vector<ir::NodeId> order,
                 std::unordered_map<std::uint32_t, runtime::RuntimeValue> captured, const Tolerance &tolerance)
        : m_b(b), m_model(*b.model), m_feeds(feeds), m_order(std::move(order)), m_captured(std::move(captured)),
          m_tolerance(tolerance)
    {
        m_header = m_model.header; // the model's proto less its graph
    }

    /// The repro of `nodes` (non-Constant nodes of the cut; their Constant producers are added).
    support::Expected<Repro> build(const std::vector<ir::NodeId> &nodes, const std::string &graphName) const;

private:
    const runtime::RuntimeValue *valueOf(ir::ValueId v) const
    {
        if (const auto it = m_captured.find(v.index); it != m_captured.end())
            return &it->second;
        for (const auto &[name, value] : m_feeds)
            if (name == m_model.value(v).name)
                return &value;
        return nullptr;
    }

    const RunSide &m_b;
    const ir::Model &m_model;
    const runtime::NamedValues &m_feeds;
    std::vector<ir::NodeId> m_order; ///< the main graph, topologically
    std::unordered_map<std::uint32_t, runtime::RuntimeValue> m_captured;
    Tolerance m_tolerance;
    onnx::ModelProto m_header; ///< the model without its graph: IR version, opsets, metadata
};

support::Expected<Repro> ReproBuilder::build(const std::vector<ir::NodeId> &nodes, const std::string &graphName) const
{
    const ir::Model &model = m_model;
    std::set<ir::NodeId> cut(nodes.begin(), nodes.end());
    for (const ir::NodeId n : nodes)
        for (const ir::ValueId in : readsOf(model, n))
            if (in.valid() && model.value(in).producer.valid() && model.node(model.value(in).producer).isConstant())
                cut.insert(model.value(in).producer);
    // what the cut reads from outside it: graph inputs and intermediates (fed), initializers (embedded)
    std::vector<ir::ValueId> boundary, weights;
    std::unordered_set<std::uint32_t> seen, readInside;
    for (const ir::NodeId n : cut)
        for (const ir::ValueId v : readsOf(model, n)) {
            if (!v.valid())
                continue;
            readInside.insert(v.index);
            const ir::Value &value = model.value(v);
            if ((value.producer.valid() && cut.contains(value.producer)) || !seen.insert(v.index).second)
                continue;
            (value.isInitializer() ? weights : boundary).push_back(v);
        }
    // its outputs: what it computes that no node of the cut reads, and something outside does
    std::unordered_set<std::uint32_t> graphOutputs;
    for (const ir::ValueId v : model.graph(model.mainGraph()).outputs)
        graphOutputs.insert(v.index);
    std::vector<ir::ValueId> outputs;
    for (const ir::NodeId n : m_order) {
        if (!cut.contains(n) || model.node(n).isConstant())
            continue;
        for (const ir::ValueId out : model.node(n).outputs) {
            if (!out.valid() || readInside.contains(out.index))
                continue;
            const auto &uses = model.value(out).uses;
            const bool readOutside = std::any_of(uses.begin(), uses.end(), [&](const ir::Use &u) { return model.node(u.node).alive; });
            if (readOutside || graphOutputs.contains(out.index) || n == nodes.back())
                outputs.push_back(out);
        }
    }

    Repro repro;
    repro.model = m_header;
    onnx::GraphProto &graph = *repro.model.mutable_graph();
    graph.set_name(graphName);
    for (const ir::NodeId n : m_order)
        if (cut.contains(n)) {
            *graph.add_node() = ir::toNodeProto(model, n);
            repro.nodes.push_back(displayNameOf(model.node(n)));
        }
    for (const ir::ValueId v : boundary) {
        const runtime::RuntimeValue *value = valueOf(v);
        if (!value || !value->isTensor())
            return makeError("repro-input", "run " + m_b.label + " produced no tensor for '" + model.value(v).name +
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
    for (const ir::ValueId out : outputs) {
        const runtime::RuntimeValue *value = valueOf(out);
        if (!value || !value->isTensor())
            return makeError("repro-output", "run " + m_b.label + " produced no tensor for '" + model.value(out).name + "'",
                             model.sourcePath);
        *graph.add_output() = infoOf(model.value(out).name, value->tensor);
        repro.actual.emplace_back(model.value(out).name, *value);
    }

    // the reference interpreter on the repro itself gives the expected outputs; B on it, the actual ones
    onnx::ModelProto copy = repro.model;
    auto loaded = ir::loadModelProto(std::move(copy), "repro", model.baseDir);
    if (!loaded)
        return makeError("repro-invalid", "the cut-out model does not load: " + loaded.error().format(), model.sourcePath);
    auto expected = runtime::Interpreter(*loaded->model).run(repro.inputs);
    if (!expected)
        return makeError("repro-invalid", "the reference interpreter cannot run the repro: " + expected.error().format(),
                         model.sourcePath);
    repro.expected = std::move(*expected);
    if (m_b.runModel) {
        auto actual = m_b.runModel(*loaded->model, repro.inputs);
        if (!actual)
            return makeError("repro-run", "run " + m_b.label + " cannot run the repro: " + actual.error().format(), model.sourcePath);
        repro.actual = std::move(*actual);
        repro.standalone = true;
    }
    for (std::size_t k = 0; k < repro.expected.size() && k < repro.actual.size(); ++k)
        repro.metrics.push_back(compareTensors(repro.expected[k].second.tensor, repro.actual[k].second.tensor, m_tolerance));
    return repro;
}

/// The cut as requested: the node and `depth` levels of its producers (Constant nodes aside), in
/// topological order.
std::vector<ir::NodeId> requestedCut(const ir::Model &model, const std::vector<ir::NodeId> &order, const ReproRequest &request)
{
    std::set<ir::NodeId> cut{request.node};
    std::vector<ir::NodeId> frontier{request.node};
    for (int level = 0; level < request.depth && !frontier.empty(); ++level) {
        std::vector<ir::NodeId> next;
        for (const ir::NodeId n : frontier)
            for (const ir::ValueId in : readsOf(model, n))
                if (in.valid() && model.value(in).producer.valid() && model.value(in).graph == model.mainGraph()) {
                    const ir::NodeId p = model.value(in).producer;
                    if (!model.node(p).isConstant() && cut.insert(p).second)
                        next.push_back(p);
                }
        frontier = std::move(next);
    }
    std::vector<ir::NodeId> ordered;
    for (const ir::NodeId n : order)
        if (cut.contains(n))
            ordered.push_back(n);
    return ordered;
}

/// Polygraphy's reduction, on a cut in topological order: drop the longest prefix, then the longest
/// suffix, that keep it failing (halving the step on each miss), then each remaining node in turn.
/// A candidate that cannot be built or run counts as not failing.
std::vector<ir::NodeId> shrinkCut(std::vector<ir::NodeId> cut, const std::function<bool(const std::vector<ir::NodeId> &)> &fails)
{
    auto slice = [&](std::size_t from, std::size_t to) { return std::vector<ir::NodeId>(cut.begin() + from, cut.begin() + to); };
    std::size_t lo = 0, hi = cut.size();
    for (std::size_t step = (hi - lo) / 2; step >= 1;)
        if (hi - lo > step && fails(slice(lo + step, hi)))
            lo += step;
        else
            step /= 2;
    for (std::size_t step = (hi - lo) / 2; step >= 1;)
        if (hi - lo > step && fails(slice(lo, hi - step)))
            hi -= step;
        else
            step /= 2;
    cut = slice(lo, hi);
    for (std::size_t i = 0; i < cut.size() && cut.size() > 1;) {
        std::vector<ir::NodeId> without = cut;
        without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
        if (fails(without))
            cut = std::move(without);
        else
            ++i;
    }
    return cut;
}

} // namespace

support::Expected<Repro> extractRepro(const RunSide &b, const runtime::NamedValues &feeds, const ReproRequest &request)
{
    const ir::Model &model = *b.model;
    if (!request.node.valid() || request.node.index >= model.nodeCapacity() || !model.node(request.node).alive ||
        model.node(request.node).graph != model.mainGraph())
        return makeError("bad-node", "the repro's node is not a node of the main graph", model.sourcePath);
    auto order = ir::topologicalOrder(model, model.mainGraph());
    if (!order)
        return order.takeError();
    const std::vector<ir::NodeId> cut = requestedCut(model, *order, request);

    // one run of B keeps everything any smaller cut could read or write
    std::unordered_set<std::uint32_t> wanted;
    for (const ir::NodeId n : cut) {
        for (const ir::ValueId v : readsOf(model, n))
            if (v.valid() && !model.value(v).isInitializer())
                wanted.insert(v.index);
        for (const ir::ValueId v : model.node(n).outputs)
            if (v.valid())
                wanted.insert(v.index);
    }
    auto captured = captureValues(b, feeds, wanted);
    if (!captured)
        return captured.takeError();
    const ReproBuilder builder(b, feeds, *order, std::move(*captured), request.tolerance);
    const std::string name = "repro_" + displayNameOf(model.node(request.node));

    auto repro = builder.build(cut, name);
    if (!repro)
        return repro;
    std::size_t checks = 0;
    if (request.shrink && cut.size() > 1 && repro->reproduces()) {
        // the cut only ever shrinks to a candidate that failed, so the last one that did is the result
        std::optional<Repro> lastFailing;
        const std::vector<ir::NodeId> small = shrinkCut(cut, [&](const std::vector<ir::NodeId> &candidate) {
            ++checks;
            auto tried = builder.build(candidate, name);
            if (!tried || !tried->reproduces())
                return false;
            lastFailing = std::move(*tried);
            return true;
        });
        if (small.size() < cut.size())
            repro = std::move(*lastFailing);
    }
    repro->nodesBeforeShrink = cut.size();
    repro->shrinkChecks = checks;
    return repro;
}

support::Status writeRepro(const Repro &repro, const std::string &dir, const std::string &readme, bool force)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec) && (!fs::is_directory(dir, ec) || (!fs::is_empty(dir, ec) && !force)))
        return makeError("directory-not-empty", "already exists and holds files (use --force to write into it)", dir);
    const fs::path data = fs::path(dir) / "test_data_set_0";
    // an earlier repro's data files would be read as this one's inputs and outputs
    for (const auto &entry : fs::directory_iterator(data, ec))
        if (entry.path().extension() == ".pb")
            fs::remove(entry.path(), ec);
    ec.clear();
    fs::create_directories(data, ec);
    if (ec)
        return makeError("cannot-write", "cannot create the folder: " + ec.message(), dir);
    const support::Overwrite replace = force ? support::Overwrite::Allow : support::Overwrite::Refuse;
    if (auto st = support::writeFileWhole((fs::path(dir) / "model.onnx").string(),
                                          ir::serializeDeterministic(repro.model), replace); !st)
        return st;
    for (std::size_t k = 0; k < repro.inputs.size(); ++k)
        if (auto st = runtime::writeValueFile(repro.inputs[k].second, repro.inputs[k].first,
                                              (data / ("input_" + std::to_string(k) + ".pb")).string(), true); !st)
            return st;
    for (std::size_t k = 0; k < repro.expected.size(); ++k)
        if (auto st = runtime::writeValueFile(repro.expected[k].second, repro.expected[k].first,
                                              (data / ("output_" + std::to_string(k) + ".pb")).string(), true); !st)
            return st;
    return support::writeFileWhole((fs::path(dir) / "README.md").string(), readme, replace);
}

} // namespace portolan::compare
