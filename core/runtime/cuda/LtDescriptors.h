// cuBLASLt's descriptors as owning handles, and the two steps every product kernel takes with them:
// a matrix layout (column-major, strided-batched) and the heuristic's best algorithm for buffers at
// the alignment the arena gives. Host code that includes cublasLt.h.
#pragma once

#include "runtime/cuda/CudaError.h"

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <type_traits>

namespace portolan::runtime::cuda {

struct LtDescDestroy {
    void operator()(cublasLtMatmulDesc_t d) const { cublasLtMatmulDescDestroy(d); }
};
struct LtLayoutDestroy {
    void operator()(cublasLtMatrixLayout_t l) const { cublasLtMatrixLayoutDestroy(l); }
};
using LtDesc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, LtDescDestroy>;
using LtLayout = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LtLayoutDestroy>;

/// A column-major `rows` × `cols` matrix of `type` with leading dimension `ld`, `batch` times at
/// `stride` elements apart (0: one matrix shared by every batch).
LtLayout ltLayout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch, std::int64_t stride);

/// The largest power of two, up to 64 (the arena's alignment), dividing every given batch step in
/// bytes: the alignment cuBLASLt may assume of each batch's pointers (64 when not batched).
std::uint32_t ltBatchAlignment(std::int64_t batch, std::initializer_list<std::int64_t> strideBytes);

/// The heuristic's first algorithm for D = op(A)·op(B) (+ C) with C and D sharing `out`; throws
/// CudaError when there is none.
cublasLtMatmulAlgo_t ltBestAlgorithm(void *handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                     cublasLtMatrixLayout_t out, std::size_t workspaceBytes, std::uint32_t alignment);

} // namespace portolan::runtime::cuda
