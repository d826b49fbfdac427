// Int8 Conv, MatMul and Gemm on the GPU (makeInt8Kernel, CudaKernel.h), quantized as the CPU
// executor quantizes (Int8Operands.h), so `compare --a cpu:int8 --b cuda:int8` differs by
// accumulation order only.
//
// A product cuBLASLt's int8 kernels take runs on them: constants quantized once at compile time,
// activations quantized into scratch before each run of the node, the product accumulated in int32
// straight into the output's buffer (an int32 per float), then dequantized there in one kernel with
// the per-column scale (alpha · the operands' scales), the bias or C, and the activation. In
// cuBLASLt's column-major terms the product is Cᵀ[N,M] = Bq·Aqᵀ with both int8 operands stored
// K-contiguous ("TN", the layout its int8 kernels require): B as [N][K] (a weight's rows are its
// output channels), A as [M][K].
//
// Anything else (a convolution, a product with N or K not a multiple of 4) gets its operands
// quantized and dequantized on the device and keeps its fp32 kernel: the numbers an int8 target
// computes, without its speed.
#include "runtime/Precision.h"
#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/cuda/Int8Operands.h"
#include "runtime/cuda/LtDescriptors.h"
#include "runtime/cuda/MatrixProduct.h"

#include "ir/Type.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace portolan::runtime::cuda {

namespace {

constexpr std::size_t kScratchAlignment = 256;

std::size_t scratchBytes(std::int64_t bytes)
{
    return (static_cast<std::size_t>(bytes) + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment;
}

/// A calibrated scale as the quantizers take it: 0 (everything quantizes to zero) when it is not a
/// positive finite number, as the CPU executor treats a range of zeros.
float usableScale(float scale)
{
    return scale > 0 && std::isfinite(scale) ? scale : 0.f;
}

template <typename T>
T *inScratch(const CudaContext &c, std::size_t offset)
{
    return reinterpret_cast<T *>(static_cast<std::byte *>(c.scratch) + offset);
}

/// One int8 operand as the product reads it, [batch][rows][K]: a constant quantized at compile time,
/// or the node's input quantized (and transposed where its layout asks) into scratch at each run.
struct Int8Operand {
    const void *constant = nullptr;
    std::size_t scratchOffset = 0;
    std::int64_t batch = 1, rows = 0, cols = 0;
    bool transpose = false;
    float scale = 0;
};

class Int8Product final : public CudaKernel {
public:
    /// Descriptors and algorithm first: a device without an int8 algorithm throws before anything
    /// is uploaded. The constants' device copies follow (setConstants).
    Int8Product(const MatrixProduct &p, const Int8Operand &a, const Int8Operand &b, void *handle) : m_product(p), m_a(a), m_b(b)
    {
        cublasLtMatmulDesc_t desc = nullptr;
        checkCublas(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32I, CUDA_R_32I), "cublasLtMatmulDescCreate");
        m_desc.reset(desc);
        const cublasOperation_t transposed = CUBLAS_OP_T, straight = CUBLAS_OP_N;
        checkCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof transposed), "TRANSA");
        checkCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &straight, sizeof straight), "TRANSB");
        const std::int64_t strideB = b.batch > 1 ? p.n * p.k : 0, strideA = a.batch > 1 ? p.m * p.k : 0;
        m_first = ltLayout(CUDA_R_8I, p.k, p.n, p.k, p.batch, strideB);
        m_second = ltLayout(CUDA_R_8I, p.k, p.m, p.k, p.batch, strideA);
        m_out = ltLayout(CUDA_R_32I, p.n, p.m, p.n, p.batch, p.strideC);
        m_algo = ltBestAlgorithm(handle, desc, m_first.get(), m_second.get(), m_out.get(), kCudaWorkspaceBytes,
                                 ltBatchAlignment(p.batch, {strideB, strideA, p.strideC * 4}));
    }

    /// inputs: A, B, then the bias or C when there is one.
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        const void *a = operand(m_a, in[0], c), *b = operand(m_b, in[1], c);
        const std::int32_t one = 1, zero = 0;
        checkCublas(cublasLtMatmul(static_cast<cublasLtHandle_t>(c.cublasLt), m_desc.get(), &one, b, m_first.get(), a, m_second.get(),
                                   &zero, out[0].data, m_out.get(), out[0].data, m_out.get(), &m_algo, c.workspace, c.workspaceBytes,
                                   static_cast<cudaStream_t>(c.stream)),
                    "cublasLtMatmul (int8)");
        DequantizeArgs d;
        d.y = out[0].data;
        d.columnScale = m_columnScale;
        const float *addend = in.size() > 2 ? static_cast<const float *>(in[2].data) : nullptr;
        d.bias = m_product.addend == MatrixProduct::Addend::Bias ? addend : nullptr;
        d.matrix = m_product.addend == MatrixProduct::Addend::Matrix ? addend : nullptr;
        d.beta = m_product.beta;
        d.rows = m_product.batch * m_product.m;
        d.cols = m_product.n;
        d.f = m_product.activation;
        launchDequantizeProduct(d, c.multiprocessors, c.stream);
    }
    void setConstants(const void *a, const void *b, const float *columnScale)
    {
        m_a.constant = a;
        m_b.constant = b;
        m_columnScale = columnScale;
    }
    bool readsInput(std::size_t k) const override
    {
        return k < 2 ? !(k == 0 ? m_a : m_b).constant : m_product.addend != MatrixProduct::Addend::None;
    }
    std::uint64_t ownConstantBytes() const override
    {
        std::uint64_t bytes = static_cast<std::uint64_t>(m_product.n) * 4; // the column scales
        for (const Int8Operand *o : {&m_a, &m_b})
            if (o->constant)
                bytes += static_cast<std::uint64_t>(o->batch * o->rows * o->cols);
        return bytes;
    }
    std::string implementation() const override { return "cublaslt:int8-matmul"; }

