// QuantizeLinear and DequantizeLinear on the device (kernels/Quantize.cu): a QDQ model's activation
// pairs run where their neighbours do instead of bouncing through the CPU. Per tensor or per axis;
// int8 and uint8 (and int32 dequantized, a bias); blocked quantization and the float8 types stay on
// the CPU.
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/DeviceKernels.h"

#include "ir/Type.h"

namespace portolan::runtime::cuda {

namespace {

class QuantizeLinearKernel final : public CudaKernel {
public:
    QuantizeLinearKernel(const QuantizeLinearArgs &args, Storage storage) : m_args(args), m_storage(storage) {}
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        QuantizeLinearArgs a = m_args;
        a.in = in[0].data;
        a.scale = in[1].data;
        a.zeroPoint = in.size() > 2 ? in[2].data : nullptr;
        a.out = out[0].data;
        launchQuantizeLinear(m_storage, a, c.multiprocessors, c.stream);
    }
    std::string implementation() const override { return m_args.dequantize ? "cuda:dequantize-linear" : "cuda:quantize-linear"; }

private:
    QuantizeLinearArgs m_args;
    Storage m_storage;
};

std::optional<QuantizeLinearArgs::Type> quantizedType(int dataType)
{
    switch (dataType) {
    case onnx::TensorProto::INT8: return QuantizeLinearArgs::Type::Int8;
    case onnx::TensorProto::UINT8: return QuantizeLinearArgs::Type::Uint8;
    case onnx::TensorProto::INT32: return QuantizeLinearArgs::Type::Int32;
    default: return std::nullopt;
    }
}

} // namespace

std::unique_ptr<CudaKernel> makeQuantizeLinearKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    QuantizeLinearArgs a;
    a.dequantize = b.node.opType == "DequantizeLinear";
    const BoundTensor *x = b.input(0), *scale = b.input(1), *zeroPoint = b.input(2);
    if (!x || !scale || b.outputs.empty()) {
        whyNot = "x or the scale is missing";
        return nullptr;
    }
    if (b.attributes.attrInt("block_size", 0) != 0) {
        whyNot = "blocked quantization";
        return nullptr;
    }
    const int floatType = a.dequantize ? b.outputs[0].dataType : x->dataType;
    const int quantized = a.dequantize ? x->dataType : b.outputs[0].dataType;
    const auto type = quantizedType(quantized);
    if (floatType != onnx::TensorProto::FLOAT || scale->dataType != onnx::TensorProto::FLOAT || !type ||
        (!a.dequantize && *type == QuantizeLinearArgs::Type::Int32) || (zeroPoint && zeroPoint->dataType != quantized)) {
        whyNot = "not float32 against int8 or uint8 (or int32 dequantized) with a float32 scale";
        return nullptr;
    }
    a.quantized = *type;
    a.count = elementCount(x->shape);
    const std::int64_t scales = elementCount(scale->shape);
    if (scales != 1 && b.opset < 13) {
        whyNot = "per-axis scales before opset 13";
        return nullptr;
    }
    if (scales != 1) { // per axis
        const auto rank = static_cast<std::int64_t>(x->shape.size());
        std::int64_t axis = b.attributes.attrInt("axis", 1);
        axis = axis < 0 ? axis + rank : axis;
        if (scale->shape.size() != 1 || axis < 0 || axis >= rank || x->shape[static_cast<std::size_t>(axis)] != scales) {
            whyNot = "the scale is neither one value nor one per channel of the axis";
            return nullptr;
        }
        a.channels = scales;
        for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < x->shape.size(); ++d)
            a.inner *= x->shape[d];
    }
    if (zeroPoint) {
        const std::int64_t points = elementCount(zeroPoint->shape);
        if (points != 1 && (points != scales || zeroPoint->shape.size() != 1)) {
            whyNot = "the zero point has neither one value nor the scale's count";
            return nullptr;
        }
        a.zeroPointPerChannel = points != 1;
    }
    return std::make_unique<QuantizeLinearKernel>(a, setup.storage());
}

} // namespace portolan::runtime::cuda
