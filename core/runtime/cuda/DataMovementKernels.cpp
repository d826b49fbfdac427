// Data movement on the device: Transpose as one strided copy (the output walked in order, the input
// through permuted strides), and Slice, Split, Concat and Gather as the box copies of
// runtime/BoxCopyPlan.h, each one strided copy (kernels/Elementwise.cu). float32 tensors: shape
// arithmetic (int64) stays on the host, where the shape ops that read it run.
#include "runtime/BoxCopyPlan.h"
#include "runtime/reference/kernels/DataMovement.h"
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/DeviceKernels.h"

namespace portolan::runtime::cuda {

namespace {

class StridedCopyKernel final : public CudaKernel {
public:
    struct Copy {
        std::size_t input, output;
        StridedCopy copy;
    };
    StridedCopyKernel(std::string name, std::vector<Copy> copies, Storage storage)
        : m_name(std::move(name)), m_copies(std::move(copies)), m_elementBytes(storageBytes(storage))
    {
    }
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        for (const Copy &copy : m_copies)
            launchStridedCopy(m_elementBytes, in[copy.input].data, out[copy.output].data, copy.copy, c.multiprocessors, c.stream);
    }
    bool readsInput(std::size_t input) const override
    {
        for (const Copy &copy : m_copies)
            if (copy.input == input)
                return true;
        return false; // Slice's bounds, Gather's indices: constants, planned in
    }
    std::string implementation() const override { return "cuda:" + m_name; }

private:
    std::string m_name;
    std::vector<Copy> m_copies;
    int m_elementBytes;
};

} // namespace

std::unique_ptr<CudaKernel> makeTransposeKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    const Shape &x = b.inputs[0].shape, &y = b.outputs[0].shape;
    std::vector<std::int64_t> perm = b.attributes.attrInts("perm");
    if (perm.empty())
        for (std::size_t d = x.size(); d-- > 0;)
            perm.push_back(static_cast<std::int64_t>(d));
    if (perm.size() != x.size() || y.size() != x.size()) {
        whyNot = "perm does not match the rank";
        return nullptr;
    }
    const std::vector<std::int64_t> inStrides = kernels::stridesOf(x);
    std::vector<std::int64_t> srcStrides;
    for (std::size_t d = 0; d < perm.size(); ++d) {
        if (perm[d] < 0 || perm[d] >= static_cast<std::int64_t>(x.size()) || y[d] != x[static_cast<std::size_t>(perm[d])]) {
            whyNot = "perm is not a permutation of the input's axes";
            return nullptr;
        }
        srcStrides.push_back(inStrides[static_cast<std::size_t>(perm[d])]);
    }
    const auto copy = planStridedCopy(y, srcStrides, kernels::stridesOf(y));
    if (!copy) {
        whyNot = "more than " + std::to_string(kMaxRank) + " dims after merging";
        return nullptr;
    }
    return std::make_unique<StridedCopyKernel>("transpose", std::vector<StridedCopyKernel::Copy>{{0, 0, *copy}}, setup.storage());
}

/// Slice, Split, Concat, Gather.
std::unique_ptr<CudaKernel> makeBoxCopyKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!b.input(0) || b.inputs[0].dataType != onnx::TensorProto::FLOAT) {
        whyNot = "not a float32 tensor (shape arithmetic stays on the host)";
        return nullptr;
    }
    auto plan = planBoxCopies(b, whyNot);
    if (!plan)
        return nullptr;
    std::vector<StridedCopyKernel::Copy> copies;
    for (const NodeBoxCopy &c : *plan) {
        const auto src = kernels::stridesOf(c.box.srcShape), dst = kernels::stridesOf(c.box.dstShape);
        const auto copy = planStridedCopy(c.box.box, src, dst, offsetOf(c.box.srcStart, src), offsetOf(c.box.dstStart, dst));
        if (!copy) {
            whyNot = "more than " + std::to_string(kMaxRank) + " dims after merging";
            return nullptr;
        }
        copies.push_back({c.input, c.output, *copy});
    }
    std::string name = b.node.opType;
    name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
    return std::make_unique<StridedCopyKernel>(name, std::move(copies), setup.storage());
}

} // namespace portolan::runtime::cuda
