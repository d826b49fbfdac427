// Node helpers.
#include "ir/Node.h"

#include <set>

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

bool Node::drawsRandomNumbers() const
{
    static const std::set<std::string, std::less<>> random{"RandomNormal", "RandomUniform", "RandomNormalLike",
                                                           "RandomUniformLike", "Multinomial", "Bernoulli"};
    return (domain.empty() || domain == "ai.onnx") && random.contains(opType);
}

} // namespace portolan::ir
