// The model's constants, converted once (see ModelConstants.h).
#include "runtime/reference/ModelConstants.h"

#include "runtime/TensorProtoIO.h"

#include "ir/Topology.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace portolan::runtime {

namespace {

/// Runs, in order, each main-graph node whose inputs are all known constants (see ModelConstants.h).
void foldConstantInputNodes(const ir::Model &model, Interpreter &reference, ModelConstants &constants)
{
    const ir::Graph &main = model.graph(model.mainGraph());
    auto order = ir::topologicalOrder(model, model.mainGraph());
    if (!order)
        return; // a cycle: the executors say so when they compile
    // what folding may hold: the weights dequantized to fp32 and then some; past it, nodes run as usual
    const std::size_t cap = 4 * constants.weightBytes + (std::size_t(1) << 30);
    std::size_t held = 0;
    std::unordered_set<std::uint32_t> fed; // initializers a feed may replace
    for (const ir::ValueId in : main.inputs)
        fed.insert(in.index);
    for (const ir::NodeId n : *order) {
        const ir::Node &node = model.node(n);
        if (node.isConstant() || node.inputs.empty() || node.drawsRandomNumbers())
            continue;
        const bool subgraphs = std::any_of(node.attributes.begin(), node.attributes.end(), [](const ir::Attribute &a) {
            return !a.subgraphs.empty();
        });
        if (subgraphs)
            continue;
        std::vector<RuntimeValue> values(node.inputs.size());
        std::vector<const RuntimeValue *> inputs;
        bool known = true;
        for (std::size_t k = 0; k < node.inputs.size() && known; ++k) {
            const ir::ValueId v = node.inputs[k];
            if (!v.valid()) {
                inputs.push_back(nullptr);
                continue;
            }
            const auto it = constants.tensors.find(v.index);
            known = it != constants.tensors.end() && !fed.contains(v.index);
            if (known) {
                values[k] = RuntimeValue::ofTensor(it->second);
                inputs.push_back(&values[k]);
            }
        }
        if (!known)
            continue;
        if (held >= cap)
            break;
        RunOptions options;
        options.maxMemoryBytes = cap - held;
        auto produced = reference.runNode(node, std::move(inputs), {}, options);
        if (!produced || produced->size() < node.outputs.size() ||
            std::any_of(produced->begin(), produced->end(), [](const RuntimeValue &r) { return !r.isTensor(); }))
            continue; // it runs as usual, and says at run time what is wrong
        std::size_t bytes = 0;
        for (const RuntimeValue &r : *produced)
            bytes += r.tensor.byteSize();
        if (bytes > cap - held)
            continue;
        held += bytes;
        constants.foldedBytes += bytes;
        for (std::size_t k = 0; k < node.outputs.size(); ++k)
            if (node.outputs[k].valid())
                constants.tensors.emplace(node.outputs[k].index, std::move((*produced)[k].tensor));
    }
}

} // namespace

ModelConstants collectConstants(const ir::Model &model, Interpreter &reference)
{
    ModelConstants constants;
    for (std::size_t i = 0; i < model.valueCapacity(); ++i) {
        const ir::Value &value = model.value(ir::ValueId(static_cast<std::uint32_t>(i)));
        if (value.graph != model.mainGraph() || !value.isInitializer())
            continue;
        if (auto tensor = tensorFromInitializer(value.initializer)) {
            constants.weightBytes += tensor->byteSize();
            constants.tensors.emplace(value.id.index, std::move(*tensor));
        }
    }
    for (const ir::NodeId n : model.graph(model.mainGraph()).nodes) {
        const ir::Node &node = model.node(n);
        if (!node.alive || !node.isConstant() || node.outputs.size() != 1)
            continue;
        auto value = reference.runNode(node, {}, {}, {});
        if (value && value->size() == 1 && (*value)[0].isTensor())
            constants.tensors.emplace(node.outputs[0].index, std::move((*value)[0].tensor));
    }
    foldConstantInputNodes(model, reference, constants);
    return constants;
}

bool outputsKnown(const ir::Node &node, const std::unordered_map<std::uint32_t, Tensor> &constants)
{
    bool any = false;
    for (const ir::ValueId out : node.outputs) {
        if (!out.valid())
            continue;
        if (!constants.contains(out.index))
            return false;
        any = true;
    }
    return any;
}

} // namespace portolan::runtime
