// Small matching helpers for chains of elementwise nodes (fuse-gelu, fuse-rms-norm, decompose): the
// one reader of a value, the other operand of a binary node, a scalar constant operand, and
// constants compared with a relative tolerance.
#pragma once

#include "ir/Model.h"

#include <optional>
#include <string_view>

namespace portolan::passes {

/// The one node reading `value` when it has exactly one use, is no graph output and the reader is a
/// standard `opType` node (any op when empty); else nullptr.
const ir::Node *soleReader(const ir::Model &model, ir::ValueId value, std::string_view opType = {});

/// The operand of the binary `node` that is not `value` (input 1 when both are).
ir::ValueId otherOperand(const ir::Node &node, ir::ValueId value);

/// A binary node with one scalar constant operand: the other operand and the constant.
struct ScalarOperand {
    ir::ValueId operand;
    double constant = 0;
    bool constantFirst = false; ///< the constant is input 0
};
/// For a standard `opType` node with two inputs, one of them a one-element constant. With
/// `constantSecond` (Div, Sub, Pow) only input 1 may be the constant.
std::optional<ScalarOperand> scalarOperand(const ir::Model &model, const ir::Node &node, std::string_view opType,
                                           bool constantSecond = false);

/// `value` is within a relative `tolerance` of `expected`.
bool nearly(std::optional<double> value, double expected, double tolerance = 1e-4);

} // namespace portolan::passes
