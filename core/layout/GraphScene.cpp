// GraphScene::build: lays out each open group bottom-up (children first, so a frame's size is known
// when its parent is laid out), places them top-down, then draws every dataflow edge between the
// visible boxes it ends up joining, reusing the engine's route where both ends share one layout.
#include "layout/GraphScene.h"

#include <algorithm>
#include <deque>
#include <tuple>

namespace portolan::layout {

namespace {

// A group whose whole subtree holds at most one node is drawn as that node: a frame around a single
// box (PyTorch's "/layer1/conv1/Conv") says nothing.
bool transparent(const ir::ScopeGroup &g) { return g.totalNodes <= 1; }

// Constant nodes are drawn on their consumers, as initializers are: a box per shape constant buries
// a transformer's structure under dozens of tiny boxes with long edges.
bool inlined(const ir::Node &node) { return node.isConstant(); }

void collectSubtreeNodes(const ir::NameScopeTree &tree, std::size_t group, std::vector<ir::NodeId> &out)
{
    const auto &g = tree.group(group);
    out.insert(out.end(), g.nodes.begin(), g.nodes.end());
    for (auto child : g.children)
        collectSubtreeNodes(tree, child, out);
}

struct Item {
    BoxKind kind = BoxKind::Node;
    ir::NodeId node;
    std::size_t group = 0;
    ir::ValueId value;
    Size size;
};

} // namespace

class SceneBuilder {
public:
    SceneBuilder(const ir::Model &model, ir::GraphId graph, const ir::NameScopeTree &tree, const std::set<std::size_t> &expanded,
            const MeasureBox &measure, const SceneOptions &options, SceneLayoutCache &cache)
        : m_model(model), m_graph(graph), m_tree(tree), m_expanded(expanded), m_measure(measure), m_options(options),
          m_cache(cache)
    {}

    support::Expected<GraphScene> run(GraphScene &scene)
    {
        auto root = layOut(0);
        if (!root)
            return root.takeError();
        m_scene = &scene;
        place(*root, {0, 0}, 0, {});
        connect();
        scene.m_bounds = {0, 0, root->layout->size.width, root->layout->size.height};
        for (const auto &[engine, count] : m_engineCounts)
            scene.m_engines += (scene.m_engines.empty() ? "" : ", ") + engine + "×" + std::to_string(count);
        return std::move(scene);
    }

private:
    struct Laid {
        std::string key;
        std::vector<Item> items;
        const SceneLayoutCache::GroupLayout *layout = nullptr;
        std::vector<Laid> children; ///< per item: the open child group's layout (empty key otherwise)
    };

    bool isOpen(std::size_t group) const { return group == 0 || m_expanded.count(group) != 0; }

    Size measured(const Item &item) const
    {
        SceneBox probe;
        probe.kind = item.kind;
        probe.node = item.node;
        probe.group = item.group;
        probe.value = item.value;
        return m_measure(probe);
    }

    // The group's direct items (transparent child groups contribute their node), and for every node
    // of its subtree the item standing for it.
    std::vector<Item> itemsOf(std::size_t group, std::unordered_map<std::uint32_t, std::size_t> &itemOfNode) const
    {
        std::vector<Item> items;
        const auto &g = m_tree.group(group);
        std::vector<ir::NodeId> below;
        for (auto child : g.children) {
            below.clear();
            collectSubtreeNodes(m_tree, child, below);
            if (transparent(m_tree.group(child))) {
                for (auto n : below) {
                    if (inlined(m_model.node(n)))
                        continue;
                    itemOfNode[n.index] = items.size();
                    items.push_back({BoxKind::Node, n, 0, {}, {}});
                }
                continue;
            }
            for (auto n : below)
                itemOfNode[n.index] = items.size();
            items.push_back({isOpen(child) ? BoxKind::ExpandedGroup : BoxKind::CollapsedGroup, {}, child, {}, {}});
        }
        for (auto n : g.nodes) {
            if (inlined(m_model.node(n)))
                continue;
            itemOfNode[n.index] = items.size();
            items.push_back({BoxKind::Node, n, 0, {}, {}});
        }
        return items;
    }

