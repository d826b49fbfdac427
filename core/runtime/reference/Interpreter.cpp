// Interpreter: frames of values per graph execution (subgraph frames see their parents'), use counts
// for releasing intermediates, a memory budget, cancellation, and observer callbacks.
#include "runtime/reference/Interpreter.h"

#include "analysis/ModelValidation.h"
#include "opset/OpVersions.h"

#include "ir/Topology.h"
#include "ir/Type.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/reference/AttributeGuard.h"
#include "runtime/reference/KernelRegistry.h"

#include <map>
#include <set>
#include <sys/resource.h>
#include <unistd.h>

namespace portolan::runtime {

using support::makeError;


static int opsetOf(const ir::Model &model, const ir::Node &node)
{
    return model.opsetVersion(node.domain).value_or(1);
}

Interpreter::Interpreter(const ir::Model &model) : m_model(model) {}
Interpreter::~Interpreter() = default;

support::Status Interpreter::checkSupported() const
{
    if (auto gate = analysis::executionGate(m_model); !gate)
        return gate;
    std::set<std::string> missing;
    for (std::size_t i = 0; i < m_model.nodeCapacity(); ++i) {
        const ir::Node &node = m_model.node(ir::NodeId(static_cast<std::uint32_t>(i)));
        if (node.alive && !findReferenceKernel(node.domain, node.opType, opsetOf(m_model, node)))
            missing.insert(opset::describeOpVersion(node.domain, node.opType, opsetOf(m_model, node)));
    }
    if (missing.empty())
        return support::Status::ok();
    std::string list;
    for (const auto &m : missing)
        list += (list.empty() ? "" : ", ") + m;
    return makeError("no-kernel", "the reference interpreter has no kernel for " + std::to_string(missing.size()) +
                                      " op(s): " + list,
                     m_model.sourcePath);
}

/// One run: the frames, the budget and the caches it needs.
class Interpreter::Execution final : public SubgraphRunner {
public:
    Execution(const ir::Model &model, const RunOptions &options, std::unordered_map<std::uint32_t, RuntimeValue> &constants)
        : m_model(model), m_options(options), m_constants(constants)
    {
        m_budget.cap = options.maxMemoryBytes ? options.maxMemoryBytes : defaultMaxMemory();
    }

    struct Frame {
        const Frame *parent = nullptr;
        std::unordered_map<std::uint32_t, RuntimeValue> values;
    };

    support::Expected<std::vector<RuntimeValue>> runGraph(ir::GraphId graph, Frame &frame);
    /// Runs one node on its reference kernel, reading its inputs from `frame` (and its parents).
    support::Expected<std::vector<RuntimeValue>> runNode(const ir::Node &node, Frame &frame);
    /// Runs one node on given inputs; `frame` holds what its subgraphs capture.
    support::Expected<std::vector<RuntimeValue>> runNode(const ir::Node &node, std::vector<const RuntimeValue *> inputs,
                                                         Frame &frame);

    support::Expected<std::vector<RuntimeValue>> runSubgraph(ir::GraphId graph,
                                                             std::vector<RuntimeValue> inputs) override
    {
        const ir::Graph &g = m_model.graph(graph);
        if (inputs.size() != g.inputs.size())
            return makeError("subgraph-inputs", "subgraph '" + g.name + "' takes " + std::to_string(g.inputs.size()) +
                                                    " inputs, was given " + std::to_string(inputs.size()));
        Frame frame;
        frame.parent = m_current;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            m_budget.charge(inputs[i].ownedBytes()); // released with the frame, like everything in it
            frame.values[g.inputs[i].index] = std::move(inputs[i]);
        }
        const Frame *saved = m_current;
        auto result = runGraph(graph, frame);
        m_current = saved;
        for (const auto &[id, value] : frame.values)
            m_budget.release(value.ownedBytes());
        return result;
    }

    std::int64_t maxLoopIterations() const override { return m_options.maxLoopIterations; }

    MemoryBudget &budget() { return m_budget; }
    std::size_t nodesRun() const { return m_nodesRun; }

private:
    const RuntimeValue *lookup(const Frame &frame, ir::ValueId id);
    const std::vector<ir::NodeId> &order(ir::GraphId graph);
    const std::unordered_map<std::uint32_t, std::uint32_t> &useCounts(ir::GraphId graph);

