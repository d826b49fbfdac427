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
#include "runtime/cuda/LtDescriptors.h"
#include "runtime/cuda/MatrixProduct.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <memory>

namespace portolan::runtime::cuda {

namespace {

using Addend = MatrixProduct::Addend;

cudaDataType_t cudaTypeOf(Storage s)
{
    return s == Storage::F16 ? CUDA_R_16F : s == Storage::BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

class LtProduct final : public CudaKernel {
public:
    LtProduct(const MatrixProduct &p, void *handle, std::size_t workspaceBytes, Storage storage)
        : m_product(p), m_addend(p.addend), m_storage(storage)
    {
        const bool reluInEpilogue = p.activation.kind == Function::Relu;
        cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
        if (p.addend == Addend::Bias)
            epilogue = reluInEpilogue ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
        else if (reluInEpilogue)
            epilogue = CUBLASLT_EPILOGUE_RELU;
        m_after = reluInEpilogue ? FunctionSpec{} : p.activation;
        cublasLtMatmulDesc_t desc = nullptr;
        checkCublas(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
        m_desc.reset(desc);
        const cublasOperation_t first = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N, second = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
        checkCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &first, sizeof first), "TRANSA");
        checkCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &second, sizeof second), "TRANSB");
        checkCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), "EPILOGUE");
        // B's storage read column-major: N×K (ld N), or K×N (ld K) when transposed; A's: K×M or M×K
        const cudaDataType_t type = cudaTypeOf(storage);
        const std::int64_t firstRows = p.transB ? p.k : p.n, secondRows = p.transA ? p.m : p.k;
        m_first = ltLayout(type, firstRows, p.transB ? p.n : p.k, firstRows, p.batch, p.strideB);
        m_second = ltLayout(type, secondRows, p.transA ? p.k : p.m, secondRows, p.batch, p.strideA);
        m_out = ltLayout(type, p.n, p.m, p.n, p.batch, p.strideC);
        const std::int64_t bytes = storageBytes(storage);
        m_algo = ltBestAlgorithm(handle, desc, m_first.get(), m_second.get(), m_out.get(), workspaceBytes,
                                 ltBatchAlignment(p.batch, {p.strideA * bytes, p.strideB * bytes, p.strideC * bytes}));
    }

    /// inputs: A, B, then the addend (bias [N] or C [M,N]) when there is one.
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        const void *addend = m_addend != Addend::None && in.size() > 2 ? in[2].data : nullptr;
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
    /// C is read when added, unless it went up pre-scaled
    bool readsInput(std::size_t k) const override { return k < 2 || (m_addend != Addend::None && !m_scaledBias); }
    std::string implementation() const override { return "cublaslt:matmul"; }

    /// Gemm's beta·C with C a constant row: the bias cuBLASLt adds, pre-scaled.
    void setScaledBias(void *bias) { m_scaledBias = bias; }

private:
    MatrixProduct m_product;
    Addend m_addend;
    FunctionSpec m_after; ///< the activation cuBLASLt's epilogue does not apply
    Storage m_storage;
    void *m_scaledBias = nullptr;
    LtDesc m_desc;
    LtLayout m_first, m_second, m_out;
    cublasLtMatmulAlgo_t m_algo{};
};

} // namespace

std::unique_ptr<CudaKernel> makeProductKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    const std::optional<MatrixProduct> p = describeProduct(b, whyNot);
    if (!p)
        return nullptr;
    // beta·C with C a row: cuBLASLt adds the row as it is, so another beta needs it pre-scaled
    void *scaledBias = nullptr;
    if (p->addend == Addend::Bias && p->beta != 1.f) {
        const BoundTensor &c = b.inputs[2];
        if (!c.constant.defined()) {
            whyNot = "C is a row of N, not constant, with beta " + std::to_string(p->beta);
            return nullptr;
        }
        Tensor scaled = c.constant.clone();
        for (std::int64_t i = 0; i < scaled.size(); ++i)
            scaled.mutableData<float>()[i] *= p->beta;
        scaledBias = setup.upload(scaled);
    }
    auto kernel = std::make_unique<LtProduct>(*p, setup.cublasLt(), kCudaWorkspaceBytes, setup.storage());
    if (scaledBias)
        kernel->setScaledBias(scaledBias);
    return kernel;
}

} // namespace portolan::runtime::cuda
