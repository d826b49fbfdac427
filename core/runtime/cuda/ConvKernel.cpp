// Conv and FusedConv on the device: cuDNN's convolution, in pure fp32 (FMA math, no TF32: the
// comparison with the reference allows 1e-4) or, for fp16/bf16 storage, on tensor cores with fp32
// accumulation. A bias with ReLU or no activation goes into the convolution itself, with the
// residual (cudnnConvolutionBiasActivationForward: y = act(conv(x) + z + bias), one pass over y,
// rounded once); anything else, or a configuration cuDNN declines for the fused call, gets one
// epilogue kernel after the plain convolution for the bias, the residual and the activation
// together. cuDNN pads symmetrically: a node with unequal begin and end pads (SAME_UPPER with an
// even kernel, say) runs on the CPU.
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/CudnnDescriptors.h"
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/reference/kernels/Spatial.h"

#include <cuda_runtime.h>

namespace portolan::runtime::cuda {

namespace {

class ConvKernel final : public CudaKernel {
public:
    ConvKernel(TensorDesc x, FilterDesc w, ConvDesc conv, TensorDesc y, cudnnConvolutionFwdAlgo_t algo, std::size_t workspace,
               const Shape &yShape, FunctionSpec activation, bool epilogue, Storage storage)
        : m_x(std::move(x)), m_w(std::move(w)), m_conv(std::move(conv)), m_y(std::move(y)), m_algo(algo), m_workspace(workspace),
          m_yShape(yShape), m_activation(activation), m_epilogue(epilogue), m_storage(storage)
    {
    }

    /// Bias, residual and activation inside cuDNN's call from now on (`bias` describes the bias as
    /// [1, C, 1…]; `activation` is ReLU or identity).
    void fuseEpilogue(TensorDesc bias, ActivationDesc activation)
    {
        m_bias = std::move(bias);
        m_fusedActivation = std::move(activation);
    }

    /// inputs: X, W, B (bias), Z (residual, FusedConv)
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        const float one = 1.f, zero = 0.f;
        if (m_fusedActivation) {
            // without a residual, z is y itself, weighed 0 (cuDNN then does not read it)
            const bool residual = in.size() > 3 && in[3].data;
            const cudnnStatus_t status = cudnnConvolutionBiasActivationForward(
                static_cast<cudnnHandle_t>(c.cudnn), &one, m_x.get(), in[0].data, m_w.get(), in[1].data, m_conv.get(), m_algo,
                c.workspace, m_workspace, residual ? &one : &zero, m_y.get(), residual ? in[3].data : out[0].data, m_bias.get(),
                in[2].data, m_fusedActivation.get(), m_y.get(), out[0].data);
            if (status != CUDNN_STATUS_NOT_SUPPORTED) {
                checkCudnn(status, "cudnnConvolutionBiasActivationForward");
                return;
            }
            // cuDNN has no fused kernel for this configuration (it says so before launching anything):
            // from now on the plain convolution and the epilogue
            m_fusedActivation.reset();
        }
        checkCudnn(cudnnConvolutionForward(static_cast<cudnnHandle_t>(c.cudnn), &one, m_x.get(), in[0].data, m_w.get(), in[1].data,
                                           m_conv.get(), m_algo, c.workspace, m_workspace, &zero, m_y.get(), out[0].data),
                   "cudnnConvolutionForward");
        if (!m_epilogue)
            return;
        auto input = [&](std::size_t k) -> const void * { return k < in.size() ? in[k].data : nullptr; };
        std::int64_t spatial = 1;
        for (std::size_t d = 2; d < m_yShape.size(); ++d)
            spatial *= m_yShape[d];
        launchChannelEpilogue(m_storage, out[0].data, input(2), input(3), elementCount(m_yShape), m_yShape[1], spatial, m_activation,
                              c.multiprocessors, c.stream);
    }
    std::string implementation() const override { return m_fusedActivation ? "cudnn:conv-bias-activation" : "cudnn:conv"; }

private:
    TensorDesc m_x;
    FilterDesc m_w;
    ConvDesc m_conv;
    TensorDesc m_y;
    cudnnConvolutionFwdAlgo_t m_algo;
    std::size_t m_workspace;
    Shape m_yShape;
    FunctionSpec m_activation;
    bool m_epilogue;
    Storage m_storage;
    TensorDesc m_bias;
    ActivationDesc m_fusedActivation; ///< set while the epilogue runs inside cuDNN's call
};

/// ReLU, or identity (which cuDNN fuses only into its implicit precomputed GEMM), as cuDNN's
/// activation; nullptr for any other function or algorithm.
ActivationDesc cudnnActivation(FunctionSpec f, cudnnConvolutionFwdAlgo_t algo)
{
    const bool identity = f.kind == Function::Identity && algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    if (f.kind != Function::Relu && !identity)
        return nullptr;
    cudnnActivationDescriptor_t raw = nullptr;
    checkCudnn(cudnnCreateActivationDescriptor(&raw), "cudnnCreateActivationDescriptor");
    ActivationDesc d(raw);
    checkCudnn(cudnnSetActivationDescriptor(raw, identity ? CUDNN_ACTIVATION_IDENTITY : CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0),
               "cudnnSetActivationDescriptor");
    return d;
}

} // namespace

