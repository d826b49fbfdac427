// cuDNN's descriptors as owning handles, for the convolution and pooling kernels (host code that
// includes cudnn.h). The legacy descriptor API: cuDNN 9 keeps it, and for fixed NCHW fp32 layers it
// says all the graph API would, in a tenth of the code.
#pragma once

#include "runtime/Tensor.h"
#include "runtime/cuda/CudaError.h"
#include "runtime/cuda/DeviceKernels.h"

#include <cudnn.h>

#include <memory>
#include <type_traits>
#include <vector>

namespace portolan::runtime::cuda {

struct TensorDescDestroy {
    void operator()(cudnnTensorDescriptor_t d) const { cudnnDestroyTensorDescriptor(d); }
};
struct FilterDescDestroy {
    void operator()(cudnnFilterDescriptor_t d) const { cudnnDestroyFilterDescriptor(d); }
};
struct ConvDescDestroy {
    void operator()(cudnnConvolutionDescriptor_t d) const { cudnnDestroyConvolutionDescriptor(d); }
};
struct PoolDescDestroy {
    void operator()(cudnnPoolingDescriptor_t d) const { cudnnDestroyPoolingDescriptor(d); }
};
struct ActivationDescDestroy {
    void operator()(cudnnActivationDescriptor_t d) const { cudnnDestroyActivationDescriptor(d); }
};
using TensorDesc = std::unique_ptr<std::remove_pointer_t<cudnnTensorDescriptor_t>, TensorDescDestroy>;
using FilterDesc = std::unique_ptr<std::remove_pointer_t<cudnnFilterDescriptor_t>, FilterDescDestroy>;
using ConvDesc = std::unique_ptr<std::remove_pointer_t<cudnnConvolutionDescriptor_t>, ConvDescDestroy>;
using PoolDesc = std::unique_ptr<std::remove_pointer_t<cudnnPoolingDescriptor_t>, PoolDescDestroy>;
using ActivationDesc = std::unique_ptr<std::remove_pointer_t<cudnnActivationDescriptor_t>, ActivationDescDestroy>;

/// cuDNN wants at least 4 dims: a 1-D spatial shape [N, C, L] becomes [N, C, 1, L].
inline std::vector<int> cudnnDims(const Shape &shape)
{
    std::vector<int> dims(shape.begin(), shape.end());
    if (dims.size() == 3)
        dims.insert(dims.begin() + 2, 1);
    return dims;
}

/// cuDNN's name for a storage type.
inline cudnnDataType_t cudnnTypeOf(Storage s)
{
    return s == Storage::F16 ? CUDNN_DATA_HALF : s == Storage::BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

/// A packed row-major tensor of `shape` stored as `s` says.
inline TensorDesc tensorDescriptor(const Shape &shape, Storage s)
{
    cudnnTensorDescriptor_t raw = nullptr;
    checkCudnn(cudnnCreateTensorDescriptor(&raw), "cudnnCreateTensorDescriptor");
    TensorDesc d(raw);
    const std::vector<int> dims = cudnnDims(shape);
    if (dims.size() < 4) // the factories pass ranks 3 to 5; a smaller one would underflow the strides below
        throw CudaError("a cuDNN tensor needs rank 3 or more, got " + std::to_string(shape.size()));
    std::vector<int> strides(dims.size(), 1);
    for (std::size_t i = dims.size() - 1; i-- > 0;)
        strides[i] = strides[i + 1] * dims[i + 1];
    checkCudnn(cudnnSetTensorNdDescriptor(raw, cudnnTypeOf(s), static_cast<int>(dims.size()), dims.data(), strides.data()),
               "cudnnSetTensorNdDescriptor");
    return d;
}

} // namespace portolan::runtime::cuda
