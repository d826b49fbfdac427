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
};

/// The main graph's initializers, and its Constant nodes evaluated once on `reference` (Gather
/// indices, Slice bounds and Reshape shapes read them as they read initializers).
ModelConstants collectConstants(const ir::Model &model, Interpreter &reference);

} // namespace portolan::runtime
