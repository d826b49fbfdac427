// MatMul, Gemm, FusedMatMul and FusedGemm through cuBLASLt: one (strided-batched) product with fp32
// accumulation — fp32 operands in fp32 compute (no TF32: the reference comparison allows 1e-4),
// fp16/bf16 operands on tensor cores — the bias in cuBLASLt's epilogue (with ReLU where that is the
// activation), any other activation in one kernel after it.
//
// cuBLASLt is column-major and our tensors row-major: a row-major C[M,N] = A·B is the column-major
// Cᵀ[N,M] = Bᵀ·Aᵀ, and a row-major matrix read as column-major is its transpose, so the product is
// taken with B as cuBLASLt's first operand and A as its second, nothing copied.
#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/DeviceKernels.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <memory>
#include <numeric>
#include <type_traits>

namespace portolan::runtime::cuda {

namespace {

/// A row-major product C[M,N] = op(A)·op(B), `batch` times with the given element strides (0: the
/// operand is shared by every batch).
struct Product {
    std::int64_t m = 0, n = 0, k = 0;
    bool transA = false, transB = false;
    std::int64_t batch = 1, strideA = 0, strideB = 0, strideC = 0;
    float alpha = 1, beta = 0;
};

enum class Addend { None, Bias, Matrix }; ///< what is added to the product: a row bias [N], or beta·C[M,N]

// cuBLASLt's descriptors, destroyed with their owner (also when a constructor throws half-way)
struct DescDestroy {
    void operator()(cublasLtMatmulDesc_t d) const { cublasLtMatmulDescDestroy(d); }
};
struct LayoutDestroy {
    void operator()(cublasLtMatrixLayout_t l) const { cublasLtMatrixLayoutDestroy(l); }
};
struct PreferenceDestroy {
    void operator()(cublasLtMatmulPreference_t p) const { cublasLtMatmulPreferenceDestroy(p); }
};
using Desc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, DescDestroy>;
using Layout = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LayoutDestroy>;
using Preference = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, PreferenceDestroy>;

/// The largest power of two, up to 64 (the arena's alignment), dividing every batch step in bytes:
/// the alignment cuBLASLt may assume of each batch's pointers.
std::uint32_t batchAlignment(const Product &p, int elementBytes)
{
    std::uint32_t alignment = 64;
    if (p.batch > 1)
        for (const std::int64_t stride : {p.strideA, p.strideB, p.strideC})
            while (alignment > static_cast<std::uint32_t>(elementBytes) && (stride * elementBytes) % alignment != 0)
                alignment /= 2;
    return alignment;
}

cudaDataType_t cudaTypeOf(Storage s)
{
    return s == Storage::F16 ? CUDA_R_16F : s == Storage::BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

class LtProduct final : public CudaKernel {
public:
    LtProduct(const Product &p, Addend addend, FunctionSpec activation, void *handle, std::size_t workspaceBytes, Storage storage)
        : m_product(p), m_addend(addend), m_storage(storage)
    {
        const bool reluInEpilogue = activation.kind == Function::Relu;
        cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
        if (addend == Addend::Bias)
            epilogue = reluInEpilogue ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
        else if (reluInEpilogue)
            epilogue = CUBLASLT_EPILOGUE_RELU;
        m_after = reluInEpilogue ? FunctionSpec{} : activation;
        cublasLtMatmulDesc_t desc = nullptr;
        checkCublas(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
        m_desc.reset(desc);
        const cublasOperation_t first = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N, second = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
        checkCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &first, sizeof first), "TRANSA");
        checkCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &second, sizeof second), "TRANSB");
        checkCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), "EPILOGUE");
        // B's storage read column-major: N×K (ld N), or K×N (ld K) when transposed; A's: K×M or M×K
        m_first = layout(p.transB ? p.k : p.n, p.transB ? p.n : p.k, p.strideB);
        m_second = layout(p.transA ? p.m : p.k, p.transA ? p.k : p.m, p.strideA);
        m_out = layout(p.n, p.m, p.strideC);

        cublasLtMatmulPreference_t preference = nullptr;
        checkCublas(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
        const Preference owned(preference);
        checkCublas(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
                                                         sizeof workspaceBytes),
                    "MAX_WORKSPACE_BYTES");
        // buffers sit at 64-byte offsets of the arena, batches at their strides: not cuBLASLt's default 256
        const std::uint32_t alignment = batchAlignment(p, storageBytes(storage));
        for (const auto attribute : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                     CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
            checkCublas(cublasLtMatmulPreferenceSetAttribute(preference, attribute, &alignment, sizeof alignment), "MIN_ALIGNMENT");
        cublasLtMatmulHeuristicResult_t result{};
        int found = 0;
        checkCublas(cublasLtMatmulAlgoGetHeuristic(static_cast<cublasLtHandle_t>(handle), desc, m_first.get(), m_second.get(),
                                                   m_out.get(), m_out.get(), preference, 1, &result, &found),
                    "cublasLtMatmulAlgoGetHeuristic");
        if (found == 0)
            throw CudaError("cuBLASLt has no algorithm for this product");
        m_algo = result.algo;
    }

    /// inputs: A, B, then the addend (bias [N] or C [M,N]) when there is one.
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        const void *addend = m_addend != Addend::None && m_addendInput < in.size() ? in[m_addendInput].data : nullptr;
        if (m_addend == Addend::Bias) {
            const void *bias = m_scaledBias ? m_scaledBias : addend;
            checkCublas(cublasLtMatmulDescSetAttribute(m_desc.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
                        "BIAS_POINTER");
        }
        const float beta = m_addend == Addend::Matrix ? m_product.beta : 0.f;
        const void *matrixC = m_addend == Addend::Matrix ? addend : out[0].data;
        checkCublas(cublasLtMatmul(static_cast<cublasLtHandle_t>(c.cublasLt), m_desc.get(), &m_product.alpha, in[1].data,
                                   m_first.get(), in[0].data, m_second.get(), &beta, matrixC, m_out.get(), out[0].data, m_out.get(),
                                   &m_algo, c.workspace, c.workspaceBytes, static_cast<cudaStream_t>(c.stream)),
                    "cublasLtMatmul");
        if (m_after.kind != Function::Identity)
            launchBiasFunction(m_storage, out[0].data, nullptr, m_product.batch * m_product.m, m_product.n, m_after, c.multiprocessors,
                               c.stream);
    }
    std::string implementation() const override { return "cublaslt:matmul"; }

    void setAddendInput(std::size_t k) { m_addendInput = k; }
    /// Gemm's beta·C with C a constant row: the bias cuBLASLt adds, pre-scaled.
    void setScaledBias(void *bias) { m_scaledBias = bias; }

