// What the canvas draws for one graph: boxes for nodes, collapsed groups and graph inputs/outputs,
// frames for expanded groups, and the dataflow edges between visible boxes, all positioned.
// Each expanded group is laid out on its own (its direct children only, a few hundred at most in
// practice), so one dot call never sees the whole model; layouts are cached per group and expansion.
#pragma once

#include "ir/Model.h"
#include "ir/NameScopes.h"
#include "layout/LayoutEngine.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace portolan::layout {

struct Rect {
    double x = 0, y = 0, width = 0, height = 0;
    double right() const { return x + width; }
    double bottom() const { return y + height; }
    Point center() const { return {x + width / 2, y + height / 2}; }
    bool contains(Point p) const { return p.x >= x && p.x <= right() && p.y >= y && p.y <= bottom(); }
    bool intersects(const Rect &o) const { return x <= o.right() && o.x <= right() && y <= o.bottom() && o.y <= bottom(); }
};

struct Size {
    double width = 0, height = 0;
};

enum class BoxKind {
    Node,           ///< one operator
    CollapsedGroup, ///< a name-scope group drawn as one box
    ExpandedGroup,  ///< a frame around an open group's children (drawn beneath them)
    GraphInput,     ///< a graph input that is not an initializer
    GraphOutput,
};

struct SceneBox {
    BoxKind kind = BoxKind::Node;
    ir::NodeId node;              ///< Node
    std::size_t group = 0;        ///< CollapsedGroup / ExpandedGroup: index in the scope tree
    ir::ValueId value;            ///< GraphInput / GraphOutput
    Rect rect;
    int depth = 0;                ///< nesting depth of expanded groups around it
};

struct SceneEdge {
    std::size_t from = 0, to = 0; ///< box indices
    ir::ValueId value;            ///< the first value that flows along it (its shape labels the edge)
    std::size_t valueCount = 1;   ///< values merged into this edge (between collapsed groups, usually > 1)
    std::vector<Point> path;      ///< scene coordinates
    bool bezier = false;          ///< path holds cubic Bézier control points (1 + 3k points)
};

/// Sizes the canvas wants for a box (from its font metrics); frames are sized by their content.
using MeasureBox = std::function<Size(const SceneBox &)>;

struct SceneOptions {
    LayoutEngine *precise = nullptr;  ///< Graphviz dot when built; may be null
    LayoutEngine *fast = nullptr;     ///< the layered layout; required
    std::size_t preciseLimit = 300;   ///< a group with more direct children uses `fast`
    double framePadding = 14;
    double frameHeader = 22;          ///< room for the group's title at the top of its frame
};

/// Per-group layouts already computed, keyed by group and the expansion below it. Keep one per
/// graph and pass it to every build; clear it when the graph or the box sizes change.
class SceneLayoutCache {
public:
    struct GroupLayout {
        Size size;                                   ///< content size, without frame padding
        std::vector<Point> centers;                  ///< per item, relative to the content's top left
        std::vector<std::vector<Point>> edgePaths;   ///< per item edge, same coordinates
        std::vector<std::pair<std::size_t, std::size_t>> edges; ///< item index pairs of edgePaths
        bool bezier = false;
        std::string engine;
    };
    std::map<std::string, GroupLayout> layouts;
    void clear() { layouts.clear(); }
};

class GraphScene {
public:
    /// Lays out `graph` with the groups in `expanded` open (the root is always open).
    static support::Expected<GraphScene> build(const ir::Model &model, ir::GraphId graph, const ir::NameScopeTree &tree,
                                               const std::set<std::size_t> &expanded, const MeasureBox &measure,
                                               const SceneOptions &options, SceneLayoutCache &cache);

    const std::vector<SceneBox> &boxes() const { return m_boxes; }
    const std::vector<SceneEdge> &edges() const { return m_edges; }
    Rect bounds() const { return m_bounds; }
    /// The visible box standing for `node`: its own box, or its outermost collapsed group's.
    std::optional<std::size_t> boxOf(ir::NodeId node) const;
    /// Box of an expanded or collapsed group, when visible.
    std::optional<std::size_t> boxOfGroup(std::size_t group) const;
    /// Box of a graph input/output terminal.
    std::optional<std::size_t> boxOfTerminal(ir::ValueId value) const;
    /// Topmost box under `p` (nodes and collapsed groups before the frames holding them).
    std::optional<std::size_t> hit(Point p) const;
    /// Engines used, e.g. "graphviz-dot×3, layered×1".
    const std::string &enginesUsed() const { return m_engines; }

private:
    friend class SceneBuilder;
    std::vector<SceneBox> m_boxes;
    std::vector<SceneEdge> m_edges;
    Rect m_bounds;
    std::unordered_map<std::uint32_t, std::size_t> m_boxOfNode; ///< every node of the graph → visible box
    std::unordered_map<std::size_t, std::size_t> m_boxOfGroup;
    std::unordered_map<std::uint32_t, std::size_t> m_boxOfTerminal;
    std::string m_engines;
};

/// The groups to open at first: breadth first, while the visible boxes stay within `budget`
/// (small models open fully, big ones show their top-level blocks).
std::set<std::size_t> initialExpansion(const ir::NameScopeTree &tree, std::size_t budget = 160);

/// Groups to open so that `node` gets its own box.
std::vector<std::size_t> ancestorsOf(const ir::NameScopeTree &tree, ir::NodeId node);

} // namespace portolan::layout
