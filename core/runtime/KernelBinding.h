// What an executor's kernel factory is given for one node at one compiled profile's static shapes:
// shared by the compiled CPU executor and the CUDA executor, so both decide on the same facts.
#pragma once

#include "ir/Model.h"
#include "runtime/Tensor.h"
#include "runtime/reference/KernelContext.h"

#include <cstddef>
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

/// The node a kernel is built for, with its tensors at the shapes of one compiled profile.
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

} // namespace portolan::runtime
