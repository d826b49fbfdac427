// Stable integer ids for nodes, values and graphs: views, diffs and reports key on these, never on pointers.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace portolan::ir {

template <typename Tag>
struct Id {
    static constexpr std::uint32_t invalidIndex = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t index = invalidIndex;

    constexpr Id() = default;
    constexpr explicit Id(std::uint32_t i) : index(i) {}
    constexpr bool valid() const { return index != invalidIndex; }
    constexpr explicit operator bool() const { return valid(); }
    // (no operator<=>: <compare> breaks Qt 6.4's moc, which reads every header a Q_OBJECT class includes)
    constexpr bool operator==(const Id &) const = default;
    constexpr bool operator<(const Id &other) const { return index < other.index; }
};

struct NodeTag;
struct ValueTag;
struct GraphTag;
using NodeId = Id<NodeTag>;
using ValueId = Id<ValueTag>;
using GraphId = Id<GraphTag>;

} // namespace portolan::ir

template <typename Tag>
struct std::hash<portolan::ir::Id<Tag>> {
    std::size_t operator()(portolan::ir::Id<Tag> id) const noexcept { return std::hash<std::uint32_t>{}(id.index); }
};
