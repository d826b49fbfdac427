// Elementwise ops on the device: one function per tensor (Relu, Sigmoid, Gelu…) and the broadcast
// binary arithmetic (Add, Mul…); kernels in kernels/Elementwise.cu.
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/DeviceKernels.h"

#include <algorithm>
#include <limits>
#include <map>

namespace portolan::runtime::cuda {

namespace {

class FunctionKernel final : public CudaKernel {
public:
    FunctionKernel(FunctionSpec f, Storage storage) : m_function(f), m_storage(storage) {}
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        launchFunction(m_storage, m_function, in[0].data, out[0].data, out[0].count(), c.multiprocessors, c.stream);
    }
    std::string implementation() const override { return "cuda:elementwise"; }

private:
    FunctionSpec m_function;
    Storage m_storage;
};

class BinaryKernel final : public CudaKernel {
public:
    BinaryKernel(BinaryOp op, const BroadcastPlan &plan, Storage storage) : m_op(op), m_plan(plan), m_storage(storage) {}
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        launchBinary(m_storage, m_op, {}, in[0].data, in[1].data, out[0].data, m_plan, c.multiprocessors, c.stream);
    }
    std::string implementation() const override { return "cuda:elementwise"; }

private:
    BinaryOp m_op;
    BroadcastPlan m_plan;
    Storage m_storage;
};

/// A scalar bound of Clip: the input `k` (opset 11 on) when it is a constant, else the attribute
/// (before 11), else the default. False when the input is given but not a constant.
bool clipBound(const NodeBinding &b, std::size_t k, const char *attribute, float fallback, float &bound)
{
    if (b.opset >= 11) {
        const BoundTensor *t = b.input(k);
        if (!t) {
            bound = fallback;
            return true;
        }
        if (!t->constant.defined() || t->constant.size() != 1)
            return false;
        bound = t->constant.data<float>()[0];
        return true;
    }
    bound = b.attributes.attrFloat(attribute, fallback);
    return true;
}

} // namespace

std::optional<FunctionSpec> fusedActivation(const KernelContext &a)
{
    const std::string name = a.attrString("activation");
    const std::vector<float> p = a.attrFloats("activation_params");
    auto param = [&](std::size_t i, float fallback) { return i < p.size() ? p[i] : fallback; };
    static const std::map<std::string, Function> plain{{"", Function::Identity},       {"Relu", Function::Relu},
                                                       {"Sigmoid", Function::Sigmoid}, {"HardSwish", Function::HardSwish},
                                                       {"Tanh", Function::Tanh},       {"Gelu", Function::Gelu},
                                                       {"GeluTanh", Function::GeluTanh}};
    if (const auto it = plain.find(name); it != plain.end())
        return FunctionSpec{it->second};
    if (name == "LeakyRelu")
        return FunctionSpec{Function::LeakyRelu, param(0, 0.01f)};
    if (name == "HardSigmoid")
        return FunctionSpec{Function::HardSigmoid, param(0, 0.2f), param(1, 0.5f)};
    if (name == "Clip")
        return FunctionSpec{Function::Clip, param(0, std::numeric_limits<float>::lowest()), param(1, std::numeric_limits<float>::max())};
    return std::nullopt;
}

std::optional<FunctionSpec> unaryFunction(const std::string &op, const KernelContext &a)
{
    static const std::map<std::string, Function> plain{
        {"Relu", Function::Relu},       {"Sigmoid", Function::Sigmoid}, {"HardSwish", Function::HardSwish},
        {"Tanh", Function::Tanh},       {"Exp", Function::Exp},         {"Log", Function::Log},
        {"Sqrt", Function::Sqrt},       {"Abs", Function::Abs},         {"Neg", Function::Neg},
        {"Erf", Function::Erf},         {"Reciprocal", Function::Reciprocal},
    };
    if (const auto it = plain.find(op); it != plain.end())
        return FunctionSpec{it->second};
    if (op == "LeakyRelu")
        return FunctionSpec{Function::LeakyRelu, a.attrFloat("alpha", 0.01f)};
    if (op == "Elu")
        return FunctionSpec{Function::Elu, a.attrFloat("alpha", 1.f)};
    if (op == "HardSigmoid")
        return FunctionSpec{Function::HardSigmoid, a.attrFloat("alpha", 0.2f), a.attrFloat("beta", 0.5f)};
    if (op == "Gelu")
        return FunctionSpec{a.attrString("approximate", "none") == "tanh" ? Function::GeluTanh : Function::Gelu};
    return std::nullopt;
}

std::unique_ptr<CudaKernel> makeFunctionKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    const std::string &op = b.node.opType;
    FunctionSpec f;
    if (const auto unary = unaryFunction(op, b.attributes)) {
        f = *unary;
    } else if (op == "Clip") {
        f.kind = Function::Clip;
        if (!clipBound(b, 1, "min", std::numeric_limits<float>::lowest(), f.p0) ||
            !clipBound(b, 2, "max", std::numeric_limits<float>::max(), f.p1)) {
            whyNot = "Clip's bounds are not constants";
            return nullptr;
        }
        f.p0 = std::min(f.p0, f.p1); // min > max: every value becomes max, as ONNX says
    } else {
        whyNot = "no CUDA function for " + op;
        return nullptr;
    }
    return std::make_unique<FunctionKernel>(f, setup.storage());
}

std::unique_ptr<CudaKernel> makeBinaryKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    if (!allFloat32(b, whyNot))
        return nullptr;
    static const std::map<std::string, BinaryOp> ops{{"Add", BinaryOp::Add}, {"Sub", BinaryOp::Sub}, {"Mul", BinaryOp::Mul},
                                                     {"Div", BinaryOp::Div}, {"Max", BinaryOp::Max}, {"Min", BinaryOp::Min},
                                                     {"Pow", BinaryOp::Pow}};
    const auto op = ops.find(b.node.opType);
    if (op == ops.end() || b.inputs.size() != 2 || !b.input(0) || !b.input(1) || b.outputs.size() != 1) {
        whyNot = "not a two-operand " + b.node.opType;
        return nullptr;
    }
    const auto plan = planBroadcast(b.outputs[0].shape, b.inputs[0].shape, b.inputs[1].shape);
    if (!plan) {
        whyNot = "the operands' broadcast needs more than " + std::to_string(kMaxRank) + " dims";
        return nullptr;
    }
    return std::make_unique<BinaryKernel>(op->second, *plan, setup.storage());
}

} // namespace portolan::runtime::cuda
