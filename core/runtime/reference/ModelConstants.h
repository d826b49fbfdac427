// The values of a model that are known before any run: its initializers and the outputs of its
// Constant nodes, as tensors. What the compiled executors bind weights, shapes and indices from.
#pragma once

#include "ir/Model.h"
#include "runtime/Tensor.h"
#include "runtime/reference/Interpreter.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace portolan::runtime {

struct ModelConstants {
    std::unordered_map<std::uint32_t, Tensor> tensors; ///< by value id
    std::size_t weightBytes = 0;                       ///< of the initializers
    std::size_t foldedBytes = 0;                       ///< of the folded nodes' outputs
};

/// The main graph's initializers, its Constant nodes evaluated once on `reference` (Gather indices,
/// Slice bounds and Reshape shapes read them as they read initializers), and every node whose
/// inputs are all such constants, run once on `reference` too: a quantized weight's
/// DequantizeLinear (which fold-constants keeps, as the QDQ form targets read) would otherwise be
/// recomputed at every run. Not folded: nodes reading an initializer that is also a graph input (a
/// feed may replace it), nodes that draw random numbers, nodes with subgraphs, and, past four times
/// the initializers' bytes plus 1 GiB held by folding, any more. Folding comes before any precision
/// policy, in fp32, as a target's compiler folds: a lowered reader gets the folded value lowered.
ModelConstants collectConstants(const ir::Model &model, Interpreter &reference);

/// Whether every output `node` has is among `constants` (a Constant node, or one folded above): the
/// executors take its outputs from there and run nothing for it.
bool outputsKnown(const ir::Node &node, const std::unordered_map<std::uint32_t, Tensor> &constants);

} // namespace portolan::runtime
