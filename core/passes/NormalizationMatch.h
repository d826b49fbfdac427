// Matching helpers shared by the normalization fusions (layer norm, RMS norm): reductions over the
// trailing axes, and the optional scale/bias tail of a normalization.
#pragma once

#include "ir/Model.h"
#include "passes/FusionSupport.h"

#include <optional>
#include <string>
#include <vector>

namespace portolan::passes {

/// A ReduceMean over the k trailing axes with keepdims=1 (axes as attribute, or as a constant input
/// from opset 18): its first normalized axis as -k. Otherwise nullopt and `why` says what is off.
std::optional<std::int64_t> trailingMeanAxis(const ir::Model &model, const ir::Node &reduceMean, ShapeOracle &shapes,
                                             std::string *why);

/// The optional `· γ + β` after a normalization's output `normalized`: the Mul by a constant and
/// the Add of a constant that follow it, each with one use.
struct AffineTail {
    ir::ValueId scale;          ///< γ, invalid when there is no Mul
    ir::ValueId bias;           ///< β, invalid when there is no Add
    ir::ValueId result;         ///< the value the tail ends in (`normalized` when there is none)
    std::vector<ir::NodeId> nodes; ///< the Mul and Add nodes taken, in order
};
AffineTail matchAffineTail(const ir::Model &model, ir::ValueId normalized, bool allowBias);

/// A constant γ or β as a tensor of the k normalized dims (leading 1s dropped), or nullopt when it
/// is not a constant or varies along a non-normalized axis.
std::optional<runtime::Tensor> normalizedParameter(const ir::Model &model, ir::ValueId value, std::int64_t k);
/// Ones over the k trailing dims of `x`, in its element type; nullopt when those dims are not static.
std::optional<runtime::Tensor> unitScale(ShapeOracle &shapes, ir::ValueId x, std::int64_t k);

} // namespace portolan::passes