private:
    static const void *operand(const Int8Operand &o, const DeviceTensor &input, const CudaContext &c)
    {
        if (o.constant)
            return o.constant;
        auto *quantized = inScratch<std::int8_t>(c, o.scratchOffset);
        launchQuantizeInt8(static_cast<const float *>(input.data), quantized, o.batch, o.rows, o.cols, o.transpose, o.scale,
                           c.multiprocessors, c.stream);
        return quantized;
    }

    MatrixProduct m_product;
    Int8Operand m_a, m_b;
    const float *m_columnScale = nullptr;
    LtDesc m_desc;
    LtLayout m_first, m_second, m_out;
    cublasLtMatmulAlgo_t m_algo{};
};

std::unique_ptr<CudaKernel> makeInt8Product(const NodeBinding &b, const MatrixProduct &p, const float (&scales)[2], DeviceSetup &setup)
{
    Int8Operand operands[2];
    std::optional<QuantizedMatrix> quantized[2];
    std::vector<float> columnScale(static_cast<std::size_t>(p.n), p.alpha);
    std::size_t scratch = 0;
    for (std::size_t k = 0; k < 2; ++k) {
        Int8Operand &o = operands[k];
        o.transpose = k == 0 ? p.transA : !p.transB; // A as [M][K], B as [N][K]
        o.rows = k == 0 ? p.m : p.n;
        o.cols = p.k;
        o.batch = (k == 0 ? p.strideA : p.strideB) != 0 ? p.batch : 1;
        if (const Tensor &constant = b.inputs[k].constant; constant.defined()) {
            quantized[k] = quantizeMatrix(constant, o.transpose, k == 1); // a weight per output channel
            const std::vector<float> &s = quantized[k]->scales;
            for (std::size_t n = 0; n < columnScale.size(); ++n)
                columnScale[n] *= s[s.size() == 1 ? 0 : n];
        } else {
            o.scale = scales[k];
            o.scratchOffset = scratch;
            scratch += scratchBytes(o.batch * o.rows * o.cols);
            for (float &s : columnScale)
                s *= o.scale;
        }
    }
    auto kernel = std::make_unique<Int8Product>(p, operands[0], operands[1], setup.cublasLt());
    const void *constants[2] = {nullptr, nullptr};
    for (std::size_t k = 0; k < 2; ++k)
        if (const auto &q = quantized[k])
            constants[k] = setup.upload(Tensor::fromVector<std::int8_t>(onnx::TensorProto::INT8, {q->batch, q->rows, q->cols}, q->values));
    kernel->setConstants(constants[0], constants[1],
                         static_cast<const float *>(setup.upload(Tensor::fromVector<float>(onnx::TensorProto::FLOAT, {p.n}, columnScale))));
    setup.reserveScratch(scratch);
    return kernel;
}

