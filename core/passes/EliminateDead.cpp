// eliminate-dead: remove what no graph output depends on.
//
//   Before: x → Relu → y (output);  x → Sigmoid → unused;  W (initializer, unread)
//   After:  x → Relu → y (output)
//
// Initializers that are also graph inputs stay: they are part of the model's interface.
//
// Liveness is a backward walk from every live graph's outputs; a node with subgraphs keeps alive the
// outer values its subgraphs capture. Nodes are removed consumers first, so no removed node is ever
// read by a remaining one.
#include "passes/Match.h"
#include "passes/Pass.h"

#include "ir/Topology.h"

#include <unordered_set>

namespace portolan::passes {

static std::unordered_set<ir::NodeId> liveNodesOf(const ir::Model &model)
{
    std::unordered_set<ir::NodeId> live;
    std::vector<ir::ValueId> work;
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::ValueId out : model.graph(g).outputs)
            work.push_back(out);
    while (!work.empty()) {
        const ir::ValueId v = work.back();
        work.pop_back();
        const ir::NodeId p = model.value(v).producer;
        if (!p.valid() || !model.node(p).alive || !live.insert(p).second)
            continue;
        const ir::Node &node = model.node(p);
        for (const ir::ValueId in : node.inputs)
            if (in.valid())
                work.push_back(in);
        for (const ir::ValueId captured : ir::capturedValues(model, p))
            work.push_back(captured);
        // A subgraph's own nodes are kept with their owner (their liveness is the subgraph's business).
        for (const ir::Attribute &a : node.attributes)
            for (const ir::GraphId sub : a.subgraphs)
                for (const ir::ValueId out : model.graph(sub).outputs)
                    work.push_back(out);
    }
    return live;
}

support::Status EliminateDead::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    const std::unordered_set<ir::NodeId> live = liveNodesOf(model);
    for (const ir::GraphId g : liveGraphs(model)) {
        std::vector<ir::NodeId> dead;
        for (const ir::NodeId n : liveNodes(model, g))
            if (!live.contains(n))
                dead.push_back(n);
        if (dead.empty())
            continue;
        if (!cx.rewriter.begin("dead-nodes"))
            return support::Status::ok();
        // Reverse file order erases consumers before producers; dead values may still be read by
        // other dead nodes until those go, so erase in order of "no remaining uses".
        for (auto it = dead.rbegin(); it != dead.rend(); ++it) {
            const ir::Node &node = model.node(*it);
            bool used = false;
            for (const ir::ValueId out : node.outputs)
                used = used || (out.valid() && !model.value(out).uses.empty());
            if (!used)
                cx.rewriter.eraseNode(*it);
        }
        // Anything left was read by a dead node that comes later in file order: repeat until done.
        for (bool progress = true; progress;) {
            progress = false;
            for (const ir::NodeId n : dead) {
                const ir::Node &node = model.node(n);
                if (!node.alive)
                    continue;
                bool used = false;
                for (const ir::ValueId out : node.outputs)
                    used = used || (out.valid() && !model.value(out).uses.empty());
                if (!used) {
                    cx.rewriter.eraseNode(n);
                    progress = true;
                }
            }
        }
        cx.rewriter.count("removed-nodes", static_cast<std::int64_t>(dead.size()));
        cx.rewriter.commit(std::to_string(dead.size()) + " nodes");
    }
    for (const ir::GraphId g : liveGraphs(model)) {
        std::vector<ir::ValueId> unread;
        for (const ir::ValueId v : model.graph(g).initializers)
            if (model.value(v).uses.empty() && !isGraphOutput(model, v) && !isGraphInput(model, v))
                unread.push_back(v);
        if (unread.empty() || !cx.rewriter.begin("unread-initializers"))
            continue;
        for (const ir::ValueId v : unread)
            cx.rewriter.eraseInitializer(v);
        cx.rewriter.count("removed-initializers", static_cast<std::int64_t>(unread.size()));
        cx.rewriter.commit(std::to_string(unread.size()) + " initializers");
    }
    return support::Status::ok();
}

} // namespace portolan::passes
