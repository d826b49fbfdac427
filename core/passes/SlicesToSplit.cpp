// slices-to-split — Slices that together cut one axis of a tensor into consecutive pieces:
//   Before: qkv: [B,S,3E] → Slice(0:E, axis 2) → q;  Slice(E:2E) → k;  Slice(2E:3E) → v
//   After:  qkv → Split(axis 2, split = [E, E, E]) → q, k, v
// Conditions: opset ≥ 10 (Slice takes inputs), constant one-axis starts/ends/axes, steps 1, the axis
// extent static, and the pieces covering [0, extent) without gaps or overlaps. Exporters write
// nn.MultiheadAttention's packed projection this way; one Split reads the tensor once.
#include "passes/SlicesToSplit.h"

#include "passes/FusionSupport.h"
#include "passes/Match.h"

#include <algorithm>
#include <map>

namespace portolan::passes {

namespace {

constexpr const char *kPattern = "slices-to-split";

struct Piece {
    ir::NodeId slice;
    std::int64_t begin = 0, end = 0;
};

std::optional<std::int64_t> oneValue(const ir::Model &model, const ir::Node &node, std::size_t input)
{
    if (input >= node.inputs.size() || !node.inputs[input].valid())
        return std::nullopt;
    const auto t = constantValue(model, node.inputs[input]);
    if (!t || t->size() != 1)
        return std::nullopt;
    if (t->dataType() == onnx::TensorProto::INT64)
        return t->data<std::int64_t>()[0];
    if (t->dataType() == onnx::TensorProto::INT32)
        return t->data<std::int32_t>()[0];
    return std::nullopt;
}

// The piece a Slice takes along its one axis (normalized to [0, extent]), with that axis.
std::optional<std::pair<std::int64_t, Piece>> pieceOf(const ir::Model &model, const ir::Node &slice, ShapeOracle &shapes)
{
    const auto dims = shapes.staticDims(slice.inputs[0]);
    const auto start = oneValue(model, slice, 1), end = oneValue(model, slice, 2);
    if (!dims || !start || !end)
        return std::nullopt;
    std::int64_t axis = 0;
    if (slice.inputs.size() > 3 && slice.inputs[3].valid()) {
        const auto a = oneValue(model, slice, 3);
        if (!a)
            return std::nullopt;
        axis = *a;
    }
    if (slice.inputs.size() > 4 && slice.inputs[4].valid() && oneValue(model, slice, 4) != 1)
        return std::nullopt;
    const auto rank = static_cast<std::int64_t>(dims->size());
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis >= rank)
        return std::nullopt;
    const std::int64_t extent = (*dims)[static_cast<std::size_t>(axis)];
    auto clamp = [&](std::int64_t v) { return std::clamp(v < 0 ? v + extent : v, std::int64_t(0), extent); };
    Piece piece{slice.id, clamp(*start), clamp(*end)};
    if (piece.end <= piece.begin)
        return std::nullopt;
    return std::make_pair(axis, piece);
}

} // namespace

std::size_t slicesToSplit(PassContext &cx, ir::GraphId graph)
{
    ir::Model &model = cx.model;
    if (standardOpset(model) < 10)
        return 0;
    ShapeOracle shapes(model);
    // Slices by the tensor they read, in file order.
    std::map<std::uint32_t, std::vector<ir::NodeId>> byInput;
    for (const ir::NodeId id : liveNodes(model, graph)) {
        const ir::Node &node = model.node(id);
        if (isOp(node, "Slice") && !node.inputs.empty() && node.inputs[0].valid())
            byInput[node.inputs[0].index].push_back(id);
    }
    std::size_t rewrites = 0;
    for (const auto &[input, slices] : byInput) {
        if (slices.size() < 2)
            continue;
        std::optional<std::int64_t> axis;
        std::vector<Piece> pieces;
        bool usable = true;
        for (const ir::NodeId id : slices) {
            const auto piece = pieceOf(model, model.node(id), shapes);
            usable = usable && piece && (!axis || *axis == piece->first);
            if (!usable)
                break;
            axis = piece->first;
            pieces.push_back(piece->second);
        }
        if (!usable)
            continue;
        std::sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) { return a.begin < b.begin; });
        const ir::ValueId x(input);
        const std::int64_t extent = (*shapes.staticDims(x))[static_cast<std::size_t>(*axis)];
        bool tiles = pieces.front().begin == 0 && pieces.back().end == extent;
        for (std::size_t i = 1; i < pieces.size(); ++i)
            tiles = tiles && pieces[i].begin == pieces[i - 1].end;
        if (!tiles) {
            cx.rewriter.notifyMatchFailure(slices.front(), kPattern, "the slices of '" + model.value(x).name +
                                                                         "' do not cut its axis into consecutive pieces");
            continue;
        }
        if (!cx.rewriter.begin(kPattern))
            return rewrites;
        std::vector<std::int64_t> sizes;
        std::vector<ir::ValueId> outputs;
        for (const Piece &p : pieces) {
            sizes.push_back(p.end - p.begin);
            const ir::Value &old = model.value(model.node(p.slice).outputs[0]);
            const onnx::TypeProto type = old.info.type();
            outputs.push_back(cx.rewriter.createValue(graph, old.name, old.info.has_type() ? &type : nullptr));
        }
        std::vector<ir::ValueId> inputs{x};
        std::vector<onnx::AttributeProto> attributes{makeAttribute("axis", *axis)};
        if (standardOpset(model) >= 13) {
            runtime::Tensor split = runtime::Tensor::fromVector<std::int64_t>(
                onnx::TensorProto::INT64, {static_cast<std::int64_t>(sizes.size())}, sizes);
            inputs.push_back(cx.rewriter.createInitializer(graph, model.value(x).name + ".split", split));
        } else {
            attributes.push_back(makeAttribute("split", sizes));
        }
        cx.rewriter.createNode(graph, "Split", "", inputs, outputs, std::move(attributes), fusedNodeName(model.node(pieces.front().slice), "Split"),
                               slices.front());
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            cx.rewriter.replaceAllUsesWith(model.node(pieces[i].slice).outputs[0], outputs[i]);
            cx.rewriter.eraseNode(pieces[i].slice);
        }
        cx.rewriter.commit(std::to_string(pieces.size()) + " pieces");
        ++rewrites;
    }
    return rewrites;
}

} // namespace portolan::passes
