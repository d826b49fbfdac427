// eliminate-identity: remove nodes whose output equals their first input.
//
//   Before: x → Identity → a → Cast(to = x's type) → b → Transpose(perm = [0,1,2]) → y
//   After:  x → y    (when x can take y's place: see below; otherwise the last node stays)
//
// Identity (identity): always.
// Dropout (dropout-inference): in inference mode (opset ≥ 12: no training_mode input, or a constant
//   false; opset < 7: is_test = 1; opset 7–11 has no training mode), and its mask output unused.
// Cast / CastLike (cast-same-type): the target type is the input's declared element type.
// Reshape (reshape-same-shape): the input shape is static and the target (0 and -1 resolved) equals it.
// Transpose (transpose-identity): perm = [0, 1, …, n-1] (or no perm and rank ≤ 1).
// Pad (pad-zero): every pad is 0 (any mode: nothing is added, so the constant value does not matter).
// Slice (slice-everything): the input shape is static and every sliced axis keeps all its elements
//   in order (start clamps to 0, end to the dim, step 1; a dim of 1 with any step).
// Expand (expand-same-shape): y = x broadcast to `shape` has x's shape: shape has no more dims than
//   x and each of its entries is 1 or x's (static) dim.
// Clip (clip-unbounded): opset ≥ 11 with each bound absent or a constant infinity of the right sign
//   (Clip-6's default bounds are the finite float extremes, which do clip infinities, so it stays).
//
// The bypass replaces every use of the output by the input. A graph output keeps its name, so it
// cannot be fed directly by a graph input, an initializer, another graph output or an outer-scope
// value: such nodes stay, with the reason as a match failure. Constant shape/pad/slice inputs that
// nothing reads afterwards are removed with the node.
#include "passes/ConstantEvaluation.h"
#include "passes/Match.h"
#include "passes/Pass.h"

#include "ir/Type.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace portolan::passes {