private:
    static Layout layoutOf(Storage s, std::int64_t rows, std::int64_t cols, std::int64_t batch, std::int64_t stride)
    {
        cublasLtMatrixLayout_t raw = nullptr;
        checkCublas(cublasLtMatrixLayoutCreate(&raw, cudaTypeOf(s), static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), rows),
                    "cublasLtMatrixLayoutCreate");
        Layout l(raw);
        if (batch > 1) {
            const auto count = static_cast<std::int32_t>(batch);
            checkCublas(cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count), "BATCH_COUNT");
            checkCublas(cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
                        "STRIDED_BATCH_OFFSET");
        }
        return l;
    }
    Layout layout(std::int64_t rows, std::int64_t cols, std::int64_t stride) const
    {
        return layoutOf(m_storage, rows, cols, m_product.batch, stride);
    }

    Product m_product;
    Addend m_addend;
    FunctionSpec m_after; ///< the activation cuBLASLt's epilogue does not apply
    Storage m_storage;
    std::size_t m_addendInput = 2;
    void *m_scaledBias = nullptr;
    Desc m_desc;
    Layout m_first, m_second, m_out;
    cublasLtMatmulAlgo_t m_algo{};
};

std::int64_t product(const Shape &shape, std::size_t from, std::size_t to)
{
    return std::accumulate(shape.begin() + static_cast<std::ptrdiff_t>(from), shape.begin() + static_cast<std::ptrdiff_t>(to),
                           std::int64_t(1), std::multiplies<>());
}

