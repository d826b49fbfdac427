// Constant evaluation: deterministic nodes with constant inputs run once on the reference kernels,
// and their results replace them (see ConstantEvaluation.h).
#include "passes/ConstantEvaluation.h"

#include "ir/Topology.h"
#include "ir/Type.h"
#include "passes/Match.h"
#include "runtime/TensorProtoIO.h"
#include "runtime/reference/AttributeGuard.h"
#include "runtime/reference/KernelRegistry.h"

#include <algorithm>
#include <unordered_set>

namespace portolan::passes {

using runtime::Tensor;

bool isNondeterministic(const ir::Node &node)
{
    return node.drawsRandomNumbers() || (node.opType == "Dropout" && node.domain.empty());
}

bool hasSubgraphs(const ir::Node &node)
{
    return std::any_of(node.attributes.begin(), node.attributes.end(),
                       [](const ir::Attribute &a) { return !a.subgraphs.empty(); });
}

Tensor int64Tensor(const std::vector<std::int64_t> &values)
{
    return Tensor::fromVector<std::int64_t>(onnx::TensorProto::INT64, {static_cast<std::int64_t>(values.size())}, values);
}

std::optional<std::vector<std::int64_t>> integerValues(const Tensor &tensor)
{
    if (tensor.dataType() == onnx::TensorProto::INT64)
        return std::vector<std::int64_t>(tensor.data<std::int64_t>(), tensor.data<std::int64_t>() + tensor.size());
    if (tensor.dataType() == onnx::TensorProto::INT32)
        return std::vector<std::int64_t>(tensor.data<std::int32_t>(), tensor.data<std::int32_t>() + tensor.size());
    return std::nullopt;
}

std::optional<Tensor> staticShapeValue(const ir::Model &model, const ir::Node &node)
{
    if ((!isOp(node, "Shape") && !isOp(node, "Size")) || node.inputs.empty())
        return std::nullopt;
    const auto dims = staticShape(model, node.inputs[0]);
    if (!dims)
        return std::nullopt;
    if (isOp(node, "Size")) {
        const auto count = ir::elementCount(*dims);
        if (!count)
            return std::nullopt;
        return Tensor::fromVector<std::int64_t>(onnx::TensorProto::INT64, {}, {*count});
    }
    // Shape-15's start/end: negative counts from the back, then clamped to [0, rank].
    const auto rank = static_cast<std::int64_t>(dims->size());
    auto clampAxis = [&](std::int64_t axis) { return std::clamp(axis < 0 ? axis + rank : axis, std::int64_t(0), rank); };
    const std::int64_t start = clampAxis(attrInt(node, "start", 0));
    const std::int64_t end = clampAxis(attrInt(node, "end", rank));
    std::vector<std::int64_t> slice;
    for (std::int64_t i = start; i < end; ++i)
        slice.push_back((*dims)[static_cast<std::size_t>(i)]);
    return int64Tensor(slice);
}

support::Expected<std::vector<Tensor>> evaluateNode(const ir::Model &model, const ir::Node &node,
                                                    const std::vector<std::optional<Tensor>> &inputs,
                                                    std::size_t memoryCap)
{
    const int opset = model.opsetVersion(node.domain).value_or(1);
    const runtime::KernelFunction kernel = runtime::findReferenceKernel(node.domain, node.opType, opset);
    if (!kernel)
        return support::makeError("no-kernel", "no reference kernel for " + node.opType + " at opset " + std::to_string(opset));
    std::vector<runtime::RuntimeValue> storage(inputs.size());
    std::vector<const runtime::RuntimeValue *> pointers(inputs.size(), nullptr);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i]) {
            storage[i] = runtime::RuntimeValue::ofTensor(*inputs[i]);
            pointers[i] = &storage[i];
        }
    runtime::MemoryBudget budget;
    budget.cap = memoryCap;
    runtime::NoSubgraphs subgraphs("constant evaluation runs no subgraphs");
    runtime::KernelContext context(model, node, opset, std::move(pointers), budget, subgraphs);
    if (auto status = kernel(context); !status)
        return status.error();
    if (auto status = runtime::checkAttributesHonoured(context, "Portolan's reference kernel"); !status)
        return status.error();
    std::vector<Tensor> outputs(node.outputs.size());
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        if (!node.outputs[k].valid())
            continue;
        const runtime::RuntimeValue &v = context.outputs()[k];
        if (!v.isTensor() || v.isOptional || !v.tensor.defined())
            return support::makeError("not-a-tensor", "output " + std::to_string(k) + " is " + v.describe() + ", not a tensor");
        outputs[k] = v.tensor;
    }
    return outputs;
}

