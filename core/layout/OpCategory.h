// Operator families the canvas colours nodes by (and the legend names), decided from the op type alone.
#pragma once

#include <string>

namespace portolan::layout {

enum class OpCategory {
    Layer,         ///< Conv, Gemm, MatMul, attention, RNNs: the ops carrying weights and most FLOPs
    Activation,    ///< Relu, Gelu, Sigmoid, Softmax…
    Normalization, ///< BatchNorm, LayerNorm, InstanceNorm, LRN…
    Pooling,       ///< Max/Average/Global pooling, Resize
    Elementwise,   ///< Add, Mul, Pow, Sqrt, comparisons, reductions
    Shape,         ///< Reshape, Transpose, Concat, Gather, Slice… (data movement, no arithmetic)
    Quantization,  ///< QuantizeLinear, DequantizeLinear, QLinear*, *Integer
    ControlFlow,   ///< If, Loop, Scan
    Constant,      ///< Constant, ConstantOfShape
    Custom,        ///< a domain ONNX does not define
};

OpCategory opCategory(const std::string &opType, const std::string &domain);
/// "layer", "activation", … (stable, used in tests and the legend).
const char *categoryName(OpCategory category);

} // namespace portolan::layout