/// A node whose inputs 0 and 1 are replaced by their quantize-dequantized values: constants once at
/// compile time, activations into scratch at each run; its fp32 kernel does the rest.
class FakeQuantizedOperands final : public CudaKernel {
public:
    struct Operand {
        std::size_t input = 0;
        const void *constant = nullptr;
        float scale = 0;
        std::size_t scratchOffset = 0;
        int dataType = 0;
        Shape shape;
    };
    FakeQuantizedOperands(std::unique_ptr<CudaKernel> inner, std::vector<Operand> operands)
        : m_inner(std::move(inner)), m_operands(std::move(operands))
    {
    }

    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        std::vector<DeviceTensor> inputs(in.begin(), in.end());
        for (const Operand &o : m_operands) {
            void *quantized = const_cast<void *>(o.constant);
            if (!quantized) {
                quantized = inScratch<float>(c, o.scratchOffset);
                launchFakeQuantize(static_cast<const float *>(in[o.input].data), static_cast<float *>(quantized), elementCount(o.shape),
                                   o.scale, c.multiprocessors, c.stream);
            }
            inputs[o.input] = {quantized, o.dataType, o.shape};
        }
        m_inner->enqueue(inputs, out, c);
    }
    bool readsInput(std::size_t k) const override
    {
        for (const Operand &o : m_operands)
            if (o.input == k && o.constant)
                return false;
        return m_inner->readsInput(k);
    }
    std::uint64_t ownConstantBytes() const override
    {
        std::uint64_t bytes = m_inner->ownConstantBytes();
        for (const Operand &o : m_operands)
            bytes += o.constant ? static_cast<std::uint64_t>(elementCount(o.shape)) * 4 : 0;
        return bytes;
    }
    std::string implementation() const override { return m_inner->implementation() + "+int8-operands"; }

private:
    std::unique_ptr<CudaKernel> m_inner;
    std::vector<Operand> m_operands;
};

std::unique_ptr<CudaKernel> makeFakeQuantized(const NodeBinding &b, const float (&scales)[2], DeviceSetup &setup, std::string &whyNot)
{
    NodeBinding quantized = b;
    for (std::size_t k = 0; k < 2 && k < b.inputs.size(); ++k)
        if (const Tensor &constant = b.inputs[k].constant; constant.defined()) // a weight per output channel, A per tensor
            quantized.inputs[k].constant =
                fakeQuantizePerChannel(constant, k == 1 ? weightChannelAxis(b.node, constant.shape()) : constant.shape().size());
    const CudaKernelFactory factory = findCudaKernel(b.node.domain, b.node.opType, b.opset);
    std::unique_ptr<CudaKernel> inner = factory ? factory(quantized, setup, whyNot) : nullptr;
    if (!inner)
        return nullptr;
    std::vector<FakeQuantizedOperands::Operand> operands;
    std::size_t scratch = 0;
    for (std::size_t k = 0; k < 2 && k < b.inputs.size(); ++k) {
        if (!b.inputs[k].present)
            continue;
        FakeQuantizedOperands::Operand o;
        o.input = k;
        o.dataType = b.inputs[k].dataType;
        o.shape = b.inputs[k].shape;
        if (quantized.inputs[k].constant.defined()) {
            o.constant = setup.upload(quantized.inputs[k].constant);
        } else {
            o.scale = scales[k];
            o.scratchOffset = scratch;
            scratch += scratchBytes(elementCount(o.shape) * 4);
        }
        operands.push_back(o);
    }
    setup.reserveScratch(scratch);
    return std::make_unique<FakeQuantizedOperands>(std::move(inner), std::move(operands));
}

} // namespace

std::unique_ptr<CudaKernel> makeInt8Kernel(const NodeBinding &b, const float (&operandScales)[2], DeviceSetup &setup,
                                           std::string &whyNot, std::string &whyEmulated)
{
    if (setup.storage() != Storage::F32) {
        whyNot = "int8 nodes read and write fp32 tensors";
        return nullptr;
    }
    const float scales[2] = {usableScale(operandScales[0]), usableScale(operandScales[1])};
    const std::string &op = b.node.opType;
    if (op == "MatMul" || op == "Gemm" || op == "FusedMatMul" || op == "FusedGemm") {
        std::string why;
        if (const std::optional<MatrixProduct> p = describeProduct(b, why); p && fitsInt8Product(*p, why)) {
            try {
                return makeInt8Product(b, *p, scales, setup);
            } catch (const CudaError &e) { // no int8 algorithm on this device
                why = e.what();
            }
        }
        whyEmulated = "int8 operands, fp32 math: " + why;
    } else {
        whyEmulated = "int8 operands, fp32 cuDNN math: cuDNN's int8 convolution (NHWC, channels in fours, one scale per tensor) "
                      "is not wired";
    }
    return makeFakeQuantized(b, scales, setup, whyNot);
}

} // namespace portolan::runtime::cuda
