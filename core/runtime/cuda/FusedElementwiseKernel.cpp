// ai.portolan FusedElementwise on the device: its body compiled into an ElementwiseProgram (one
// register per value) and run as one kernel (kernels/FusedElementwise.cu). The body may hold the
// unary functions, Add/Sub/Mul/Div/Max/Min/Pow, comparisons, Not/And/Or/Xor, Where, Clip with
// constant bounds, Identity and scalar constants. The fusion pass makes every value from outside
// the chain a node input, constants included (Clip's bounds, Pow's exponent): a node input that is
// a constant scalar becomes an instruction, of any numeric type; the others must be float tensors.
// Anything else, or a body too long for the program, runs on the CPU.
#include "runtime/TensorProtoIO.h"
#include "runtime/cuda/CudaKernel.h"
#include "runtime/cuda/DeviceKernels.h"

#include "ir/Topology.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <limits>
#include <map>
#include <unordered_map>

namespace portolan::runtime::cuda {

namespace {

/// The value of a one-element numeric tensor, as a float.
std::optional<float> scalarOf(const Tensor &t)
{
    if (t.size() != 1)
        return std::nullopt;
    switch (t.dataType()) {
    case onnx::TensorProto::FLOAT: return t.data<float>()[0];
    case onnx::TensorProto::DOUBLE: return static_cast<float>(t.data<double>()[0]);
    case onnx::TensorProto::INT64: return static_cast<float>(t.data<std::int64_t>()[0]);
    case onnx::TensorProto::INT32: return static_cast<float>(t.data<std::int32_t>()[0]);
    case onnx::TensorProto::BOOL: return t.data<bool>()[0] ? 1.f : 0.f;
    default: return std::nullopt;
    }
}

class FusedElementwiseKernel final : public CudaKernel {
public:
    FusedElementwiseKernel(const ElementwiseProgram &program, Storage storage, std::vector<bool> constantInputs)
        : m_program(program), m_storage(storage), m_constantInputs(std::move(constantInputs))
    {
    }
    bool readsInput(std::size_t k) const override { return k < m_constantInputs.size() && !m_constantInputs[k]; }
    void enqueue(std::span<const DeviceTensor> in, std::span<const DeviceTensor> out, const CudaContext &c) override
    {
        const void *inputs[ElementwiseProgram::kMaxInputs] = {};
        for (std::size_t k = 0; k < in.size() && k < ElementwiseProgram::kMaxInputs; ++k)
            inputs[k] = in[k].data;
        launchElementwiseProgram(m_storage, m_program, inputs, out[0].data, c.multiprocessors, c.stream);
    }
    std::string implementation() const override { return "cuda:fused-elementwise"; }

private:
    ElementwiseProgram m_program;
    Storage m_storage;
    std::vector<bool> m_constantInputs;
};

/// Builds the program of one body, value by value.
class BodyCompiler {
public:
    BodyCompiler(const ir::Model &model, ElementwiseProgram &program) : m_model(model), m_program(program) {}