    support::Expected<Laid> layOut(std::size_t group)
    {
        Laid laid;
        std::unordered_map<std::uint32_t, std::size_t> itemOfNode;
        laid.items = itemsOf(group, itemOfNode);
        std::unordered_map<std::uint32_t, std::size_t> terminalItem;
        const ir::Graph &graph = m_model.graph(m_graph);
        if (group == 0) {
            for (auto v : graph.inputs)
                if (!m_model.value(v).isInitializer()) {
                    terminalItem[v.index] = laid.items.size();
                    laid.items.push_back({BoxKind::GraphInput, {}, 0, v, {}});
                }
            for (auto v : graph.outputs) {
                laid.items.push_back({BoxKind::GraphOutput, {}, 0, v, {}});
                terminalItem.emplace(~v.index, laid.items.size() - 1); // outputs keyed apart from inputs
            }
        }

        laid.key = std::to_string(group) + "(";
        laid.children.resize(laid.items.size());
        for (std::size_t i = 0; i < laid.items.size(); ++i) {
            Item &item = laid.items[i];
            if (item.kind == BoxKind::ExpandedGroup) {
                auto child = layOut(item.group);
                if (!child)
                    return child.takeError();
                item.size = {child->layout->size.width + 2 * m_options.framePadding,
                             child->layout->size.height + 2 * m_options.framePadding + m_options.frameHeader};
                laid.key += child->key + ",";
                laid.children[i] = std::move(*child);
            } else {
                item.size = measured(item);
            }
        }
        laid.key += ")";

        if (auto it = m_cache.layouts.find(laid.key); it != m_cache.layouts.end()) {
            laid.layout = &it->second;
            ++m_engineCounts[it->second.engine + " (cached)"];
            return laid;
        }

        LayoutInput input;
        for (const auto &item : laid.items)
            input.nodes.push_back({item.size.width, item.size.height});
        std::set<std::pair<std::size_t, std::size_t>> seen;
        auto addEdge = [&](std::size_t from, std::size_t to) {
            if (from != to && seen.emplace(from, to).second)
                input.edges.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to)});
        };
        for (const auto &[nodeIndex, item] : itemOfNode) {
            const ir::Node &node = m_model.node(ir::NodeId(nodeIndex));
            for (auto v : node.inputs) {
                if (!v.valid())
                    continue;
                const ir::Value &value = m_model.value(v);
                if (value.producer.valid()) {
                    if (auto p = itemOfNode.find(value.producer.index); p != itemOfNode.end())
                        addEdge(p->second, item);
                } else if (auto t = terminalItem.find(v.index); t != terminalItem.end()) {
                    addEdge(t->second, item);
                }
            }
        }
        if (group == 0)
            for (auto v : graph.outputs) {
                const ir::Value &value = m_model.value(v);
                auto out = terminalItem.find(~v.index);
                if (value.producer.valid()) {
                    if (auto p = itemOfNode.find(value.producer.index); p != itemOfNode.end())
                        addEdge(p->second, out->second);
                } else if (auto t = terminalItem.find(v.index); t != terminalItem.end()) {
                    addEdge(t->second, out->second); // an input passed straight through
                }
            }

        LayoutEngine *engine = m_options.precise && laid.items.size() <= m_options.preciseLimit ? m_options.precise
                                                                                             : m_options.fast;
        auto result = engine->layout(input);
        if (!result && engine != m_options.fast) // dot can fail on odd inputs: the layered layout cannot
            result = m_options.fast->layout(input);
        if (!result)
            return result.takeError();

        SceneLayoutCache::GroupLayout layout;
        layout.size = {result->width, result->height};
        layout.bezier = result->edgePathsAreBezier;
        layout.engine = result->engine;
        for (std::size_t i = 0; i < laid.items.size(); ++i)
            layout.centers.push_back(result->centers[i]);
        for (std::size_t k = 0; k < input.edges.size(); ++k) {
            layout.edges.emplace_back(input.edges[k].from, input.edges[k].to);
            layout.edgePaths.push_back(result->edgePaths[k]);
        }
        ++m_engineCounts[layout.engine];
        laid.layout = &m_cache.layouts.emplace(laid.key, std::move(layout)).first->second;
        return laid;
    }

    // Where a box sits: the layouts around it, outermost first, with its (or its frame's) item in each.
    using Chain = std::vector<std::pair<const SceneLayoutCache::GroupLayout *, std::size_t>>;

    void place(const Laid &laid, Point origin, int depth, const Chain &parentChain)
    {
        std::vector<std::size_t> boxOfItem(laid.items.size());
        for (std::size_t i = 0; i < laid.items.size(); ++i) {
            const Item &item = laid.items[i];
            const Point c = laid.layout->centers[i];
            SceneBox box;
            box.kind = item.kind;
            box.node = item.node;
            box.group = item.group;
            box.value = item.value;
            box.depth = depth;
            box.rect = {origin.x + c.x - item.size.width / 2, origin.y + c.y - item.size.height / 2, item.size.width,
                        item.size.height};
            boxOfItem[i] = m_scene->m_boxes.size();
            m_scene->m_boxes.push_back(box);
            m_chains.push_back(parentChain);
            m_chains.back().emplace_back(laid.layout, i);
            switch (item.kind) {
            case BoxKind::Node: m_scene->m_boxOfNode[item.node.index] = boxOfItem[i]; break;
            case BoxKind::CollapsedGroup: {
                m_scene->m_boxOfGroup[item.group] = boxOfItem[i];
                std::vector<ir::NodeId> below;
                collectSubtreeNodes(m_tree, item.group, below);
                for (auto n : below)
                    m_scene->m_boxOfNode[n.index] = boxOfItem[i];
                break;
            }
            case BoxKind::ExpandedGroup: {
                m_scene->m_boxOfGroup[item.group] = boxOfItem[i];
                const Chain chain = m_chains[boxOfItem[i]]; // a copy: placing the children grows m_chains
                place(laid.children[i],
                      {box.rect.x + m_options.framePadding, box.rect.y + m_options.framePadding + m_options.frameHeader},
                      depth + 1, chain);
                break;
            }
            case BoxKind::GraphInput:
            case BoxKind::GraphOutput: m_scene->m_boxOfTerminal[item.value.index] = boxOfItem[i]; break;
            }
        }
        for (std::size_t k = 0; k < laid.layout->edges.size(); ++k) {
            const auto [from, to] = laid.layout->edges[k];
            std::vector<Point> path = laid.layout->edgePaths[k];
            for (auto &p : path)
                p = {p.x + origin.x, p.y + origin.y};
            m_routes[{laid.layout, from, to}] = {std::move(path), laid.layout->bezier};
        }
    }

    // An edge's path: the engine's route where both ends are items of one layout; between boxes in
    // different frames, the route between the frames (or frame and box) in their common layout,
    // joined to each end by a straight run, so edges leave and enter frames where dot put them.
    std::pair<std::vector<Point>, bool> routeBetween(std::size_t from, std::size_t to) const
    {
        const Chain &a = m_chains[from];
        const Chain &b = m_chains[to];
        std::size_t k = 0;
        while (k < a.size() && k < b.size() && a[k] == b[k])
            ++k;
        if (k == a.size() || k == b.size() || a[k].first != b[k].first)
            return {};
        auto route = m_routes.find({a[k].first, a[k].second, b[k].second});
        if (route == m_routes.end() || route->second.first.size() < 2)
            return {};
        if (k + 1 == a.size() && k + 1 == b.size())
            return route->second;
        // as cubic segments: a line p→q is the cubic (p, p, q, q)
        std::vector<Point> path;
        auto line = [&path](Point p, Point q) {
            if (path.empty())
                path.push_back(p);
            path.insert(path.end(), {p, q, q});
        };
        const Rect &ra = m_scene->m_boxes[from].rect;
        const Rect &rb = m_scene->m_boxes[to].rect;
        const auto &[points, bezier] = route->second;
        line({ra.center().x, ra.bottom()}, points.front());
        if (bezier) {
            path.insert(path.end(), points.begin() + 1, points.end());
        } else {
            for (std::size_t i = 1; i < points.size(); ++i)
                line(points[i - 1], points[i]);
        }
        line(points.back(), {rb.center().x, rb.y});
        return {std::move(path), true};
    }

    void addSceneEdge(std::size_t from, std::size_t to, ir::ValueId value)
    {
        if (from == to)
            return;
        auto [it, fresh] = m_edgeIndex.emplace(std::make_pair(from, to), m_scene->m_edges.size());
        if (!fresh) {
            ++m_scene->m_edges[it->second].valueCount;
            return;
        }
        SceneEdge edge;
        edge.from = from;
        edge.to = to;
        edge.value = value;
        if (auto route = routeBetween(from, to); route.first.size() >= 2) {
            edge.path = std::move(route.first);
            edge.bezier = route.second;
        } else { // across frames: a vertical S-curve from the bottom of one box to the top of the other
            const Rect &a = m_scene->m_boxes[from].rect;
            const Rect &b = m_scene->m_boxes[to].rect;
            const Point p0{a.center().x, a.bottom()};
            const Point p3{b.center().x, b.y};
            const double bend = std::max(30.0, std::abs(p3.y - p0.y) / 2);
            edge.path = {p0, {p0.x, p0.y + bend}, {p3.x, p3.y - bend}, p3};
            edge.bezier = true;
        }
        m_scene->m_edges.push_back(std::move(edge));
    }

    void connect()
    {
        const ir::Graph &graph = m_model.graph(m_graph);
        // an inlined constant is found on the box of its first consumer: the node's own, or the
        // collapsed group that holds it (exporters put shape constants outside the layer that reads them)
        for (auto n : graph.nodes)
            if (const ir::Node &node = m_model.node(n); inlined(node) && node.outputs.size() == 1 && node.outputs[0].valid())
                if (const auto &uses = m_model.value(node.outputs[0]).uses; !uses.empty() && !m_scene->boxOf(n))
                    if (auto box = m_scene->boxOf(uses.front().node))
                        m_scene->m_boxOfNode[n.index] = *box;
        for (auto n : graph.nodes) {
            const ir::Node &node = m_model.node(n);
            auto to = m_scene->boxOf(n);
            if (!node.alive || !to)
                continue;
            for (auto v : node.inputs) {
                if (!v.valid())
                    continue;
                const ir::Value &value = m_model.value(v);
                if (value.producer.valid() && inlined(m_model.node(value.producer)))
                    continue;
                std::optional<std::size_t> from = value.producer.valid() ? m_scene->boxOf(value.producer)
                                                                         : m_scene->boxOfTerminal(v);
                if (from)
                    addSceneEdge(*from, *to, v);
            }
        }
        for (auto v : graph.outputs) {
            const ir::Value &value = m_model.value(v);
            auto out = m_scene->m_boxOfTerminal.find(v.index);
            if (out == m_scene->m_boxOfTerminal.end())
                continue;
            if (value.producer.valid())
                if (auto from = m_scene->boxOf(value.producer))
                    addSceneEdge(*from, out->second, v);
        }
    }

    const ir::Model &m_model;
    ir::GraphId m_graph;
    const ir::NameScopeTree &m_tree;
    const std::set<std::size_t> &m_expanded;
    const MeasureBox &m_measure;
    const SceneOptions &m_options;
    SceneLayoutCache &m_cache;
    GraphScene *m_scene = nullptr;
    std::map<std::tuple<const SceneLayoutCache::GroupLayout *, std::size_t, std::size_t>, std::pair<std::vector<Point>, bool>>
        m_routes;
    std::vector<Chain> m_chains; ///< per box
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> m_edgeIndex;
    std::map<std::string, int> m_engineCounts;
};

