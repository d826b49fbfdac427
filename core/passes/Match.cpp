// Pattern-matching helpers over the IR (read-only).
#include "passes/Match.h"

#include "runtime/TensorProtoIO.h"
#include "runtime/TensorStats.h"

#include <algorithm>

namespace portolan::passes {

using runtime::Tensor;

bool isOp(const ir::Node &node, std::string_view opType)
{
    return node.alive && node.opType == opType && (node.domain.empty() || node.domain == "ai.onnx");
}

const ir::Node *producerOf(const ir::Model &model, ir::ValueId value, std::string_view opType)
{
    if (!value.valid())
        return nullptr;
    const ir::NodeId p = model.value(value).producer;
    if (!p.valid())
        return nullptr;
    const ir::Node &node = model.node(p);
    if (!node.alive)
        return nullptr;
    if (!opType.empty() && !isOp(node, opType))
        return nullptr;
    return &node;
}

bool isGraphOutput(const ir::Model &model, ir::ValueId value)
{
    for (std::size_t g = 0; g < model.graphCount(); ++g) {
        const auto &outputs = model.graph(ir::GraphId(static_cast<std::uint32_t>(g))).outputs;
        if (std::find(outputs.begin(), outputs.end(), value) != outputs.end())
            return true;
    }
    return false;
}

bool isGraphInput(const ir::Model &model, ir::ValueId value)
{
    const auto &inputs = model.graph(model.value(value).graph).inputs;
    return std::find(inputs.begin(), inputs.end(), value) != inputs.end();
}

bool hasSingleUse(const ir::Model &model, ir::ValueId value)
{
    return value.valid() && model.value(value).uses.size() == 1 && !isGraphOutput(model, value);
}

std::vector<ir::NodeId> consumersOf(const ir::Model &model, ir::ValueId value)
{
    std::vector<ir::NodeId> out;
    for (const ir::Use &use : model.value(value).uses)
        if (std::find(out.begin(), out.end(), use.node) == out.end())
            out.push_back(use.node);
    return out;
}

static std::optional<Tensor> constantAttribute(const ir::Node &node)
{
    for (const ir::Attribute &a : node.attributes) {
        const onnx::AttributeProto &p = a.proto;
        if (p.name() == "value") {
            auto t = a.externalTensor ? runtime::tensorFromInitializer(a.externalTensor) : runtime::tensorFromProto(p.t());
            return t ? std::optional<Tensor>(std::move(*t)) : std::nullopt;
        }
        const auto n = static_cast<std::int64_t>(p.floats_size() + p.ints_size());
        if (p.name() == "value_float")
            return Tensor::fromVector<float>(onnx::TensorProto::FLOAT, {}, {p.f()});
        if (p.name() == "value_int")
            return Tensor::fromVector<std::int64_t>(onnx::TensorProto::INT64, {}, {p.i()});
        if (p.name() == "value_floats")
            return Tensor::fromVector<float>(onnx::TensorProto::FLOAT, {n}, {p.floats().begin(), p.floats().end()});
        if (p.name() == "value_ints")
            return Tensor::fromVector<std::int64_t>(onnx::TensorProto::INT64, {n}, {p.ints().begin(), p.ints().end()});
    }
    return std::nullopt;
}

std::optional<Tensor> constantValue(const ir::Model &model, ir::ValueId value)
{
    if (!value.valid())
        return std::nullopt;
    const ir::Value &v = model.value(value);
    if (v.isInitializer()) {
        if (isGraphInput(model, value)) // an initializer that is also an input can be overridden
            return std::nullopt;
        auto t = runtime::tensorFromInitializer(v.initializer);
        return t ? std::optional<Tensor>(std::move(*t)) : std::nullopt;
    }
    if (const ir::Node *p = producerOf(model, value, "Constant"))
        return constantAttribute(*p);
    return std::nullopt;
}

std::optional<double> scalarConstant(const ir::Model &model, ir::ValueId value)
{
    const auto t = constantValue(model, value);
    if (!t || t->size() != 1)
        return std::nullopt;
    if (t->dataType() == onnx::TensorProto::STRING)
        return std::nullopt;
    return runtime::elementAsDouble(*t, 0); // any numeric or bool type: a bool If condition, an int32 trip count
}

static const onnx::AttributeProto *findAttribute(const ir::Node &node, const std::string &name)
{
    const ir::Attribute *a = node.attribute(name);
    return a ? &a->proto : nullptr;
}

std::int64_t attrInt(const ir::Node &node, const std::string &name, std::int64_t fallback)
{
    const auto *a = findAttribute(node, name);
    return a ? a->i() : fallback;
}

float attrFloat(const ir::Node &node, const std::string &name, float fallback)
{
    const auto *a = findAttribute(node, name);
    return a ? a->f() : fallback;
}

std::string attrString(const ir::Node &node, const std::string &name, const std::string &fallback)
{
    const auto *a = findAttribute(node, name);
    return a ? a->s() : fallback;
}

std::vector<std::int64_t> attrInts(const ir::Node &node, const std::string &name)
{
    const auto *a = findAttribute(node, name);
    return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : std::vector<std::int64_t>{};
}

std::vector<float> attrFloats(const ir::Node &node, const std::string &name)
{
    const auto *a = findAttribute(node, name);
    return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float>{};
}

onnx::AttributeProto makeAttribute(const std::string &name, std::int64_t value)
{
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(value);
    return a;
}

onnx::AttributeProto makeAttribute(const std::string &name, float value)
{
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::FLOAT);
    a.set_f(value);
    return a;
}