    const ir::Model &m_model;
    const RunOptions &m_options;
    MemoryBudget m_budget;
    const Frame *m_current = nullptr;
    std::size_t m_nodesRun = 0;
    std::unordered_map<std::uint32_t, RuntimeValue> &m_constants; // the interpreter's, kept across runs
    std::unordered_map<std::uint32_t, std::vector<ir::NodeId>> m_orders;
    std::unordered_map<std::uint32_t, std::unordered_map<std::uint32_t, std::uint32_t>> m_uses;
};

const RuntimeValue *Interpreter::Execution::lookup(const Frame &frame, ir::ValueId id)
{
    for (const Frame *f = &frame; f; f = f->parent)
        if (auto it = f->values.find(id.index); it != f->values.end())
            return &it->second;
    const ir::Value &value = m_model.value(id);
    if (!value.isInitializer())
        return nullptr;
    if (auto it = m_constants.find(id.index); it != m_constants.end())
        return &it->second;
    auto tensor = tensorFromInitializer(value.initializer);
    if (!tensor)
        return nullptr;
    return &m_constants.emplace(id.index, RuntimeValue::ofTensor(std::move(*tensor))).first->second;
}

const std::vector<ir::NodeId> &Interpreter::Execution::order(ir::GraphId graph)
{
    auto it = m_orders.find(graph.index);
    if (it == m_orders.end()) {
        auto sorted = ir::topologicalOrder(m_model, graph);
        it = m_orders.emplace(graph.index, sorted ? std::move(*sorted) : std::vector<ir::NodeId>{}).first;
    }
    return it->second;
}

// How many times each value defined in `graph` is read there (by nodes, their subgraphs, or as an
// output); a value is released when its count reaches zero.
const std::unordered_map<std::uint32_t, std::uint32_t> &Interpreter::Execution::useCounts(ir::GraphId graph)
{
    auto it = m_uses.find(graph.index);
    if (it != m_uses.end())
        return it->second;
    std::unordered_map<std::uint32_t, std::uint32_t> counts;
    for (const ir::NodeId n : order(graph)) {
        const ir::Node &node = m_model.node(n);
        for (const ir::ValueId in : node.inputs)
            if (in.valid())
                ++counts[in.index];
        if (!node.attributes.empty())
            for (const ir::ValueId in : ir::capturedValues(m_model, n))
                ++counts[in.index];
    }
    for (const ir::ValueId out : m_model.graph(graph).outputs)
        counts[out.index] += 1u << 30; // never released before the graph returns
    return m_uses.emplace(graph.index, std::move(counts)).first->second;
}

support::Expected<std::vector<RuntimeValue>> Interpreter::Execution::runNode(const ir::Node &node, Frame &frame)
{
    std::vector<const RuntimeValue *> inputs;
    inputs.reserve(node.inputs.size());
    for (const ir::ValueId in : node.inputs) {
        const RuntimeValue *v = in.valid() ? lookup(frame, in) : nullptr;
        if (in.valid() && !v)
            return makeError("missing-value", "input '" + m_model.value(in).name + "' has no value at run time",
                             m_model.sourcePath, node.name.empty() ? node.opType : node.name);
        inputs.push_back(v);
    }
    return runNode(node, std::move(inputs), frame);
}

support::Expected<std::vector<RuntimeValue>> Interpreter::Execution::runNode(const ir::Node &node,
                                                                             std::vector<const RuntimeValue *> inputs,
                                                                             Frame &frame)
{
    const int opset = opsetOf(m_model, node);
    const KernelFunction kernel = findReferenceKernel(node.domain, node.opType, opset);
    if (!kernel)
        return makeError("no-kernel", "no reference kernel for " + node.opType + " at opset " + std::to_string(opset),
                         m_model.sourcePath, node.name.empty() ? node.opType : node.name);

    KernelContext ctx(m_model, node, opset, std::move(inputs), m_budget, *this);
    m_current = &frame;
    if (auto st = kernel(ctx); !st)
        return st.error();
    if (auto st = checkAttributesHonoured(ctx, "Portolan's reference kernel"); !st)
        return st.error();
    ++m_nodesRun;

    auto &outputs = ctx.outputs();
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        if (!node.outputs[k].valid())
            continue;
        const RuntimeValue &v = outputs[k];
        if (v.isTensor() && !v.tensor.defined())
            return ctx.error("produced no value for output " + std::to_string(k) + " '" +
                             m_model.value(node.outputs[k]).name + "'");
        m_budget.charge(v.ownedBytes());
    }
    return std::move(outputs);
}

