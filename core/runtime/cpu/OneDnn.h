// What the oneDNN kernels share: the CPU engine and stream, plain-layout memory descriptors, the
// activation post-ops of the fused ops, and constant weights reordered once into a primitive's layout.
#pragma once

#include "runtime/PhysicalLayout.h"
#include "runtime/Tensor.h"
#include "runtime/cpu/CpuKernel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>
#include <string>

namespace portolan::runtime::cpu::onednn {

dnnl::engine &engine();
/// One stream for the whole process: oneDNN's CPU stream is a thin handle on its OpenMP pool.
dnnl::stream &stream();

/// oneDNN's element type for an ONNX one, or nullopt when oneDNN has none.
std::optional<dnnl::memory::data_type> dataTypeOf(int onnxType);
dnnl::memory::dims dimsOf(const Shape &shape);
/// Row-major ("abcd…") descriptor of `shape`.
dnnl::memory::desc plainDesc(const Shape &shape, dnnl::memory::data_type type);

/// `desc` (a layout of `shape`) as the order of its elements, when it is dense (no padded channels,
/// no offset) and blocks at most one dim once, as nChw16c and nhwc do; nullopt otherwise.
std::optional<PhysicalLayout> physicalLayoutOf(const dnnl::memory::desc &desc, const Shape &shape);

/// Appends the node's `activation` / `activation_params` (FusedConv, FusedGemm, FusedMatMul) as
/// eltwise post-ops; false (with `whyNot`) for an activation oneDNN cannot express.
bool appendActivation(const NodeBinding &binding, dnnl::post_ops &ops, std::string &whyNot);

/// A memory object over a tensor's bytes (no copy; oneDNN reads or writes them in place).
dnnl::memory wrap(const dnnl::memory::desc &desc, const Tensor &tensor);

/// `constant` (plain layout `from`) in layout `to`, reordered once at compile time. When the layouts
/// are the same the result views `constant`'s bytes: the caller keeps the tensor alive.
dnnl::memory packedConstant(const Tensor &constant, const dnnl::memory::desc &from, const dnnl::memory::desc &to);

} // namespace portolan::runtime::cpu::onednn