    /// `constants`: per node input, its value when it is a constant scalar.
    bool compile(ir::GraphId body, const std::vector<std::optional<float>> &constants, std::string &whyNot)
    {
        const ir::Graph &graph = m_model.graph(body);
        m_program.inputs = static_cast<int>(graph.inputs.size());
        for (std::size_t k = 0; k < graph.inputs.size(); ++k)
            m_register[graph.inputs[k].index] = static_cast<int>(k);
        m_next = m_program.inputs;
        for (std::size_t k = 0; k < graph.inputs.size() && k < constants.size(); ++k)
            if (constants[k] && !constant(graph.inputs[k], *constants[k], whyNot))
                return false;
        for (const ir::ValueId v : graph.initializers) {
            // an initializer that is also a body input is only that input's default: the input counts
            if (std::find(graph.inputs.begin(), graph.inputs.end(), v) != graph.inputs.end())
                continue;
            if (!scalarConstant(v, whyNot))
                return false;
        }
        auto order = ir::topologicalOrder(m_model, body);
        if (!order) {
            whyNot = order.error().format();
            return false;
        }
        for (const ir::NodeId n : *order)
            if (!node(m_model.node(n), whyNot))
                return false;
        if (graph.outputs.size() != 1 || !m_register.contains(graph.outputs[0].index)) {
            whyNot = "the body does not have one output computed in it";
            return false;
        }
        m_program.result = m_register[graph.outputs[0].index];
        return true;
    }

private:
    bool scalarConstant(ir::ValueId v, std::string &whyNot)
    {
        const ir::Value &value = m_model.value(v);
        auto tensor = tensorFromInitializer(value.initializer);
        const std::optional<float> scalar = tensor ? scalarOf(*tensor) : std::nullopt;
        if (!scalar) {
            whyNot = "the body has a constant that is not a numeric scalar: " + value.name;
            return false;
        }
        return constant(v, *scalar, whyNot);
    }
    bool constant(ir::ValueId v, float x, std::string &whyNot)
    {
        ElementwiseProgram::Instruction i;
        i.op = ElementwiseProgram::Op::Constant;
        i.function.p0 = x;
        if (!emit(i, v, whyNot))
            return false;
        m_constants[v.index] = x;
        return true;
    }
    bool emit(ElementwiseProgram::Instruction i, ir::ValueId result, std::string &whyNot)
    {
        if (m_program.instructions >= ElementwiseProgram::kMaxInstructions || m_next >= ElementwiseProgram::kMaxRegisters) {
            whyNot = "the body is longer than a program holds";
            return false;
        }
        i.dst = static_cast<std::uint8_t>(m_next);
        m_register[result.index] = m_next++;
        m_program.code[m_program.instructions++] = i;
        return true;
    }
    /// The register of input `k` of `n`, or -1.
    int operand(const ir::Node &n, std::size_t k) const
    {
        if (k >= n.inputs.size() || !n.inputs[k].valid())
            return -1;
        const auto it = m_register.find(n.inputs[k].index);
        return it == m_register.end() ? -1 : it->second;
    }
    bool node(const ir::Node &n, std::string &whyNot)
    {
        using Op = ElementwiseProgram::Op;
        if (n.outputs.size() != 1) {
            whyNot = n.opType + " in the body has more than one output";
            return false;
        }
        const ir::ValueId out = n.outputs[0];
        if (n.opType == "Constant") {
            const ir::Attribute *value = nullptr;
            for (const ir::Attribute &a : n.attributes)
                if (a.name() == "value")
                    value = &a;
            if (!value || !value->proto.has_t()) {
                whyNot = "a Constant in the body has no tensor value";
                return false;
            }
            auto tensor = tensorFromProto(value->proto.t());
            const std::optional<float> scalar = tensor ? scalarOf(*tensor) : std::nullopt;
            if (!scalar) {
                whyNot = "a Constant in the body is not a numeric scalar";
                return false;
            }
            return constant(out, *scalar, whyNot);
        }
        if (n.opType == "Identity") {
            const int a = operand(n, 0);
            if (a < 0)
                return missing(n, whyNot);
            m_register[out.index] = a;
            return true;
        }
        MemoryBudget budget;
        NoSubgraphs noSubgraphs("no subgraphs in a fused body");
        const KernelContext attributes(m_model, n, m_model.opsetVersion(n.domain).value_or(1), {}, budget, noSubgraphs);
        ElementwiseProgram::Instruction i;
        i.a = static_cast<std::uint8_t>(std::max(operand(n, 0), 0));
        i.b = static_cast<std::uint8_t>(std::max(operand(n, 1), 0));
        i.c = static_cast<std::uint8_t>(std::max(operand(n, 2), 0));
        static const std::map<std::string, BinaryOp> binary{{"Add", BinaryOp::Add}, {"Sub", BinaryOp::Sub}, {"Mul", BinaryOp::Mul},
                                                            {"Div", BinaryOp::Div}, {"Max", BinaryOp::Max}, {"Min", BinaryOp::Min},
                                                            {"Pow", BinaryOp::Pow}};
        static const std::map<std::string, CompareOp> compare{{"Greater", CompareOp::Greater}, {"Less", CompareOp::Less},
                                                              {"Equal", CompareOp::Equal}, {"GreaterOrEqual", CompareOp::GreaterOrEqual},
                                                              {"LessOrEqual", CompareOp::LessOrEqual}};
        static const std::map<std::string, Op> logic{{"And", Op::And}, {"Or", Op::Or}, {"Xor", Op::Xor}};
        std::size_t arity = 1;
        if (const auto f = unaryFunction(n.opType, attributes)) {
            i.op = Op::Function;
            i.function = *f;
        } else if (n.opType == "Clip") {
            i.op = Op::Function;
            i.function = {Function::Clip, bound(n, 1, attributes, "min", std::numeric_limits<float>::lowest()),
                          bound(n, 2, attributes, "max", std::numeric_limits<float>::max())};
            if (std::isnan(i.function.p0) || std::isnan(i.function.p1)) {
                whyNot = "Clip's bounds in the body are not constants";
                return false;
            }
            i.function.p0 = std::min(i.function.p0, i.function.p1);
        } else if (const auto b = binary.find(n.opType); b != binary.end() && n.inputs.size() == 2) {
            i.op = Op::Binary;
            i.binary = b->second;
            arity = 2;
        } else if (const auto c = compare.find(n.opType); c != compare.end()) {
            i.op = Op::Compare;
            i.compare = c->second;
            arity = 2;
        } else if (const auto l = logic.find(n.opType); l != logic.end()) {
            i.op = l->second;
            arity = 2;
        } else if (n.opType == "Not") {
            i.op = Op::Not;
        } else if (n.opType == "Where") {
            i.op = Op::Where;
            arity = 3;
        } else {
            whyNot = n.opType + " in the body has no CUDA form";
            return false;
        }
        for (std::size_t k = 0; k < arity; ++k)
            if (operand(n, k) < 0)
                return missing(n, whyNot);
        return emit(i, out, whyNot);
    }
    /// Clip's bound `k`: a constant of the body, the attribute before opset 11, else the default;
    /// NaN when the input is given but not a constant.
    float bound(const ir::Node &n, std::size_t k, const KernelContext &attributes, const char *name, float fallback) const
    {
        if (m_model.opsetVersion(n.domain).value_or(1) < 11)
            return attributes.attrFloat(name, fallback);
        if (k >= n.inputs.size() || !n.inputs[k].valid())
            return fallback;
        const auto it = m_constants.find(n.inputs[k].index);
        return it == m_constants.end() ? std::numeric_limits<float>::quiet_NaN() : it->second;
    }
    static bool missing(const ir::Node &n, std::string &whyNot)
    {
        whyNot = n.opType + " in the body reads a value from outside it";
        return false;
    }

