// Shape keys from bound feeds (see ShapeKey.h).
#include "runtime/ShapeKey.h"

namespace portolan::runtime {

ShapeKey shapeKeyOf(const ir::Model &model, const std::vector<const RuntimeValue *> &bound)
{
    ShapeKey key;
    const ir::Graph &main = model.graph(model.mainGraph());
    for (std::size_t i = 0; i < main.inputs.size() && i < bound.size(); ++i) {
        const RuntimeValue *feed = bound[i];
        if (!feed)
            continue;
        const std::string &name = model.value(main.inputs[i]).name;
        key.signature += name + (feed->isTensor() ? shapeString(feed->tensor.shape()) : "(" + feed->describe() + ")") + ";";
        if (feed->isTensor())
            key.shapes[name] = feed->tensor.shape();
    }
    return key;
}

} // namespace portolan::runtime
