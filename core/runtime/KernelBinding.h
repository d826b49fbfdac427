// What an executor's kernel factory is given for one node at one shape plan's static shapes:
// shared by the compiled CPU executor and the CUDA executor, so both decide on the same facts.
#pragma once

#include "analysis/Flops.h"
#include "ir/Model.h"
#include "runtime/Tensor.h"
#include "runtime/KernelContext.h"

#include <cstddef>
#include <string>
#include <vector>

namespace portolan::runtime {

/// A node input or output as the compiler knows it: element type, static shape, and for an
/// initializer its data.
struct BoundTensor {
    bool present = false; ///< false for an omitted optional input/output ("")
    int dataType = 0;
    Shape shape;
    Tensor constant;      ///< defined for initializers
};

/// The node a kernel is built for, with its tensors at the shapes of one shape plan.
/// `attributes` reads the node's attributes as the reference kernels do (same errors).
struct NodeBinding {
    const ir::Model &model;
    const ir::Node &node;
    int opset = 0;
    std::vector<BoundTensor> inputs;
    std::vector<BoundTensor> outputs;
    KernelContext &attributes;

    const BoundTensor *input(std::size_t i) const { return i < inputs.size() && inputs[i].present ? &inputs[i] : nullptr; }
};

/// Whether the node's one output is its input 0's bytes under another shape (Reshape, Flatten,
/// Squeeze, Unsqueeze, Identity of a numeric tensor), which an executor runs as a view; else false
/// with `whyNot` set.
inline bool isSameSizeView(const NodeBinding &b, std::string &whyNot)
{
    const BoundTensor *x = b.input(0);
    if (!x || x->dataType == onnx::TensorProto::STRING || b.outputs.size() != 1 ||
        elementCount(x->shape) != elementCount(b.outputs[0].shape)) {
        whyNot = "not a same-size view of a numeric tensor";
        return false;
    }
    return true;
}

/// The FLOPs one run of the bound node computes (analysis/Flops.h), at its bound shapes.
inline std::int64_t boundFlops(const NodeBinding &b)
{
    std::vector<analysis::Dims> inShapes, outShapes;
    for (const BoundTensor &t : b.inputs)
        inShapes.push_back(t.shape);
    for (const BoundTensor &t : b.outputs)
        outShapes.push_back(t.shape);
    return analysis::nodeFlops(b.node, inShapes, outShapes);
}

} // namespace portolan::runtime