onnx::AttributeProto makeAttribute(const std::string &name, const std::string &value)
{
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::STRING);
    a.set_s(value);
    return a;
}

onnx::AttributeProto makeAttribute(const std::string &name, const std::vector<std::int64_t> &values)
{
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::INTS);
    for (const auto v : values)
        a.add_ints(v);
    return a;
}

onnx::AttributeProto makeAttribute(const std::string &name, const std::vector<float> &values)
{
    onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(onnx::AttributeProto::FLOATS);
    for (const auto v : values)
        a.add_floats(v);
    return a;
}

int standardOpset(const ir::Model &model)
{
    return model.opsetVersion("").value_or(0);
}

void importDomain(ir::Model &model, const std::string &domain, int version)
{
    if (model.opsetVersion(domain))
        return;
    auto *opset = model.header.add_opset_import();
    opset->set_domain(domain);
    opset->set_version(version);
}

std::optional<std::vector<std::int64_t>> staticShape(const ir::Model &model, ir::ValueId value)
{
    if (!value.valid())
        return std::nullopt;
    const ir::Value &v = model.value(value);
    if (v.isInitializer()) {
        const auto &dims = v.initializer->proto.dims();
        return std::vector<std::int64_t>(dims.begin(), dims.end());
    }
    return v.shape().staticDims();
}

int elementTypeOf(const ir::Model &model, ir::ValueId value)
{
    if (!value.valid())
        return 0;
    const ir::Value &v = model.value(value);
    if (v.isInitializer())
        return v.initializer->proto.data_type();
    return v.elementType();
}

std::vector<ir::GraphId> liveGraphs(const ir::Model &model)
{
    std::vector<ir::GraphId> out;
    for (std::size_t g = 0; g < model.graphCount(); ++g) {
        const ir::GraphId id(static_cast<std::uint32_t>(g));
        bool alive = true;
        for (ir::GraphId cur = id; cur.valid() && alive; cur = model.graph(cur).parent)
            alive = !model.graph(cur).ownerNode.valid() || model.node(model.graph(cur).ownerNode).alive;
        if (alive)
            out.push_back(id);
    }
    return out;
}

std::vector<ir::NodeId> liveNodes(const ir::Model &model, ir::GraphId graph)
{
    std::vector<ir::NodeId> out;
    for (const ir::NodeId n : model.graph(graph).nodes)
        if (model.node(n).alive)
            out.push_back(n);
    return out;
}

} // namespace portolan::passes