std::unique_ptr<CudaKernel> makeConvKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    const BoundTensor *x = b.input(0), *w = b.input(1), *z = b.input(3);
    if (!x || !w || x->shape.size() < 3 || x->shape.size() > 5 || w->shape.size() != x->shape.size()) {
        whyNot = "not a 1-D, 2-D or 3-D convolution";
        return nullptr;
    }
    const Shape &yShape = b.outputs[0].shape;
    if (yShape.size() != x->shape.size() || elementCount(x->shape) == 0 || elementCount(yShape) == 0) {
        whyNot = "an empty tensor, or an output of another rank";
        return nullptr;
    }
    if (z && z->shape != yShape) {
        whyNot = "the residual does not have the output's shape";
        return nullptr;
    }
    const std::optional<FunctionSpec> activation = fusedActivation(b.attributes);
    if (!activation) {
        whyNot = "unknown activation";
        return nullptr;
    }
    const Shape xSpatial(x->shape.begin() + 2, x->shape.end());
    const Shape kernel(w->shape.begin() + 2, w->shape.end());
    auto window = kernels::makeWindow(b.attributes, xSpatial, kernel, false);
    if (!window) {
        whyNot = window.error().format();
        return nullptr;
    }
    const std::int64_t group = b.attributes.attrInt("group", 1);
    if (group < 1 || w->shape[0] % group != 0 || x->shape[1] != w->shape[1] * group) {
        whyNot = "the channels do not match the group count";
        return nullptr;
    }
    std::vector<int> pads, strides, dilations;
    if (xSpatial.size() == 1) { // as [N, C, 1, L]
        pads.push_back(0);
        strides.push_back(1);
        dilations.push_back(1);
    }
    for (std::size_t i = 0; i < xSpatial.size(); ++i) {
        if (window->padsBegin[i] != window->padsEnd[i]) {
            whyNot = "unequal begin and end pads (cuDNN pads symmetrically)";
            return nullptr;
        }
        pads.push_back(static_cast<int>(window->padsBegin[i]));
        strides.push_back(static_cast<int>(window->strides[i]));
        dilations.push_back(static_cast<int>(window->dilations[i]));
    }
    try {
        auto handle = static_cast<cudnnHandle_t>(setup.cudnn());
        const Storage storage = setup.storage();
        TensorDesc xDesc = tensorDescriptor(x->shape, storage), yDesc = tensorDescriptor(yShape, storage);
        cudnnFilterDescriptor_t rawFilter = nullptr;
        checkCudnn(cudnnCreateFilterDescriptor(&rawFilter), "cudnnCreateFilterDescriptor");
        FilterDesc wDesc(rawFilter);
        const std::vector<int> wDims = cudnnDims(w->shape);
        checkCudnn(cudnnSetFilterNdDescriptor(rawFilter, cudnnTypeOf(storage), CUDNN_TENSOR_NCHW, static_cast<int>(wDims.size()),
                                              wDims.data()),
                   "cudnnSetFilterNdDescriptor");
        cudnnConvolutionDescriptor_t rawConv = nullptr;
        checkCudnn(cudnnCreateConvolutionDescriptor(&rawConv), "cudnnCreateConvolutionDescriptor");
        ConvDesc conv(rawConv);
        // ONNX's Conv is a cross-correlation, as deep-learning libraries compute it
        checkCudnn(cudnnSetConvolutionNdDescriptor(rawConv, static_cast<int>(pads.size()), pads.data(), strides.data(), dilations.data(),
                                                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                   "cudnnSetConvolutionNdDescriptor");
        checkCudnn(cudnnSetConvolutionGroupCount(rawConv, static_cast<int>(group)), "cudnnSetConvolutionGroupCount");
        // fp32: FMA only (TF32 would round the inputs to 10 bits); fp16/bf16: tensor cores
        const cudnnMathType_t math = storage == Storage::F32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
        checkCudnn(cudnnSetConvolutionMathType(rawConv, math), "cudnnSetConvolutionMathType");
        std::vector<int> expected(wDims.size());
        checkCudnn(cudnnGetConvolutionNdForwardOutputDim(rawConv, xDesc.get(), rawFilter, static_cast<int>(expected.size()), expected.data()),
                   "cudnnGetConvolutionNdForwardOutputDim");
        if (expected != cudnnDims(yShape)) {
            whyNot = "cuDNN's output shape differs from the inferred one";
            return nullptr;
        }
        int count = 0;
        cudnnConvolutionFwdAlgoPerf_t candidates[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        checkCudnn(cudnnGetConvolutionForwardAlgorithm_v7(handle, xDesc.get(), rawFilter, rawConv, yDesc.get(),
                                                          CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, candidates),
                   "cudnnGetConvolutionForwardAlgorithm_v7");
        // the heuristics' best that runs in the shared workspace (in FMA math, for fp32)
        for (int i = 0; i < count; ++i) {
            const cudnnConvolutionFwdAlgoPerf_t &c = candidates[i];
            if (c.status != CUDNN_STATUS_SUCCESS || c.memory > kCudaWorkspaceBytes || (storage == Storage::F32 && c.mathType != CUDNN_FMA_MATH))
                continue;
            checkCudnn(cudnnSetConvolutionMathType(rawConv, c.mathType), "cudnnSetConvolutionMathType"); // as the algorithm wants
            auto kernel = std::make_unique<ConvKernel>(std::move(xDesc), std::move(wDesc), std::move(conv), std::move(yDesc), c.algo,
                                                       c.memory, yShape, *activation,
                                                       b.input(2) || z || activation->kind != Function::Identity, storage);
            if (b.input(2))
                if (ActivationDesc fused = cudnnActivation(*activation, c.algo)) {
                    Shape biasShape(yShape.size(), 1);
                    biasShape[1] = yShape[1];
                    kernel->fuseEpilogue(tensorDescriptor(biasShape, storage), std::move(fused));
                }
            return kernel;
        }
        whyNot = "cuDNN has no algorithm for it within the workspace";
        return nullptr;
    } catch (const CudaError &e) {
        whyNot = e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cuda
