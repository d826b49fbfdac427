// A native kernel of the compiled CPU executor: built once for one node at static shapes (weights
// pre-packed, primitives created), then run many times on planned buffers.
#pragma once

#include "runtime/KernelBinding.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace portolan::runtime::cpu {

using runtime::BoundTensor;
using runtime::NodeBinding;

class CpuKernel {
public:
    virtual ~CpuKernel() = default;
    /// Computes every output into `outputs`, preallocated at the compiled shapes. Inputs have the
    /// compiled shapes too (omitted optional inputs are nullptr).
    virtual void run(std::span<const Tensor *const> inputs, std::span<Tensor> outputs) = 0;
    /// For a kernel whose output `k` is input `aliasedInput(k)` reshaped (Reshape, Flatten…): the
    /// executor passes the input's storage on and allocates nothing; -1 otherwise.
    virtual int aliasedInput(std::size_t /*output*/) const { return -1; }
    /// An input whose bytes output `k` may overwrite when nothing reads them later (a residual, an
    /// elementwise operand): the executor then gives the output that input's buffer; -1 for none.
    virtual int inPlaceInput(std::size_t /*output*/) const { return -1; }
    /// The blocked layout this kernel computes input / output `k` in, when it is not row-major: a
    /// value every reader and writer of which shares that layout can stay in it between them,
    /// saving a reorder on each side. nullopt: row-major only.
    virtual std::optional<dnnl::memory::desc> nativeInputLayout(std::size_t /*input*/) const { return std::nullopt; }
    virtual std::optional<dnnl::memory::desc> nativeOutputLayout(std::size_t /*output*/) const { return std::nullopt; }
    /// A kernel that computes input `k` in whatever layout it arrives in (pooling) says whether it can
    /// take `layout`, and takes it; its nativeOutputLayout() then offers the matching output layout.
    virtual bool canAdoptInputLayout(std::size_t /*input*/, const dnnl::memory::desc & /*layout*/) const { return false; }
    virtual void adoptInputLayout(std::size_t /*input*/, const dnnl::memory::desc & /*layout*/) {}
    /// From now on input (or output) `k` arrives (leaves) in its native layout: skip its reorder.
    virtual void useNativeLayout(bool /*input*/, std::size_t /*k*/) {}
    /// "onednn:conv", "native:layer-norm"…: what `--stats` shows.
    virtual std::string implementation() const = 0;
};

/// Builds a native kernel for `binding`, or returns nullptr and says why it does not apply (the node
/// then runs on its reference kernel, marked as a fallback).
using CpuKernelFactory = std::unique_ptr<CpuKernel> (*)(const NodeBinding &binding, std::string &whyNot);

/// The native kernel factory for (domain, op type) at `opset`, or nullptr.
CpuKernelFactory findCpuKernel(const std::string &domain, const std::string &opType, int opset);

/// `shape` with leading 1s up to `rank`, as broadcasting aligns it (a shape of higher rank is
/// returned as it is: the caller rejects it).
inline Shape withLeadingOnes(Shape shape, std::size_t rank)
{
    if (shape.size() < rank)
        shape.insert(shape.begin(), rank - shape.size(), 1);
    return shape;
}

} // namespace portolan::runtime::cpu