namespace {

using Dims = std::vector<std::int64_t>;

struct Verdict {
    std::string pattern;
    std::string reason; ///< empty: the node is an identity
};

std::string dimsText(const Dims &dims)
{
    return runtime::shapeString(dims);
}

/// Integer values of a constant input (nullopt when absent or not a constant integer tensor).
std::optional<Dims> constantInts(const ir::Model &model, const ir::Node &node, std::size_t index)
{
    if (index >= node.inputs.size() || !node.inputs[index].valid())
        return std::nullopt;
    const auto t = constantValue(model, node.inputs[index]);
    return t ? integerValues(*t) : std::nullopt;
}

std::string dropoutReason(const ir::Model &model, const ir::Node &node)
{
    const int opset = standardOpset(model);
    if (opset < 7 && attrInt(node, "is_test", 0) == 0)
        return "Dropout in training mode (is_test = 0)";
    if (opset >= 12 && node.inputs.size() > 2 && node.inputs[2].valid()) {
        const auto mode = constantValue(model, node.inputs[2]);
        if (!mode || mode->size() != 1)
            return "training_mode is not a constant";
        if (mode->rawData()[0] != std::byte{0})
            return "Dropout in training mode";
    }
    if (node.outputs.size() > 1 && node.outputs[1].valid() &&
        (!model.value(node.outputs[1]).uses.empty() || isGraphOutput(model, node.outputs[1])))
        return "the mask output is used";
    return {};
}

std::string castReason(const ir::Model &model, const ir::Node &node)
{
    const int from = elementTypeOf(model, node.inputs[0]);
    const int to = node.opType == "CastLike" ? (node.inputs.size() > 1 ? elementTypeOf(model, node.inputs[1]) : 0)
                                             : static_cast<int>(attrInt(node, "to", 0));
    if (from == 0 || to == 0)
        return "the element type of the " + std::string(from == 0 ? "input" : "target") + " is unknown";
    if (from != to)
        return node.opType + " changes " + ir::dataTypeName(from) + " to " + ir::dataTypeName(to);
    return {};
}

std::string reshapeReason(const ir::Model &model, const ir::Node &node)
{
    const auto target = standardOpset(model) < 5 ? std::optional<Dims>(attrInts(node, "shape")) : constantInts(model, node, 1);
    if (!target)
        return "the target shape is not a constant";
    const auto in = staticShape(model, node.inputs[0]);
    if (!in)
        return "the input shape is not static";
    const bool allowZero = attrInt(node, "allowzero", 0) != 0;
    Dims resolved = *target;
    std::int64_t known = 1;
    std::size_t inferred = resolved.size();
    for (std::size_t i = 0; i < resolved.size(); ++i) {
        if (resolved[i] == 0 && !allowZero)
            resolved[i] = i < in->size() ? (*in)[i] : -2;
        if (resolved[i] == -1)
            inferred = i;
        else
            known *= resolved[i];
    }
    const auto count = ir::elementCount(*in);
    if (inferred < resolved.size() && count && known > 0)
        resolved[inferred] = *count / known;
    if (resolved != *in)
        return "Reshape changes " + dimsText(*in) + " to " + dimsText(*target);
    return {};
}

std::string transposeReason(const ir::Model &model, const ir::Node &node)
{
    const Dims perm = attrInts(node, "perm");
    if (perm.empty()) {
        const ir::Shape shape = model.value(node.inputs[0]).shape();
        const auto dims = staticShape(model, node.inputs[0]);
        if (!dims && !shape.rankKnown())
            return "no perm (the dims are reversed) and the rank is unknown";
        const std::size_t rank = dims ? dims->size() : shape.dims->size();
        return rank <= 1 ? std::string() : "no perm: the dims are reversed";
    }
    for (std::size_t i = 0; i < perm.size(); ++i)
        if (perm[i] != static_cast<std::int64_t>(i))
            return "perm " + dimsText(perm) + " is not the identity";
    return {};
}

std::string padReason(const ir::Model &model, const ir::Node &node)
{
    const int opset = standardOpset(model);
    const auto pads = opset < 11 ? std::optional<Dims>(attrInts(node, opset < 2 ? "paddings" : "pads"))
                                 : constantInts(model, node, 1);
    if (!pads)
        return "the pads are not a constant";
    if (std::any_of(pads->begin(), pads->end(), [](std::int64_t p) { return p != 0; }))
        return "pads " + dimsText(*pads) + " are not all zero";
    return {};
}

std::string sliceReason(const ir::Model &model, const ir::Node &node)
{
    const auto in = staticShape(model, node.inputs[0]);
    if (!in)
        return "the input shape is not static";
    const auto rank = static_cast<std::int64_t>(in->size());
    const bool attributes = standardOpset(model) < 10;
    const auto starts = attributes ? std::optional<Dims>(attrInts(node, "starts")) : constantInts(model, node, 1);
    const auto ends = attributes ? std::optional<Dims>(attrInts(node, "ends")) : constantInts(model, node, 2);
    auto axes = attributes ? std::optional<Dims>(attrInts(node, "axes")) : constantInts(model, node, 3);
    auto steps = attributes ? std::optional<Dims>() : constantInts(model, node, 4);
    const bool axesGiven = attributes ? !axes->empty() : node.inputs.size() > 3 && node.inputs[3].valid();
    const bool stepsGiven = !attributes && node.inputs.size() > 4 && node.inputs[4].valid();
    if (!starts || !ends || (axesGiven && !axes) || (stepsGiven && !steps))
        return "starts, ends, axes or steps are not constants";
    if (!axesGiven) {
        axes = Dims(starts->size());
        std::iota(axes->begin(), axes->end(), std::int64_t(0));
    }
    if (!stepsGiven)
        steps = Dims(starts->size(), 1);
    if (ends->size() != starts->size() || axes->size() != starts->size() || steps->size() != starts->size())
        return "starts, ends, axes and steps differ in length";
    for (std::size_t i = 0; i < starts->size(); ++i) {
        const std::int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
        const std::int64_t step = (*steps)[i];
        if (axis < 0 || axis >= rank || step == 0)
            return "axis or step out of range";
        const std::int64_t dim = (*in)[static_cast<std::size_t>(axis)];
        auto clamp = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
            return std::clamp(v < 0 ? v + dim : v, lo, hi); // the spec's clamping (v < 0 counts from the end)
        };
        const std::int64_t start = step > 0 ? clamp((*starts)[i], 0, dim) : clamp((*starts)[i], 0, dim - 1);
        const std::int64_t end = step > 0 ? clamp((*ends)[i], 0, dim) : clamp((*ends)[i], -1, dim - 1);
        const std::int64_t span = step > 0 ? end - start : start - end;
        const std::int64_t absStep = step > 0 ? step : -step;
        const std::int64_t count = span <= 0 ? 0 : (span + absStep - 1) / absStep;
        const bool everything = count == dim && (dim <= 1 || (step == 1 && start == 0));
        if (!everything)
            return "Slice takes [" + std::to_string((*starts)[i]) + ":" + std::to_string((*ends)[i]) + ":" +
                   std::to_string(step) + "] of axis " + std::to_string(axis) + " (size " + std::to_string(dim) + ")";
    }
    return {};
}

