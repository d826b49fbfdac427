// IR invariants: the bookkeeping a Rewriter must keep, checked independently of it.
#include "passes/Verifier.h"

#include "passes/Match.h"

#include <algorithm>
#include <unordered_set>

namespace portolan::passes {

support::Diagnostics verifyInvariants(const ir::Model &model)
{
    support::Diagnostics out;
    auto report = [&](const ir::Graph &graph, const std::string &node, const std::string &value, std::string message) {
        support::Diagnostic d;
        d.severity = support::Severity::Error;
        d.code = "ir-invariant";
        d.model = model.sourcePath;
        d.graph = graph.name;
        d.node = node;
        d.value = value;
        d.message = std::move(message);
        out.push_back(std::move(d));
    };
    for (const ir::GraphId gid : liveGraphs(model)) {
        const ir::Graph &graph = model.graph(gid);
        std::unordered_set<ir::ValueId> defined; // by an earlier node, an input or an initializer of this graph
        for (const ir::ValueId v : graph.inputs)
            defined.insert(v);
        for (const ir::ValueId v : graph.initializers)
            defined.insert(v);
        auto visible = [&](ir::ValueId v) {
            if (defined.contains(v))
                return true;
            // Outer-scope values are defined before the owner node ran.
            for (ir::GraphId g = model.value(v).graph; g.valid(); g = model.graph(g).parent)
                if (g == gid)
                    return false;
            const ir::Value &value = model.value(v);
            return value.isInitializer() || value.producer.valid() || isGraphInput(model, v);
        };
        for (std::size_t index = 0; index < graph.nodes.size(); ++index) {
            const ir::Node &node = model.node(graph.nodes[index]);
            if (!node.alive)
                continue;
            const std::string name = node.displayName(index);
            for (std::size_t i = 0; i < node.inputs.size(); ++i) {
                const ir::ValueId in = node.inputs[i];
                if (!in.valid())
                    continue;
                const ir::Value &value = model.value(in);
                if (!visible(in))
                    report(graph, name, value.name, "input " + std::to_string(i) + " is not defined before the node");
                const auto &uses = value.uses;
                if (std::find(uses.begin(), uses.end(), ir::Use{node.id, static_cast<std::uint32_t>(i)}) == uses.end())
                    report(graph, name, value.name, "input " + std::to_string(i) + " is missing from the value's uses");
                if (value.producer.valid() && !model.node(value.producer).alive)
                    report(graph, name, value.name, "input " + std::to_string(i) + " is produced by a removed node");
            }
            for (std::size_t o = 0; o < node.outputs.size(); ++o) {
                const ir::ValueId out = node.outputs[o];
                if (!out.valid())
                    continue;
                const ir::Value &value = model.value(out);
                if (value.producer != node.id || value.producerOutput != o)
                    report(graph, name, value.name, "output " + std::to_string(o) + " does not name this node as its producer");
                if (!defined.insert(out).second)
                    report(graph, name, value.name, "output " + std::to_string(o) + " is defined twice");
            }
        }
        for (const ir::ValueId v : graph.outputs) {
            const ir::Value &value = model.value(v);
            if (!visible(v) && !(value.producer.valid() && model.node(value.producer).alive))
                report(graph, {}, value.name, "graph output is not defined");
        }
    }
    // Every recorded use must point at a live node reading the value there.
    for (std::size_t i = 0; i < model.valueCapacity(); ++i) {
        const ir::Value &value = model.value(ir::ValueId(static_cast<std::uint32_t>(i)));
        for (const ir::Use &use : value.uses) {
            const ir::Node &node = model.node(use.node);
            if (!node.alive || use.inputIndex >= node.inputs.size() || node.inputs[use.inputIndex] != value.id)
                report(model.graph(value.graph), node.name, value.name, "a recorded use does not match the node's inputs");
        }
    }
    return out;
}

} // namespace portolan::passes
