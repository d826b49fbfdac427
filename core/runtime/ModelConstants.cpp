// The model's constants, converted once (see ModelConstants.h).
#include "runtime/ModelConstants.h"

#include "runtime/TensorProtoIO.h"

namespace portolan::runtime {

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
    return constants;
}

} // namespace portolan::runtime
