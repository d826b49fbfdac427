// Builds the scope tree in one pass over the graph's nodes, in file order.
#include "ir/NameScopes.h"

#include <map>

namespace portolan::ir {

std::vector<std::string> NameScopeTree::scopeOf(const std::string &nodeName, std::size_t maxParts)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (parts.size() < maxParts) {
        const std::size_t slash = nodeName.find('/', start);
        if (slash == std::string::npos)
            break; // the remainder is the node's own name, not a scope
        if (slash > start)
            parts.push_back(nodeName.substr(start, slash - start));
        start = slash + 1;
    }
    return parts;
}

std::string NameScopeTree::commonScope(const std::vector<std::string> &nodeNames)
{
    if (nodeNames.empty())
        return {};
    std::vector<std::string> common = scopeOf(nodeNames.front());
    for (std::size_t k = 1; k < nodeNames.size() && !common.empty(); ++k) {
        const std::vector<std::string> parts = scopeOf(nodeNames[k]);
        std::size_t shared = 0;
        while (shared < common.size() && shared < parts.size() && common[shared] == parts[shared])
            ++shared;
        common.resize(shared);
    }
    std::string path;
    for (const std::string &part : common)
        path += "/" + part;
    return path;
}

NameScopeTree NameScopeTree::build(const Model &model, GraphId graphId)
{
    NameScopeTree tree;
    tree.m_groups.emplace_back();
    std::map<std::pair<std::size_t, std::string>, std::size_t> childIndex;

    for (const NodeId n : model.graph(graphId).nodes) {
        const Node &node = model.node(n);
        if (!node.alive)
            continue;
        std::size_t at = 0;
        for (const std::string &part : scopeOf(node.name)) {
            auto [it, inserted] = childIndex.try_emplace({at, part}, tree.m_groups.size());
            if (inserted) {
                ScopeGroup g;
                g.name = part;
                g.parent = at;
                g.indexInParent = tree.m_groups[at].children.size();
                tree.m_groups.push_back(std::move(g));
                tree.m_groups[at].children.push_back(it->second);
            }
            at = it->second;
        }
        tree.m_groups[at].nodes.push_back(n);
        tree.m_groupOfNode.emplace(n, at);
        for (std::size_t g = at;; g = tree.m_groups[g].parent) {
            ++tree.m_groups[g].totalNodes;
            if (g == 0)
                break;
        }
    }
    return tree;
}

std::string NameScopeTree::pathOf(std::size_t index) const
{
    std::vector<const std::string *> names;
    for (std::size_t g = index; g != 0; g = m_groups[g].parent)
        names.push_back(&m_groups[g].name);
    std::string path;
    for (auto it = names.rbegin(); it != names.rend(); ++it)
        path += "/" + **it;
    return path;
}

std::optional<std::size_t> NameScopeTree::groupOf(NodeId node) const
{
    if (auto it = m_groupOfNode.find(node); it != m_groupOfNode.end())
        return it->second;
    return std::nullopt;
}

} // namespace portolan::ir
