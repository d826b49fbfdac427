// Floating-point operations of a node at known shapes, counting the multiply-adds of the ops that
// dominate inference (convolutions, matrix products, attention) as two operations each — the
// convention behind published GFLOP figures. Elementwise and data-movement ops count zero: they
// are bound by memory, and counting them would flatter a throughput figure.
#pragma once

#include "ir/Model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace portolan::analysis {

using Dims = std::vector<std::int64_t>;

/// `inputs` and `outputs` are the node's tensor shapes (empty for omitted ones).
std::int64_t nodeFlops(const ir::Node &node, std::span<const Dims> inputs, std::span<const Dims> outputs);

} // namespace portolan::analysis