std::string expandReason(const ir::Model &model, const ir::Node &node)
{
    const auto shape = constantInts(model, node, 1);
    if (!shape)
        return "the target shape is not a constant";
    std::vector<ir::Dim> dims;
    if (const auto s = staticShape(model, node.inputs[0])) {
        for (const std::int64_t d : *s)
            dims.push_back(ir::Dim{d});
    } else if (const ir::Shape declared = model.value(node.inputs[0]).shape(); declared.rankKnown()) {
        dims = *declared.dims;
    } else {
        return "the input rank is unknown";
    }
    if (shape->size() > dims.size())
        return "Expand to " + dimsText(*shape) + " adds dims";
    for (std::size_t j = 0; j < shape->size(); ++j) {
        const std::int64_t s = (*shape)[shape->size() - 1 - j];
        const ir::Dim &d = dims[dims.size() - 1 - j];
        if (s == 1 || (d.isStatic() && d.extent() == s))
            continue;
        return d.isStatic() ? "Expand broadcasts dim " + std::to_string(dims.size() - 1 - j) + " (" +
                                  std::to_string(d.extent()) + ") to " + std::to_string(s)
                            : "dim " + std::to_string(dims.size() - 1 - j) + " of the input is not static";
    }
    return {};
}

std::string clipReason(const ir::Model &model, const ir::Node &node)
{
    if (standardOpset(model) < 11)
        return "Clip before opset 11 clips to the finite float extremes by default";
    for (const std::size_t k : {std::size_t(1), std::size_t(2)}) {
        if (node.inputs.size() <= k || !node.inputs[k].valid())
            continue;
        const auto v = scalarConstant(model, node.inputs[k]);
        if (!v)
            return std::string(k == 1 ? "min" : "max") + " is not a constant scalar";
        if (!(std::isinf(*v) && (k == 1) == (*v < 0)))
            return std::string(k == 1 ? "min" : "max") + " bounds the values";
    }
    return {};
}

/// What this pass thinks of `node`; nullopt for ops it does not handle.
std::optional<Verdict> examine(const ir::Model &model, const ir::Node &node)
{
    if (node.inputs.empty() || !node.inputs[0].valid() || node.outputs.empty() || !node.outputs[0].valid())
        return std::nullopt;
    if (isOp(node, "Identity"))
        return Verdict{"identity", {}};
    if (isOp(node, "Dropout"))
        return Verdict{"dropout-inference", dropoutReason(model, node)};
    if (isOp(node, "Cast") || isOp(node, "CastLike"))
        return Verdict{"cast-same-type", castReason(model, node)};
    if (isOp(node, "Reshape"))
        return Verdict{"reshape-same-shape", reshapeReason(model, node)};
    if (isOp(node, "Transpose"))
        return Verdict{"transpose-identity", transposeReason(model, node)};
    if (isOp(node, "Pad"))
        return Verdict{"pad-zero", padReason(model, node)};
    if (isOp(node, "Slice"))
        return Verdict{"slice-everything", sliceReason(model, node)};
    if (isOp(node, "Expand"))
        return Verdict{"expand-same-shape", expandReason(model, node)};
    if (isOp(node, "Clip"))
        return Verdict{"clip-unbounded", clipReason(model, node)};
    return std::nullopt;
}

} // namespace

support::Status EliminateIdentity::run(PassContext &cx)
{
    ir::Model &model = cx.model;
    for (const ir::GraphId g : liveGraphs(model))
        for (const ir::NodeId n : liveNodes(model, g)) {
            const ir::Node &node = model.node(n);
            if (!node.alive)
                continue;
            const auto verdict = examine(model, node);
            if (!verdict)
                continue;
            if (!verdict->reason.empty()) {
                cx.rewriter.notifyMatchFailure(n, verdict->pattern, verdict->reason);
                continue;
            }
            const ir::ValueId in = node.inputs[0];
            const ir::ValueId out = node.outputs[0];
            std::string why;
            if (!cx.rewriter.canReplace(out, in, &why)) {
                cx.rewriter.notifyMatchFailure(n, verdict->pattern, "cannot bypass: " + why);
                continue;
            }
            if (!cx.rewriter.begin(verdict->pattern))
                return support::Status::ok();
            const std::vector<ir::ValueId> inputs = node.inputs;
            const std::string what = node.opType + (node.name.empty() ? std::string() : " '" + node.name + "'");
            cx.rewriter.replaceAllUsesWith(out, in);
            cx.rewriter.eraseNode(n);
            eraseUnreadConstants(cx, std::vector<ir::ValueId>(inputs.begin() + 1, inputs.end()));
            cx.rewriter.count("removed-nodes");
            cx.rewriter.commit(what);
        }
    return support::Status::ok();
}

} // namespace portolan::passes
