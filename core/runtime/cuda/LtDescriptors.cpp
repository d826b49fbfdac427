// cuBLASLt layouts and algorithm choice (see LtDescriptors.h).
#include "runtime/cuda/LtDescriptors.h"

namespace portolan::runtime::cuda {

namespace {

struct PreferenceDestroy {
    void operator()(cublasLtMatmulPreference_t p) const { cublasLtMatmulPreferenceDestroy(p); }
};
using Preference = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, PreferenceDestroy>;

} // namespace

LtLayout ltLayout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch, std::int64_t stride)
{
    cublasLtMatrixLayout_t raw = nullptr;
    checkCublas(cublasLtMatrixLayoutCreate(&raw, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld),
                "cublasLtMatrixLayoutCreate");
    LtLayout layout(raw);
    if (batch > 1) {
        const auto count = static_cast<std::int32_t>(batch);
        checkCublas(cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count), "BATCH_COUNT");
        checkCublas(cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
                    "STRIDED_BATCH_OFFSET");
    }
    return layout;
}

std::uint32_t ltBatchAlignment(std::int64_t batch, std::initializer_list<std::int64_t> strideBytes)
{
    std::uint32_t alignment = 64;
    if (batch > 1)
        for (const std::int64_t stride : strideBytes)
            while (alignment > 1 && stride % alignment != 0)
                alignment /= 2;
    return alignment;
}

cublasLtMatmulAlgo_t ltBestAlgorithm(void *handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                     cublasLtMatrixLayout_t out, std::size_t workspaceBytes, std::uint32_t alignment)
{
    cublasLtMatmulPreference_t raw = nullptr;
    checkCublas(cublasLtMatmulPreferenceCreate(&raw), "cublasLtMatmulPreferenceCreate");
    const Preference preference(raw);
    checkCublas(cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes, sizeof workspaceBytes),
                "MAX_WORKSPACE_BYTES");
    // buffers sit at 64-byte offsets of the arena, batches at their strides: not cuBLASLt's default 256
    for (const auto attribute : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                 CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
        checkCublas(cublasLtMatmulPreferenceSetAttribute(raw, attribute, &alignment, sizeof alignment), "MIN_ALIGNMENT");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    checkCublas(cublasLtMatmulAlgoGetHeuristic(static_cast<cublasLtHandle_t>(handle), desc, a, b, out, out, raw, 1, &result, &found),
                "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0)
        throw CudaError("cuBLASLt has no algorithm for this product");
    return result.algo;
}

} // namespace portolan::runtime::cuda
