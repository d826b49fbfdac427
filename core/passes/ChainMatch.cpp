// Chain matching helpers.
#include "passes/ChainMatch.h"

#include "passes/Match.h"

#include <cmath>

namespace portolan::passes {

const ir::Node *soleReader(const ir::Model &model, ir::ValueId value, std::string_view opType)
{
    if (!hasSingleUse(model, value))
        return nullptr;
    const ir::Node &reader = model.node(model.value(value).uses[0].node);
    if (!reader.alive || (opType.empty() ? false : !isOp(reader, opType)))
        return nullptr;
    return &reader;
}

ir::ValueId otherOperand(const ir::Node &node, ir::ValueId value)
{
    return node.inputs[0] == value ? node.inputs[1] : node.inputs[0];
}

std::optional<ScalarOperand> scalarOperand(const ir::Model &model, const ir::Node &node, std::string_view opType,
                                           bool constantSecond)
{
    if (!isOp(node, opType) || node.inputs.size() != 2)
        return std::nullopt;
    if (const auto c = scalarConstant(model, node.inputs[1]))
        return ScalarOperand{node.inputs[0], *c, false};
    if (constantSecond)
        return std::nullopt;
    if (const auto c = scalarConstant(model, node.inputs[0]))
        return ScalarOperand{node.inputs[1], *c, true};
    return std::nullopt;
}

bool nearly(std::optional<double> value, double expected, double tolerance)
{
    return value && std::abs(*value - expected) <= tolerance * std::abs(expected);
}

} // namespace portolan::passes
