// KernelContext: attribute access, bounded allocation, and errors that say where.
#include "runtime/KernelContext.h"

#include <cstdio>

#include "ir/Type.h"

#include <limits>

namespace portolan::runtime {

KernelContext::KernelContext(const ir::Model &model, const ir::Node &node, int opset,
                             std::vector<const RuntimeValue *> inputs, MemoryBudget &budget, SubgraphRunner &subgraphs)
    : m_model(model), m_node(node), m_opset(opset), m_inputs(std::move(inputs)), m_outputs(node.outputs.size()),
      m_budget(budget), m_attributeRead(node.attributes.size(), false), m_subgraphs(subgraphs)
{
}

const ir::Attribute *KernelContext::attribute(const char *name) const
{
    for (std::size_t i = 0; i < m_node.attributes.size(); ++i)
        if (m_node.attributes[i].name() == name) {
            m_attributeRead[i] = true;
            return &m_node.attributes[i];
        }
    return nullptr;
}

std::vector<const ir::Attribute *> KernelContext::unreadAttributes() const
{
    std::vector<const ir::Attribute *> unread;
    for (std::size_t i = 0; i < m_node.attributes.size(); ++i)
        if (!m_attributeRead[i])
            unread.push_back(&m_node.attributes[i]);
    return unread;
}

bool KernelContext::hasInput(std::size_t i) const
{
    return i < m_inputs.size() && m_inputs[i] && m_inputs[i]->isTensor();
}

const Tensor &KernelContext::input(std::size_t i) const
{
    static const Tensor undefined;
    return hasInput(i) ? m_inputs[i]->tensor : undefined;
}

support::Status KernelContext::requireInputs(std::size_t required) const
{
    for (std::size_t i = 0; i < required; ++i)
        if (!hasInput(i))
            return error("input " + std::to_string(i) + (i < m_inputs.size() && m_inputs[i] ? " is not a tensor" : " is missing"));
    return support::Status::ok();
}

std::int64_t KernelContext::attrInt(const char *name, std::int64_t fallback) const
{
    const ir::Attribute *a = attribute(name);
    return a ? a->proto.i() : fallback;
}

float KernelContext::attrFloat(const char *name, float fallback) const
{
    const ir::Attribute *a = attribute(name);
    return a ? a->proto.f() : fallback;
}

std::string KernelContext::attrString(const char *name, const std::string &fallback) const
{
    const ir::Attribute *a = attribute(name);
    return a ? a->proto.s() : fallback;
}

std::vector<std::int64_t> KernelContext::attrInts(const char *name) const
{
    const ir::Attribute *a = attribute(name);
    return a ? std::vector<std::int64_t>(a->proto.ints().begin(), a->proto.ints().end()) : std::vector<std::int64_t>{};
}

std::vector<float> KernelContext::attrFloats(const char *name) const
{
    const ir::Attribute *a = attribute(name);
    return a ? std::vector<float>(a->proto.floats().begin(), a->proto.floats().end()) : std::vector<float>{};
}

std::vector<std::string> KernelContext::attrStrings(const char *name) const
{
    const ir::Attribute *a = attribute(name);
    return a ? std::vector<std::string>(a->proto.strings().begin(), a->proto.strings().end()) : std::vector<std::string>{};
}

const onnx::TensorProto *KernelContext::attrTensor(const char *name) const
{
    const ir::Attribute *a = attribute(name);
    return a && a->proto.has_t() ? &a->proto.t() : nullptr;
}

ir::GraphId KernelContext::attrGraph(const char *name) const
{
    const ir::Attribute *a = attribute(name);
    return a && !a->subgraphs.empty() ? a->subgraphs.front() : ir::GraphId();
}

/// A byte count for a message: exact below 2^63, else in scientific notation (a size bomb's count
/// overflows every integer type, and converting it would be undefined behaviour).
static std::string byteCount(double bytes)
{
    if (bytes < 9.2e18)
        return std::to_string(static_cast<std::int64_t>(bytes));
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", bytes);
    return text;
}

support::Status KernelContext::reserve(int dataType, const Shape &shape)
{
    auto bytes = bytesWithinBudget(dataType, shape);
    if (!bytes)
        return bytes.error();
    m_allocatedHere += *bytes;
    return support::Status::ok();
}

support::Expected<std::size_t> KernelContext::bytesWithinBudget(int dataType, const Shape &shape) const
{
    std::int64_t count = 1;
    for (const auto d : shape) {
        if (d < 0)
            return error("would create a tensor with a negative dim " + shapeString(shape));
        if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / d)
            return error("would create a tensor whose element count overflows: " + shapeString(shape));
        count *= d;
    }
    const std::size_t element = dataType == onnx::TensorProto::STRING ? sizeof(std::string) : ir::dataTypeSize(dataType);
    const double bytes = static_cast<double>(count) * static_cast<double>(element);
    // everything this kernel allocated so far counts too: several scratch buffers must fit together
    if (bytes + static_cast<double>(m_budget.live + m_allocatedHere) > static_cast<double>(m_budget.cap))
        return error("would allocate " + byteCount(bytes) + " bytes for " +
                     ir::dataTypeName(dataType) + shapeString(shape) + ", over the memory cap of " +
                     std::to_string(m_budget.cap) + " bytes (" + std::to_string(m_budget.live) +
                     " in use; raise it with --max-memory)");
    return static_cast<std::size_t>(bytes);
}

support::Expected<Tensor> KernelContext::allocate(int dataType, const Shape &shape)
{
    if (auto st = reserve(dataType, shape); !st)
        return st.error();
    return Tensor::zeros(dataType, shape);
}

support::Expected<Tensor> KernelContext::allocateUninitialized(int dataType, const Shape &shape)
{
    if (auto st = reserve(dataType, shape); !st)
        return st.error();
    return Tensor::uninitialized(dataType, shape);
}

void KernelContext::setOutput(std::size_t i, Tensor tensor)
{
    if (i < m_outputs.size())
        m_outputs[i] = RuntimeValue::ofTensor(std::move(tensor));
}

void KernelContext::setOutputValue(std::size_t i, RuntimeValue value)
{
    if (i < m_outputs.size())
        m_outputs[i] = std::move(value);
}

support::Error KernelContext::error(const std::string &message) const
{
    std::string inputs;
    for (std::size_t i = 0; i < m_inputs.size(); ++i) {
        inputs += i ? ", " : "";
        const ir::ValueId id = m_node.inputs[i];
        inputs += id.valid() ? m_model.value(id).name : std::string("(omitted)");
        if (m_inputs[i])
            inputs += " " + m_inputs[i]->describe();
    }
    auto e = support::makeError("kernel", message + (inputs.empty() ? "" : " (inputs: " + inputs + ")"),
                                m_model.sourcePath, m_node.name.empty() ? "(" + m_node.opType + ")" : m_node.name);
    e.primary.message = m_node.opType + ": " + e.primary.message;
    return e;
}

} // namespace portolan::runtime
