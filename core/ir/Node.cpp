// Node helpers.
#include "ir/Node.h"

namespace portolan::ir {

const Attribute *Node::attribute(const std::string &attributeName) const
{
    for (const Attribute &a : attributes)
        if (a.name() == attributeName)
            return &a;
    return nullptr;
}

std::string Node::displayName(std::size_t indexInGraph) const
{
    if (!name.empty())
        return name;
    return "#" + std::to_string(indexInGraph) + " (" + opType + ")";
}

} // namespace portolan::ir
