// Rounding depths over a topological order of the main graph.
#include "compare/RoundingDepth.h"

#include "ir/Topology.h"

#include <algorithm>
#include <string>
#include <unordered_set>

namespace portolan::compare {

bool copiesElements(const ir::Node &node)
{
    static const std::unordered_set<std::string> ops = {
        "Reshape", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND", "Squeeze",
        "Unsqueeze", "Flatten", "Expand", "Tile", "Pad", "Identity", "DepthToSpace", "SpaceToDepth", "Dropout",
        "Compress", "ReverseSequence", "Where"};
    return (node.domain.empty() || node.domain == "ai.onnx") && ops.contains(node.opType);
}

namespace {

/// Nodes that add no rounding: element copies, and ops whose outputs are shapes, sizes or constants.
bool roundsNothing(const ir::Node &node)
{
    static const std::unordered_set<std::string> ops = {"Shape", "Size", "Constant", "ConstantOfShape", "EyeLike",
                                                        "Range", "NonZero", "Trilu"};
    return copiesElements(node) || ((node.domain.empty() || node.domain == "ai.onnx") && ops.contains(node.opType));
}

} // namespace

std::unordered_map<ir::ValueId, int> roundingDepths(const ir::Model &model)
{
    std::unordered_map<ir::ValueId, int> depths;
    const auto order = ir::topologicalOrder(model, model.mainGraph());
    if (!order)
        return depths; // a cycle: every value at depth 0, which only keeps default tolerances at their base
    for (const ir::NodeId id : *order) {
        const ir::Node &node = model.node(id);
        int deepest = 0;
        for (const ir::ValueId in : node.inputs)
            if (in.valid())
                if (const auto it = depths.find(in); it != depths.end())
                    deepest = std::max(deepest, it->second);
        for (const ir::ValueId in : ir::capturedValues(model, id))
            if (const auto it = depths.find(in); it != depths.end())
                deepest = std::max(deepest, it->second);
        const int depth = deepest + (roundsNothing(node) ? 0 : 1);
        for (const ir::ValueId out : node.outputs)
            if (out.valid())
                depths[out] = depth;
    }
    return depths;
}

} // namespace portolan::compare