/// The product and batching of a numpy MatMul of A [..., M, K] and B [..., K, N] (both at least 2-D)
/// whose batch dims are either the output's or all ones; false otherwise.
bool matMulProduct(const Shape &a, const Shape &b, const Shape &out, Product &p, std::string &whyNot)
{
    if (a.size() < 2 || b.size() < 2 || out.size() < 2) {
        whyNot = "a 1-D operand";
        return false;
    }
    p.m = a[a.size() - 2];
    p.k = a.back();
    p.n = b.back();
    p.batch = product(out, 0, out.size() - 2);
    const std::int64_t batchA = product(a, 0, a.size() - 2), batchB = product(b, 0, b.size() - 2);
    if ((batchA != p.batch && batchA != 1) || (batchB != p.batch && batchB != 1) || p.batch > INT32_MAX) {
        whyNot = "batch dims broadcast partially";
        return false;
    }
    p.strideA = batchA == 1 ? 0 : p.m * p.k;
    p.strideB = batchB == 1 ? 0 : p.k * p.n;
    p.strideC = p.m * p.n;
    if (p.m == 0 || p.n == 0 || p.k == 0 || p.batch == 0) {
        whyNot = "an empty product";
        return false;
    }
    return true;
}

} // namespace

std::unique_ptr<CudaKernel> makeMatMulKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    Product p;
    if (!matMulProduct(b.inputs[0].shape, b.inputs[1].shape, b.outputs[0].shape, p, whyNot))
        return nullptr;
    const std::optional<FunctionSpec> activation = fusedActivation(b.attributes);
    if (!activation) {
        whyNot = "unknown activation";
        return nullptr;
    }
    const BoundTensor *bias = b.input(2);
    if (bias && elementCount(bias->shape) != p.n) {
        whyNot = "the bias is not one value per column";
        return nullptr;
    }
    auto kernel = std::make_unique<LtProduct>(p, bias ? Addend::Bias : Addend::None, *activation, setup.cublasLt(),
                                              kCudaWorkspaceBytes, setup.storage());
    return kernel;
}

std::unique_ptr<CudaKernel> makeGemmKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    const KernelContext &a = b.attributes;
    Product p;
    p.transA = a.attrInt("transA", 0) != 0;
    p.transB = a.attrInt("transB", 0) != 0;
    p.alpha = a.attrFloat("alpha", 1.f);
    p.beta = a.attrFloat("beta", 1.f);
    const Shape &sa = b.inputs[0].shape, &sb = b.inputs[1].shape;
    if (sa.size() != 2 || sb.size() != 2) {
        whyNot = "Gemm operands are not 2-D";
        return nullptr;
    }
    p.m = p.transA ? sa[1] : sa[0];
    p.k = p.transA ? sa[0] : sa[1];
    p.n = p.transB ? sb[0] : sb[1];
    p.strideC = p.m * p.n;
    if (p.m == 0 || p.n == 0 || p.k == 0) {
        whyNot = "an empty product";
        return nullptr;
    }
    const std::optional<FunctionSpec> activation = fusedActivation(a);
    if (!activation) {
        whyNot = "unknown activation";
        return nullptr;
    }
    const BoundTensor *c = b.input(2);
    Addend addend = Addend::None;
    void *scaledBias = nullptr;
    if (c && p.beta != 0.f) {
        const bool row = elementCount(c->shape) == p.n && (c->shape.size() == 1 || (c->shape.size() == 2 && c->shape[0] == 1));
        if (c->shape == Shape{p.m, p.n}) {
            addend = Addend::Matrix;
        } else if (row && p.beta == 1.f) {
            addend = Addend::Bias;
        } else if (row && c->constant.defined()) {
            Tensor scaled = c->constant.clone();
            for (std::int64_t i = 0; i < scaled.size(); ++i)
                scaled.mutableData<float>()[i] *= p.beta;
            scaledBias = setup.upload(scaled);
            addend = Addend::Bias;
        } else {
            whyNot = "C is neither [M, N] nor a row of N (with beta 1 or constant)";
            return nullptr;
        }
    }
    auto kernel = std::make_unique<LtProduct>(p, addend, *activation, setup.cublasLt(), kCudaWorkspaceBytes, setup.storage());
    if (scaledBias)
        kernel->setScaledBias(scaledBias);
    return kernel;
}

} // namespace portolan::runtime::cuda
