// Pooling on the device: MaxPool and AveragePool through cuDNN (symmetric pads, no ceil_mode past
// what floor gives, no dilations), GlobalAveragePool and GlobalMaxPool as one reduction per
// (image, channel) row (kernels/Rows.cu).
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/CudnnDescriptors.h"
#include "runtime/cuda/DeviceKernels.h"
#include "runtime/reference/kernels/Spatial.h"

namespace portolan::runtime::cuda {

namespace {

class PoolKernel final : public CudaKernel {
public:
    PoolKernel(PoolDesc pool, TensorDesc x, TensorDesc y) : m_pool(std::move(pool)), m_x(std::move(x)), m_y(std::move(y)) {}
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        const float one = 1.f, zero = 0.f;
        checkCudnn(cudnnPoolingForward(static_cast<cudnnHandle_t>(c.cudnn), m_pool.get(), &one, m_x.get(), in[0].data, &zero, m_y.get(),
                                       out[0].data),
                   "cudnnPoolingForward");
    }
    std::string implementation() const override { return "cudnn:pooling"; }

private:
    PoolDesc m_pool;
    TensorDesc m_x, m_y;
};

class GlobalPoolKernel final : public CudaKernel {
public:
    GlobalPoolKernel(bool max, std::int64_t rows, std::int64_t width, Storage storage)
        : m_max(max), m_rows(rows), m_width(width), m_storage(storage)
    {
    }
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        launchRowReduce(m_storage, in[0].data, out[0].data, m_rows, m_width, m_max, c.stream);
    }
    std::string implementation() const override { return "cuda:global-pool"; }

private:
    bool m_max;
    std::int64_t m_rows, m_width;
    Storage m_storage;
};

} // namespace

std::unique_ptr<CudaKernel> makePoolingKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    const BoundTensor *x = b.input(0);
    if (!x || x->shape.size() < 3 || x->shape.size() > 5 || b.outputs.size() != 1 || b.outputs[0].shape.size() != x->shape.size()) {
        whyNot = "not a pooling of a 1-D, 2-D or 3-D [N, C, …] tensor with one output of its rank";
        return nullptr;
    }
    if (elementCount(x->shape) == 0 || elementCount(b.outputs[0].shape) == 0) {
        whyNot = "an empty tensor";
        return nullptr;
    }
    const std::string &op = b.node.opType;
    const bool isMax = op.ends_with("MaxPool");
    const Shape spatial(x->shape.begin() + 2, x->shape.end());
    if (op.starts_with("Global")) {
        std::int64_t width = 1;
        for (const auto d : spatial)
            width *= d;
        return std::make_unique<GlobalPoolKernel>(isMax, x->shape[0] * x->shape[1], width, setup.storage());
    }
    if (setup.storage() == Storage::BF16) {
        whyNot = "bf16 pooling: not checked against cuDNN's legacy pooling yet";
        return nullptr;
    }
    const Shape &y = b.outputs[0].shape;
    const bool ceil = b.attributes.attrInt("ceil_mode", 0) != 0;
    auto window = kernels::makeWindow(b.attributes, spatial, b.attributes.attrInts("kernel_shape"), ceil);
    if (!window) {
        whyNot = window.error().format();
        return nullptr;
    }
    std::vector<int> kernel, pads, strides;
    if (spatial.size() == 1) { // as [N, C, 1, L]
        kernel.push_back(1);
        pads.push_back(0);
        strides.push_back(1);
    }
    for (std::size_t i = 0; i < spatial.size(); ++i) {
        // cuDNN's output is the floor of the windows: ceil_mode must not add one here
        const std::int64_t floorSize = (spatial[i] + window->padsBegin[i] + window->padsEnd[i] - window->kernel[i]) / window->strides[i] + 1;
        if (window->dilations[i] != 1 || window->padsBegin[i] != window->padsEnd[i] || floorSize != y[i + 2]) {
            whyNot = "dilations, unequal pads or a ceil_mode window past the floor (cuDNN has none of them)";
            return nullptr;
        }
        kernel.push_back(static_cast<int>(window->kernel[i]));
        pads.push_back(static_cast<int>(window->padsBegin[i]));
        strides.push_back(static_cast<int>(window->strides[i]));
    }
    const bool countPads = b.attributes.attrInt("count_include_pad", 0) != 0;
    const cudnnPoolingMode_t mode = isMax      ? CUDNN_POOLING_MAX_DETERMINISTIC
                                    : countPads ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    try {
        cudnnPoolingDescriptor_t raw = nullptr;
        checkCudnn(cudnnCreatePoolingDescriptor(&raw), "cudnnCreatePoolingDescriptor");
        PoolDesc pool(raw);
        checkCudnn(cudnnSetPoolingNdDescriptor(raw, mode, CUDNN_PROPAGATE_NAN, static_cast<int>(kernel.size()), kernel.data(), pads.data(),
                                               strides.data()),
                   "cudnnSetPoolingNdDescriptor");
        TensorDesc xDesc = tensorDescriptor(x->shape, setup.storage());
        // what cuDNN would compute, checked here so that a disagreement falls back instead of failing the run
        std::vector<int> expected(kernel.size() + 2);
        checkCudnn(cudnnGetPoolingNdForwardOutputDim(raw, xDesc.get(), static_cast<int>(expected.size()), expected.data()),
                   "cudnnGetPoolingNdForwardOutputDim");
        if (expected != cudnnDims(y)) {
            whyNot = "cuDNN's output shape differs from the inferred one";
            return nullptr;
        }
        return std::make_unique<PoolKernel>(std::move(pool), std::move(xDesc), tensorDescriptor(y, setup.storage()));
    } catch (const CudaError &e) {
        whyNot = e.what();
        return nullptr;
    }
}

} // namespace portolan::runtime::cuda
