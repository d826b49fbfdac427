// Softmax and the layer normalizations on the device, as row kernels (kernels/Rows.cu).
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/DeviceKernels.h"

namespace portolan::runtime::cuda {

namespace {

/// rows × width of `shape` split before `axis` (negative: from the end); false when out of range.
bool rowsAt(const Shape &shape, std::int64_t axis, std::int64_t &rows, std::int64_t &width)
{
    const auto rank = static_cast<std::int64_t>(shape.size());
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis > rank)
        return false;
    rows = 1;
    width = 1;
    for (std::int64_t d = 0; d < rank; ++d)
        (d < axis ? rows : width) *= shape[static_cast<std::size_t>(d)];
    return true;
}

class SoftmaxKernel final : public CudaKernel {
public:
    SoftmaxKernel(std::int64_t rows, std::int64_t width, Storage storage) : m_rows(rows), m_width(width), m_storage(storage) {}
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        launchSoftmax(m_storage, in[0].data, out[0].data, m_rows, m_width, c.stream);
    }
    std::string implementation() const override { return "cuda:softmax"; }

private:
    std::int64_t m_rows, m_width;
    Storage m_storage;
};

/// LayerNormalization (inputs X, Scale, B) and SkipLayerNormalization (X, Skip, Gamma, Beta, Bias;
/// outputs Y, Sum).
class LayerNormKernel final : public CudaKernel {
public:
    LayerNormKernel(bool skip, std::int64_t rows, std::int64_t width, float epsilon, Storage storage)
        : m_skip(skip), m_rows(rows), m_width(width), m_epsilon(epsilon), m_storage(storage)
    {
    }
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        auto input = [&](std::size_t k) -> const void * { return k < in.size() ? in[k].data : nullptr; };
        LayerNormArgs a;
        a.x = input(0);
        if (m_skip) {
            a.skip = input(1);
            a.gamma = input(2);
            a.beta = input(3);
            a.bias = input(4);
            a.sum = out.size() > 1 ? out[1].data : nullptr;
        } else {
            a.gamma = input(1);
            a.beta = input(2);
        }
        a.y = out[0].data;
        a.rows = m_rows;
        a.width = m_width;
        a.epsilon = m_epsilon;
        launchLayerNorm(m_storage, a, c.stream);
    }
    std::string implementation() const override { return m_skip ? "cuda:skip-layer-norm" : "cuda:layer-norm"; }

private:
    bool m_skip;
    std::int64_t m_rows, m_width;
    float m_epsilon;
    Storage m_storage;
};

} // namespace

std::unique_ptr<CudaKernel> makeSoftmaxKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    const Shape &shape = b.inputs[0].shape;
    const auto rank = static_cast<std::int64_t>(shape.size());
    // before opset 13 Softmax works on the 2-D coercion at `axis` (rows × the rest); from 13 on along
    // one axis, which is a row only when it is the last
    std::int64_t axis = b.attributes.attrInt("axis", b.opset >= 13 ? -1 : 1);
    if (b.opset >= 13 && axis != -1 && axis != rank - 1) {
        whyNot = "softmax along axis " + std::to_string(axis) + ", not the last";
        return nullptr;
    }
    if (b.opset >= 13)
        axis = rank - 1;
    std::int64_t rows = 0, width = 0;
    if (!rowsAt(shape, axis, rows, width) || width == 0) {
        whyNot = "axis out of range";
        return nullptr;
    }
    return std::make_unique<SoftmaxKernel>(rows, width, setup.storage());
}

std::unique_ptr<CudaKernel> makeLayerNormKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    const bool skip = b.node.opType == "SkipLayerNormalization";
    if (!skip && b.outputs.size() > 1 && (b.outputs[1].present || (b.outputs.size() > 2 && b.outputs[2].present))) {
        whyNot = "the Mean / InvStdDev outputs are asked for";
        return nullptr;
    }
    const Shape &shape = b.inputs[0].shape;
    std::int64_t rows = 0, width = 0;
    const std::int64_t axis = b.attributes.attrInt("axis", -1);
    // axis == rank is Softmax's before opset 13, not a layer norm's (the reference refuses it)
    if (axis >= static_cast<std::int64_t>(shape.size()) || !rowsAt(shape, axis, rows, width) || width == 0) {
        whyNot = "axis out of range";
        return nullptr;
    }
    // the kernel reads gamma, beta and the bias as one value per element of the row
    const std::size_t gamma = skip ? 2 : 1, beta = skip ? 3 : 2;
    for (const std::size_t k : {gamma, beta, std::size_t(skip ? 4 : 99)})
        if (const BoundTensor *t = b.input(k); t && elementCount(t->shape) != width) {
            whyNot = "input " + std::to_string(k) + " is not one value per normalized element";
            return nullptr;
        }
    if (!b.input(gamma) || (skip && (!b.input(1) || b.inputs[1].shape != shape))) {
        whyNot = skip ? "Skip is missing or not X's shape" : "Scale is missing";
        return nullptr;
    }
    return std::make_unique<LayerNormKernel>(skip, rows, width, b.attributes.attrFloat("epsilon", 1e-5f), setup.storage());
}

} // namespace portolan::runtime::cuda