ir::ValueId replaceWithConstant(PassContext &cx, ir::ValueId value, const Tensor &tensor)
{
    ir::Model &model = cx.model;
    const ir::GraphId graph = model.value(value).graph;
    const std::string name = model.value(value).name;
    ir::ValueId constant;
    if (isGraphOutput(model, value)) {
        onnx::TypeProto type;
        auto *tensorType = type.mutable_tensor_type();
        tensorType->set_elem_type(tensor.dataType());
        auto *shape = tensorType->mutable_shape();
        for (const std::int64_t d : tensor.shape())
            shape->add_dim()->set_dim_value(d);
        constant = cx.rewriter.createValue(graph, name, &type);
        onnx::AttributeProto attribute;
        attribute.set_name("value");
        attribute.set_type(onnx::AttributeProto::TENSOR);
        *attribute.mutable_t() = runtime::tensorToProto(tensor, "");
        const ir::NodeId producer = model.value(value).producer;
        cx.rewriter.createNode(graph, "Constant", "", {}, {constant}, {std::move(attribute)}, name + "_constant",
                               producer);
    } else {
        constant = cx.rewriter.createInitializer(graph, name, tensor);
    }
    cx.rewriter.replaceAllUsesWith(value, constant);
    return constant;
}

void eraseUnreadConstants(PassContext &cx, const std::vector<ir::ValueId> &values)
{
    ir::Model &model = cx.model;
    for (const ir::ValueId v : values) {
        if (!v.valid() || !model.value(v).uses.empty() || isGraphOutput(model, v))
            continue;
        if (model.value(v).isInitializer() && !isGraphInput(model, v))
            cx.rewriter.eraseInitializer(v);
        else if (const ir::Node *p = producerOf(model, v, "Constant"))
            cx.rewriter.eraseNode(p->id);
    }
}

namespace {

enum class FoldOutcome { Declined, Folded, BudgetSpent };

struct Folder {
    PassContext &cx;
    const FoldSettings &settings;
    std::unordered_set<ir::NodeId> reported;
    std::unordered_set<ir::ValueId> shapeDerived; // results of shape computations (shapeComputationsOnly)

    FoldOutcome decline(const ir::Node &node, const std::string &reason)
    {
        if (reported.insert(node.id).second)
            cx.rewriter.notifyMatchFailure(node.id, settings.pattern, reason);
        return FoldOutcome::Declined;
    }

    std::string bytesProblem(const ir::Value &value, std::size_t bytes) const
    {
        if (bytes <= settings.maxBytes)
            return {};
        return "output '" + value.name + "' would take " + std::to_string(bytes) + " bytes, more than max-bytes (" +
               std::to_string(settings.maxBytes) + ")";
    }

