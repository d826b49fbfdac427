// Shared fusion helpers: use checks, shapes with an inference fallback, and chain replacement.
#include "passes/FusionSupport.h"
#include "passes/CanonicalForms.h"

#include "analysis/ShapeInference.h"
#include "passes/Match.h"
#include "runtime/Dispatch.h"

#include <algorithm>

namespace portolan::passes {

std::optional<std::string> singleUseProblem(const ir::Model &model, ir::ValueId value, const std::string &what)
{
    if (isGraphOutput(model, value))
        return what + " is a graph output";
    const std::size_t uses = model.value(value).uses.size();
    if (uses != 1)
        return what + " has " + std::to_string(uses) + " consumers";
    return std::nullopt;
}

std::optional<std::vector<ir::Dim>> ShapeOracle::dims(ir::ValueId value)
{
    if (!value.valid())
        return std::nullopt;
    const ir::Value &v = m_model.value(value);
    if (v.isInitializer()) {
        std::vector<ir::Dim> out;
        for (const auto d : v.initializer->proto.dims())
            out.push_back(ir::Dim{d});
        return out;
    }
    if (ir::Shape declared = v.shape(); declared.rankKnown())
        return declared.dims;
    const onnx::TypeProto *t = inferred(v);
    return t ? ir::tensorShape(*t).dims : std::nullopt;
}

const onnx::TypeProto *ShapeOracle::inferred(const ir::Value &value)
{
    if (!m_inferred) {
        m_inferred = true;
        m_types = analysis::inferShapes(m_model);
    }
    const auto &types = value.graph == m_model.mainGraph() ? m_types.types : m_types.subgraphTypes;
    const auto it = types.find(value.name);
    return it == types.end() ? nullptr : &it->second;
}

std::optional<onnx::TypeProto> ShapeOracle::type(ir::ValueId value)
{
    if (!value.valid())
        return std::nullopt;
    const ir::Value &v = m_model.value(value);
    if (v.info.has_type() && ir::tensorElementType(v.info.type()) != 0)
        return v.info.type();
    if (const onnx::TypeProto *t = inferred(v))
        return *t;
    return std::nullopt;
}

int ShapeOracle::elementType(ir::ValueId value)
{
    if (const int declared = elementTypeOf(m_model, value))
        return declared;
    const auto t = type(value);
    return t ? ir::tensorElementType(*t) : 0;
}

std::optional<std::size_t> ShapeOracle::rank(ir::ValueId value)
{
    const auto d = dims(value);
    return d ? std::optional<std::size_t>(d->size()) : std::nullopt;
}

std::optional<std::vector<std::int64_t>> ShapeOracle::staticDims(ir::ValueId value)
{
    const auto d = dims(value);
    if (!d)
        return std::nullopt;
    std::vector<std::int64_t> out;
    for (const ir::Dim &dim : *d) {
        if (!dim.isStatic())
            return std::nullopt;
        out.push_back(dim.extent());
    }
    return out;
}

std::vector<onnx::AttributeProto> copyAttributes(const ir::Node &node, const std::vector<std::string> &names)
{
    std::vector<onnx::AttributeProto> out;
    for (const std::string &name : names)
        if (const ir::Attribute *a = node.attribute(name))
            out.push_back(a->proto);
    return out;
}

std::string fusedNodeName(const ir::Node &firstReplaced, const std::string &opType)
{
    const std::string &name = firstReplaced.name;
    if (firstReplaced.opType == opType && !name.empty())
        return name;
    const std::size_t slash = name.rfind('/');
    return slash == std::string::npos ? opType : name.substr(0, slash + 1) + opType;
}

ir::NodeId replaceChain(PassContext &cx, const std::string &opType, const std::string &domain,
                        const std::vector<ir::ValueId> &inputs, std::vector<onnx::AttributeProto> attributes,
                        ir::ValueId result, const std::vector<ir::NodeId> &chain,
                        const std::vector<ir::ValueId> &maybeUnread)
{
    ir::Model &model = cx.model;
    const ir::Value &replaced = model.value(result);
    const ir::GraphId graph = replaced.graph;
    const onnx::TypeProto *type = replaced.info.has_type() ? &replaced.info.type() : nullptr;
    const onnx::TypeProto typeCopy = type ? *type : onnx::TypeProto();
    const ir::ValueId out = cx.rewriter.createValue(graph, replaced.name, type ? &typeCopy : nullptr);
    // written in canonical form, so -O2 run again has nothing to change
    std::erase_if(attributes, [&](const onnx::AttributeProto &a) { return holdsSchemaDefault(cx.model, opType, domain, a); });
    const ir::NodeId node = cx.rewriter.createNode(graph, opType, domain, inputs, {out}, std::move(attributes),
                                                   fusedNodeName(model.node(chain.front()), opType), chain.back());
    cx.rewriter.replaceAllUsesWith(result, out);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        cx.rewriter.eraseNode(*it);
    for (const ir::ValueId v : maybeUnread) {
        if (!v.valid())
            continue;
        const ir::Value &value = model.value(v);
        if (value.isInitializer() && value.uses.empty() && !isGraphOutput(model, v) &&
            !isGraphInput(model, v) &&
            std::find(model.graph(value.graph).initializers.begin(), model.graph(value.graph).initializers.end(), v) !=
                model.graph(value.graph).initializers.end())
            cx.rewriter.eraseInitializer(v);
    }
    return node;
}

runtime::Tensor asDouble(const runtime::Tensor &tensor)
{
    return runtime::kernels::convertTensor(tensor, onnx::TensorProto::DOUBLE);
}

runtime::Tensor fromDouble(const runtime::Tensor &tensor, int dataType)
{
    return runtime::kernels::convertTensor(tensor, dataType);
}

} // namespace portolan::passes