support::Expected<std::vector<RuntimeValue>> Interpreter::Execution::runGraph(ir::GraphId graphId, Frame &frame)
{
    const ir::Graph &graph = m_model.graph(graphId);
    auto remaining = useCounts(graphId); // a copy, consumed by this execution
    for (const ir::NodeId n : order(graphId)) {
        if (m_options.cancel && m_options.cancel->load())
            return makeError("cancelled", "the run was cancelled", m_model.sourcePath);
        const ir::Node &node = m_model.node(n);
        auto produced = runNode(node, frame);
        if (!produced)
            return produced.takeError();
        auto &outputs = *produced;
        if (m_options.observer)
            m_options.observer->nodeFinished(node, outputs);
        for (std::size_t k = 0; k < node.outputs.size(); ++k)
            if (node.outputs[k].valid()) {
                const ir::ValueId out = node.outputs[k];
                if (remaining.contains(out.index))
                    frame.values[out.index] = std::move(outputs[k]);
                else
                    m_budget.release(outputs[k].ownedBytes()); // nobody reads it
            }

        // release what this node was the last to read (only values of this frame)
        auto releaseIfDone = [&](ir::ValueId in) {
            auto it = remaining.find(in.index);
            if (it == remaining.end() || --it->second != 0)
                return;
            if (auto v = frame.values.find(in.index); v != frame.values.end()) {
                m_budget.release(v->second.ownedBytes());
                frame.values.erase(v);
            }
        };
        for (const ir::ValueId in : node.inputs)
            if (in.valid())
                releaseIfDone(in);
        if (!node.attributes.empty())
            for (const ir::ValueId in : ir::capturedValues(m_model, n))
                releaseIfDone(in);
    }

    std::vector<RuntimeValue> results;
    for (const ir::ValueId out : graph.outputs) {
        const RuntimeValue *v = lookup(frame, out);
        if (!v)
            return makeError("missing-output", "graph output '" + m_model.value(out).name + "' was never produced",
                             m_model.sourcePath);
        results.push_back(*v);
    }
    return results;
}


support::Expected<NamedValues> Interpreter::run(const NamedValues &feeds, const RunOptions &options)
{
    if (auto st = checkSupported(); !st)
        return st.error();
    const ir::Graph &main = m_model.graph(m_model.mainGraph());
    Execution execution(m_model, options, m_constants);
    Execution::Frame frame;

    auto bound = bindFeeds(m_model, feeds, options.checkInputShapes);
    if (!bound)
        return bound.takeError();
    for (std::size_t i = 0; i < main.inputs.size(); ++i)
        if ((*bound)[i])
            frame.values[main.inputs[i].index] = *(*bound)[i];

    auto results = execution.runGraph(m_model.mainGraph(), frame);
    m_stats.nodesRun = execution.nodesRun();
    m_stats.peakBytes = execution.budget().peak;
    if (!results)
        return results.takeError();
    NamedValues named;
    for (std::size_t i = 0; i < main.outputs.size(); ++i)
        named.emplace_back(m_model.value(main.outputs[i]).name, std::move((*results)[i]));
    return named;
}

support::Expected<std::vector<RuntimeValue>>
Interpreter::runNode(const ir::Node &node, std::vector<const RuntimeValue *> inputs,
                     const std::unordered_map<std::uint32_t, RuntimeValue> &captured, const RunOptions &options)
{
    Execution execution(m_model, options, m_constants);
    Execution::Frame frame;
    frame.values = captured;
    return execution.runNode(node, std::move(inputs), frame);
}

} // namespace portolan::runtime