support::Expected<GraphScene> GraphScene::build(const ir::Model &model, ir::GraphId graph, const ir::NameScopeTree &tree,
                                                const std::set<std::size_t> &expanded, const MeasureBox &measure,
                                                const SceneOptions &options, SceneLayoutCache &cache)
{
    if (!options.fast)
        return support::makeError("layout-no-engine", "no layout engine was given");
    GraphScene scene;
    SceneBuilder builder(model, graph, tree, expanded, measure, options, cache);
    return builder.run(scene);
}

std::optional<std::size_t> GraphScene::boxOf(ir::NodeId node) const
{
    if (auto it = m_boxOfNode.find(node.index); it != m_boxOfNode.end())
        return it->second;
    return std::nullopt;
}

std::optional<std::size_t> GraphScene::boxOfGroup(std::size_t group) const
{
    if (auto it = m_boxOfGroup.find(group); it != m_boxOfGroup.end())
        return it->second;
    return std::nullopt;
}

std::optional<std::size_t> GraphScene::boxOfTerminal(ir::ValueId value) const
{
    if (auto it = m_boxOfTerminal.find(value.index); it != m_boxOfTerminal.end())
        return it->second;
    return std::nullopt;
}

std::optional<std::size_t> GraphScene::hit(Point p) const
{
    for (std::size_t i = m_boxes.size(); i-- > 0;) // children follow their frame: test them first
        if (m_boxes[i].rect.contains(p))
            return i;
    return std::nullopt;
}