    FoldOutcome tryFold(const ir::Node &node);
};

FoldOutcome Folder::tryFold(const ir::Node &node)
{
    ir::Model &model = cx.model;
    if (isOp(node, "Constant") || node.outputs.empty())
        return FoldOutcome::Declined;
    bool read = false;
    for (const ir::ValueId out : node.outputs)
        read = read || (out.valid() && (!model.value(out).uses.empty() || isGraphOutput(model, out)));
    if (!read)
        return FoldOutcome::Declined; // dead: eliminate-dead's business
    if (isOp(node, "DequantizeLinear") && !node.inputs.empty() && node.inputs[0].valid()) {
        const int type = elementTypeOf(model, node.inputs[0]);
        if (type == onnx::TensorProto::INT8 || type == onnx::TensorProto::UINT8 || type == onnx::TensorProto::INT32)
            return decline(node, "a quantized weight stays quantized: its DequantizeLinear is the QDQ form a target reads");
    }
    const bool shapeOp = isOp(node, "Shape") || isOp(node, "Size");
    std::vector<Tensor> results;
    std::vector<ir::ValueId> inputs = node.inputs;
    if (auto shape = staticShapeValue(model, node)) {
        results = {*shape};
    } else {
        if (shapeOp && !node.inputs.empty() && node.inputs[0].valid() && !constantValue(model, node.inputs[0]))
            return decline(node, "the shape of '" + model.value(node.inputs[0]).name + "' (" +
                                     model.value(node.inputs[0]).shape().str() + ") is not static");
        if (node.inputs.empty())
            return FoldOutcome::Declined; // generators (Random*) have no inputs to be constant
        const bool derived = std::any_of(inputs.begin(), inputs.end(), [&](ir::ValueId v) { return shapeDerived.contains(v); });
        if (settings.shapeComputationsOnly && !derived)
            return FoldOutcome::Declined;
        std::vector<std::optional<Tensor>> values;
        std::string overridable; // an initializer that is also a graph input
        bool computed = false;   // an input computed at run time: no near-miss worth reporting
        for (const ir::ValueId in : inputs) {
            if (!in.valid()) {
                values.emplace_back();
                continue;
            }
            values.push_back(constantValue(model, in));
            if (values.back())
                continue;
            if (model.value(in).isInitializer() && isGraphInput(model, in))
                overridable = model.value(in).name;
            else
                computed = true;
        }
        if (computed)
            return FoldOutcome::Declined;
        if (!overridable.empty())
            return decline(node, "input '" + overridable +
                                     "' is a graph input with an initializer (it may be overridden at run time)");
        if (isNondeterministic(node))
            return decline(node, node.opType + " is not deterministic");
        if (hasSubgraphs(node))
            return decline(node, node.opType + " has subgraphs (control flow is not folded)");
        for (const ir::ValueId out : node.outputs) {
            const auto dims = out.valid() ? staticShape(model, out) : std::nullopt;
            const auto count = dims ? ir::elementCount(*dims) : std::nullopt;
            const std::size_t elementSize = ir::dataTypeSize(elementTypeOf(model, out));
            if (count && elementSize > 0)
                if (auto problem = bytesProblem(model.value(out), static_cast<std::size_t>(*count) * elementSize);
                    !problem.empty())
                    return decline(node, problem);
        }
        auto evaluated = evaluateNode(model, node, values, std::max<std::size_t>(settings.maxBytes, 1 << 20) * 4);
        if (!evaluated)
            return decline(node, "evaluation failed: " + evaluated.error().primary.message);
        results = std::move(*evaluated);
    }
    std::size_t bytes = 0;
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        if (!node.outputs[k].valid())
            continue;
        const int type = results[k].dataType();
        if (settings.shapeComputationsOnly && type != onnx::TensorProto::INT64 && type != onnx::TensorProto::INT32 &&
            type != onnx::TensorProto::BOOL)
            return FoldOutcome::Declined; // data made from a shape (ConstantOfShape…) is not shape plumbing
        if (auto problem = bytesProblem(model.value(node.outputs[k]), results[k].byteSize()); !problem.empty())
            return decline(node, problem);
        bytes += results[k].byteSize();
    }
    if (!cx.rewriter.begin(settings.pattern))
        return FoldOutcome::BudgetSpent;
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        const ir::ValueId out = node.outputs[k];
        if (!out.valid() || (model.value(out).uses.empty() && !isGraphOutput(model, out)))
            continue;
        shapeDerived.insert(replaceWithConstant(cx, out, results[k]));
    }
    const std::string op = node.opType;
    const std::string shape = runtime::shapeString(results.front().defined() ? results.front().shape() : runtime::Shape{});
    cx.rewriter.eraseNode(node.id);
    eraseUnreadConstants(cx, inputs);
    cx.rewriter.count("folded-nodes");
    cx.rewriter.count("folded-bytes", static_cast<std::int64_t>(bytes));
    cx.rewriter.commit(op + " → constant " + shape);
    return FoldOutcome::Folded;
}

} // namespace

std::size_t foldConstants(PassContext &cx, const FoldSettings &settings)
{
    Folder folder{cx, settings, {}, {}};
    std::size_t folded = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (const ir::GraphId g : liveGraphs(cx.model)) {
            auto order = ir::topologicalOrder(cx.model, g);
            const std::vector<ir::NodeId> nodes = order ? std::move(*order) : liveNodes(cx.model, g);
            for (const ir::NodeId n : nodes) {
                if (!cx.model.node(n).alive)
                    continue;
                switch (folder.tryFold(cx.model.node(n))) {
                case FoldOutcome::Folded: ++folded; progress = true; break;
                case FoldOutcome::BudgetSpent: return folded;
                case FoldOutcome::Declined: break;
                }
            }
        }
    }
    return folded;
}

} // namespace portolan::passes
