// The group hierarchy implied by scoped node names ("/encoder/layer.0/attn/MatMul"), for collapse/expand.
#pragma once

#include "ir/Model.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace portolan::ir {

struct ScopeGroup {
    std::string name;                 ///< last path component ("attn"); "" for the root
    std::size_t parent = 0;           ///< index of the parent group (the root is its own parent)
    std::size_t indexInParent = 0;    ///< position among the parent's children
    std::vector<std::size_t> children; ///< child groups, in order of first appearance
    std::vector<NodeId> nodes;        ///< nodes directly in this group
    std::size_t totalNodes = 0;       ///< nodes in this group and all below
};

/// Groups of one graph. Group 0 is the root; node names without a scope sit in it. Scopes deeper
/// than kMaxDepth fold into their kMaxDepth-th ancestor (a hostile name must not cost memory
/// quadratic in its length).
class NameScopeTree {
public:
    static constexpr std::size_t kMaxDepth = 32;

    static NameScopeTree build(const Model &model, GraphId graph);

    const ScopeGroup &root() const { return m_groups.front(); }
    const ScopeGroup &group(std::size_t index) const { return m_groups[index]; }
    std::size_t groupCount() const { return m_groups.size(); }
    /// Index of the group that directly holds `node`.
    std::optional<std::size_t> groupOf(NodeId node) const;
    /// Full scope of a group ("/encoder/layer.0/attn"), built on demand; "" for the root.
    std::string pathOf(std::size_t index) const;

    /// Scope components of a node name: "/a/b/MatMul" → {"a","b"}; "a/b/c" → {"a","b"}; "Conv_3" → {}.
    /// At most `maxParts` components are returned (the rest of a deeper name is ignored).
    static std::vector<std::string> scopeOf(const std::string &nodeName, std::size_t maxParts = kMaxDepth);
    /// The deepest scope every one of `nodeNames` sits in, as a path ("/encoder/layer.3/attn"); ""
    /// when they share none (or a name has no scope). How a rewrite is named by the layer it touched.
    static std::string commonScope(const std::vector<std::string> &nodeNames);

private:
    std::vector<ScopeGroup> m_groups;
    std::unordered_map<NodeId, std::size_t> m_groupOfNode;
};

} // namespace portolan::ir