std::set<std::size_t> initialExpansion(const ir::NameScopeTree &tree, std::size_t budget)
{
    std::set<std::size_t> open;
    auto itemCount = [&tree](std::size_t group) {
        const auto &g = tree.group(group);
        return g.nodes.size() + g.children.size();
    };
    std::size_t visible = itemCount(0);
    std::deque<std::size_t> queue(tree.root().children.begin(), tree.root().children.end());
    while (!queue.empty()) {
        const std::size_t group = queue.front();
        queue.pop_front();
        const auto &g = tree.group(group);
        if (transparent(g))
            continue;
        const std::size_t grown = visible - 1 + itemCount(group);
        // a group alone in its open parent ("/encoder" holding everything) opens whatever its size:
        // one box for the whole model shows nothing
        const auto &parent = tree.group(g.parent);
        const bool alone = parent.nodes.empty() && parent.children.size() == 1;
        if (grown > budget && !alone)
            continue;
        visible = grown;
        open.insert(group);
        queue.insert(queue.end(), g.children.begin(), g.children.end());
    }
    return open;
}

std::vector<std::size_t> ancestorsOf(const ir::NameScopeTree &tree, ir::NodeId node)
{
    std::vector<std::size_t> chain;
    auto group = tree.groupOf(node);
    for (std::size_t g = group.value_or(0); g != 0; g = tree.group(g).parent)
        chain.push_back(g);
    return chain;
}

} // namespace portolan::layout
