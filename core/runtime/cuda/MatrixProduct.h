// What a MatMul, Gemm, FusedMatMul or FusedGemm node computes, read off its binding: one row-major
// (strided-batched) product with what is added to it and the activation after it. Shared by the
// fp32/fp16/bf16 products and the int8 ones, so that both accept the same nodes for the same reasons.
// Plain C++: unit-tested without a GPU.
#pragma once

#include "runtime/KernelBinding.h"
#include "runtime/cuda/DeviceKernels.h"

#include <cstdint>
#include <optional>
#include <string>

namespace portolan::runtime::cuda {

/// C[M,N] = alpha·op(A)·op(B) (+ addend), `batch` times; each operand's batch step in elements
/// (0: the operand is shared by every batch).
struct MatrixProduct {
    std::int64_t m = 0, n = 0, k = 0;
    bool transA = false, transB = false;
    std::int64_t batch = 1, strideA = 0, strideB = 0, strideC = 0;
    float alpha = 1, beta = 0;
    /// What is added: nothing, a row bias [N] (input 2, times beta), or beta·C[M,N] (input 2).
    enum class Addend { None, Bias, Matrix } addend = Addend::None;
    FunctionSpec activation;
};

/// The product `binding`'s node computes, or nullopt and why the product kernels do not take it.
std::optional<MatrixProduct> describeProduct(const NodeBinding &binding, std::string &whyNot);

} // namespace portolan::runtime::cuda