    const ir::Model &m_model;
    ElementwiseProgram &m_program;
    std::unordered_map<std::uint32_t, int> m_register;
    std::unordered_map<std::uint32_t, float> m_constants;
    int m_next = 0;
};

} // namespace

std::optional<FusedProgram> compileFusedElementwise(const NodeBinding &b, std::string &whyNot)
{
    if (b.outputs.size() != 1 || b.outputs[0].dataType != onnx::TensorProto::FLOAT) {
        whyNot = "the output is not a float32 tensor";
        return std::nullopt;
    }
    std::vector<std::optional<float>> constants;
    for (std::size_t k = 0; k < b.inputs.size(); ++k) {
        const BoundTensor &in = b.inputs[k];
        constants.push_back(in.constant.defined() ? scalarOf(in.constant) : std::nullopt);
        if (!constants.back() && in.dataType != onnx::TensorProto::FLOAT) {
            whyNot = "input " + std::to_string(k) + " is neither a float32 tensor nor a constant scalar";
            return std::nullopt;
        }
    }
    if (b.inputs.size() > static_cast<std::size_t>(ElementwiseProgram::kMaxInputs)) {
        whyNot = "more than " + std::to_string(ElementwiseProgram::kMaxInputs) + " inputs";
        return std::nullopt;
    }
    const ir::GraphId body = b.attributes.attrGraph("body");
    if (!body.valid() || b.model.graph(body).inputs.size() != b.inputs.size()) {
        whyNot = "the body does not take the node's inputs";
        return std::nullopt;
    }
    FusedProgram fused;
    if (!BodyCompiler(b.model, fused.program).compile(body, constants, whyNot))
        return std::nullopt;
    std::vector<std::vector<std::int64_t>> shapes;
    for (const BoundTensor &in : b.inputs)
        shapes.push_back(in.shape);
    const auto walk = planMultiBroadcast(b.outputs[0].shape, shapes);
    if (!walk) {
        whyNot = "the inputs do not broadcast to the output within " + std::to_string(kMaxRank) + " dims";
        return std::nullopt;
    }
    fused.program.walk = *walk;
    for (const auto &c : constants)
        fused.constantInputs.push_back(c.has_value());
    return fused;
}

std::unique_ptr<CudaKernel> makeFusedElementwiseKernel(const NodeBinding &b, DeviceSetup &setup, std::string &whyNot)
{
    auto fused = compileFusedElementwise(b, whyNot);
    if (!fused)
        return nullptr;
    return std::make_unique<FusedElementwiseKernel>(fused->program, setup.storage(), std::move(fused->constantInputs));
}

} // namespace portolan::runtime::cuda
