// Normalization matching helpers.
#include "passes/NormalizationMatch.h"

#include "passes/Match.h"

#include <algorithm>

namespace portolan::passes {

std::optional<std::int64_t> trailingMeanAxis(const ir::Model &model, const ir::Node &reduceMean, ShapeOracle &shapes,
                                             std::string *why)
{
    auto fail = [&](std::string reason) -> std::optional<std::int64_t> {
        *why = std::move(reason);
        return std::nullopt;
    };
    if (attrInt(reduceMean, "keepdims", 1) != 1)
        return fail("ReduceMean drops the reduced axes (keepdims=0)");
    std::vector<std::int64_t> axes = attrInts(reduceMean, "axes");
    if (reduceMean.inputs.size() > 1 && reduceMean.inputs[1].valid()) {
        const auto t = constantValue(model, reduceMean.inputs[1]);
        if (!t || t->dataType() != onnx::TensorProto::INT64)
            return fail("ReduceMean axes are not a constant");
        axes.assign(t->data<std::int64_t>(), t->data<std::int64_t>() + t->size());
    }
    if (axes.empty())
        return fail("ReduceMean reduces every axis");
    const auto rank = shapes.rank(reduceMean.inputs[0]);
    std::vector<std::int64_t> normalized = axes;
    if (rank) {
        for (std::int64_t &a : normalized)
            a = a < 0 ? a + static_cast<std::int64_t>(*rank) : a;
        std::sort(normalized.begin(), normalized.end());
        for (std::size_t i = 0; i < normalized.size(); ++i)
            if (normalized[i] != static_cast<std::int64_t>(*rank - normalized.size() + i))
                return fail("ReduceMean axes are not the trailing axes");
        return -static_cast<std::int64_t>(normalized.size());
    }
    // Without a known rank only negative axes can be checked: -k … -1.
    std::sort(normalized.begin(), normalized.end());
    for (std::size_t i = 0; i < normalized.size(); ++i)
        if (normalized[i] != -static_cast<std::int64_t>(normalized.size() - i))
            return fail("ReduceMean axes are not the trailing axes (and the input's rank is unknown)");
    return -static_cast<std::int64_t>(normalized.size());
}

// The other operand of a binary `node` whose one operand is `value`.
static ir::ValueId otherOperand(const ir::Node &node, ir::ValueId value)
{
    return node.inputs[0] == value ? node.inputs[1] : node.inputs[0];
}

AffineTail matchAffineTail(const ir::Model &model, ir::ValueId normalized, bool allowBias)
{
    AffineTail tail;
    tail.result = normalized;
    auto next = [&](ir::ValueId v, std::string_view op) -> const ir::Node * {
        if (!hasSingleUse(model, v))
            return nullptr;
        const ir::Node &user = model.node(model.value(v).uses[0].node);
        if (!isOp(user, op) || user.inputs.size() != 2 || !constantValue(model, otherOperand(user, v)))
            return nullptr;
        return &user;
    };
    if (const ir::Node *mul = next(tail.result, "Mul")) {
        tail.scale = otherOperand(*mul, tail.result);
        tail.nodes.push_back(mul->id);
        tail.result = mul->outputs[0];
    }
    if (allowBias)
        if (const ir::Node *add = next(tail.result, "Add")) {
            tail.bias = otherOperand(*add, tail.result);
            tail.nodes.push_back(add->id);
            tail.result = add->outputs[0];
        }
    return tail;
}

std::optional<runtime::Tensor> normalizedParameter(const ir::Model &model, ir::ValueId value, std::int64_t k)
{
    auto t = constantValue(model, value);
    if (!t)
        return std::nullopt;
    runtime::Shape dims = t->shape();
    while (dims.size() > static_cast<std::size_t>(k) && dims.front() == 1)
        dims.erase(dims.begin());
    if (dims.size() > static_cast<std::size_t>(k))
        return std::nullopt;
    return t->reshaped(dims);
}

std::optional<runtime::Tensor> unitScale(ShapeOracle &shapes, ir::ValueId x, std::int64_t k)
{
    const auto dims = shapes.staticDims(x);
    const int type = shapes.elementType(x);
    if (!dims || dims->size() < static_cast<std::size_t>(k) || type == 0)
        return std::nullopt;
    runtime::Tensor ones = runtime::Tensor::zeros(onnx::TensorProto::DOUBLE, runtime::Shape(dims->end() - k, dims->end()));
    std::fill_n(ones.mutableData<double>(), ones.size(), 1.0);
    return fromDouble(ones, type);
}

} // namespace portolan::passes
