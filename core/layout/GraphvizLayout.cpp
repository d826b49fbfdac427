// GraphvizLayout: builds a cgraph graph of fixed-size boxes, runs dot, reads positions and splines
// back, converting Graphviz's y-up points to y-down in one place (toScene).
#include "layout/GraphvizLayout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>
#include <string>

namespace portolan::layout {

namespace {

std::mutex &graphvizLock()
{
    static std::mutex lock;
    return lock;
}

// RAII for the three Graphviz handles a layout needs.
struct GraphvizSession {
    GVC_t *context = gvContext();
    Agraph_t *graph = nullptr;
    bool laidOut = false;
    ~GraphvizSession()
    {
        if (graph && laidOut)
            gvFreeLayout(context, graph);
        if (graph)
            agclose(graph);
        if (context)
            gvFreeContext(context);
    }
};

void set(void *object, const char *name, const std::string &value)
{
    agsafeset(object, const_cast<char *>(name), const_cast<char *>(value.c_str()), const_cast<char *>(""));
}

class GraphvizLayout final : public LayoutEngine {
public:
    std::string name() const override { return "graphviz-dot"; }

    support::Expected<LayoutResult> layout(const LayoutInput &input) override
    {
        std::lock_guard guard(graphvizLock());
        GraphvizSession s;
        if (!s.context)
            return support::makeError("graphviz", "cannot create a Graphviz context");
        s.graph = agopen(const_cast<char *>("g"), Agdirected, nullptr);
        set(s.graph, "rankdir", "TB");
        set(s.graph, "nodesep", std::to_string(input.nodeSpacing / 72.0));
        set(s.graph, "ranksep", std::to_string(input.rankSpacing / 72.0));
        set(s.graph, "splines", "spline");

        std::vector<Agnode_t *> nodes;
        nodes.reserve(input.nodes.size());
        for (std::size_t i = 0; i < input.nodes.size(); ++i) {
            const std::string id = "n" + std::to_string(i);
            Agnode_t *node = agnode(s.graph, const_cast<char *>(id.c_str()), 1);
            set(node, "shape", "box");
            set(node, "fixedsize", "true");
            set(node, "label", "");
            set(node, "width", std::to_string(input.nodes[i].width / 72.0));
            set(node, "height", std::to_string(input.nodes[i].height / 72.0));
            nodes.push_back(node);
        }
        std::vector<Agedge_t *> edges;
        for (std::size_t k = 0; k < input.edges.size(); ++k) {
            const auto &e = input.edges[k];
            if (e.from >= nodes.size() || e.to >= nodes.size())
                return support::makeError("layout-bad-edge", "an edge names a node that does not exist");
            const std::string key = "e" + std::to_string(k); // keeps parallel edges apart
            edges.push_back(agedge(s.graph, nodes[e.from], nodes[e.to], const_cast<char *>(key.c_str()), 1));
        }
        if (gvLayout(s.context, s.graph, "dot") != 0)
            return support::makeError("graphviz", "Graphviz dot failed to lay out the graph");
        s.laidOut = true;

        const boxf bb = GD_bb(s.graph);
        auto toScene = [&bb](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
        LayoutResult result;
        result.engine = name();
        result.edgePathsAreBezier = true;
        result.width = bb.UR.x - bb.LL.x;
        result.height = bb.UR.y - bb.LL.y;
        for (Agnode_t *node : nodes)
            result.centers.push_back(toScene(ND_coord(node)));
        for (Agedge_t *edge : edges) {
            std::vector<Point> path;
            if (const splines *spl = ED_spl(edge); spl && spl->size > 0)
                for (std::size_t i = 0; i < static_cast<std::size_t>(spl->list[0].size); ++i)
                    path.push_back(toScene(spl->list[0].list[i]));
            result.edgePaths.push_back(std::move(path));
        }
        return result;
    }
};

} // namespace

std::unique_ptr<LayoutEngine> makeGraphvizLayout() { return std::make_unique<GraphvizLayout>(); }

} // namespace portolan::layout
