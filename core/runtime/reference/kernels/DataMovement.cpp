// Data-movement kernels that copy: Transpose, Concat, Split, Slice, Expand, Tile, Pad, DepthToSpace,
// SpaceToDepth, Trilu and ReverseSequence (the views — Reshape, Flatten, Squeeze, Unsqueeze — are in
// DataMovementViews.cpp).
#include "runtime/reference/kernels/DataMovement.h"
#include "runtime/reference/kernels/Broadcast.h"
#include "runtime/reference/kernels/TensorOps.h"

#include <limits>
#include <optional>

namespace portolan::runtime::kernels {

namespace {

// Most kernels here are one gather: output coordinate i along axis d reads source offset tables[d][i]
// (offsets add up across axes), or keeps its prefilled value where an entry is -1 (Pad's constant).
// Per-axis tables express transposes, strided slices, broadcasts, tiling and every pad mode alike.
using AxisTables = std::vector<std::vector<std::int64_t>>;

template <typename T>
void gatherRows(const T *in, T *out, const Shape &shape, const AxisTables &tables)
{
    const std::size_t rank = shape.size();
    if (rank == 0) {
        out[0] = in[0];
        return;
    }
    const std::vector<std::int64_t> &last = tables.back();
    const std::int64_t n = shape.back();
    bool contiguous = last[0] >= 0;
    for (std::int64_t i = 1; contiguous && i < n; ++i)
        contiguous = last[static_cast<std::size_t>(i)] == last[0] + i;
    // base[d]: the offset contributed by axes before d at the current row, -1 when one of them fills.
    std::vector<std::size_t> counter(rank - 1, 0);
    std::vector<std::int64_t> base(rank, 0);
    auto rebuild = [&](std::size_t from) {
        for (std::size_t d = from; d + 1 < rank; ++d) {
            const std::int64_t t = tables[d][counter[d]];
            base[d + 1] = base[d] < 0 || t < 0 ? -1 : base[d] + t;
        }
    };
    rebuild(0);
    const std::int64_t rows = elementCount(shape) / n;
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t b = base[rank - 1];
        T *o = out + r * n;
        if (b >= 0 && contiguous) {
            std::copy_n(in + b + last[0], n, o);
        } else if (b >= 0) {
            for (std::int64_t i = 0; i < n; ++i)
                if (const std::int64_t t = last[static_cast<std::size_t>(i)]; t >= 0)
                    o[i] = in[b + t];
        }
        std::size_t d = rank - 1;
        while (d > 0) {
            --d;
            if (static_cast<std::int64_t>(++counter[d]) < shape[d])
                break;
            counter[d] = 0;
        }
        rebuild(d);
    }
}

/// Tables for an output `shape` from entry(axis, coordinate); none are built for an empty output, whose
/// dims are then not bounded by the memory cap.
template <typename F>
AxisTables makeTables(const Shape &shape, F &&entry)
{
    AxisTables tables(shape.size());
    if (elementCount(shape) == 0)
        return tables;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        tables[d].resize(static_cast<std::size_t>(shape[d]));
        for (std::int64_t i = 0; i < shape[d]; ++i)
            tables[d][static_cast<std::size_t>(i)] = entry(d, i);
    }
    return tables;
}

support::Status gatherInto(KernelContext &ctx, const Tensor &src, Tensor &out, const AxisTables &tables)
{
    if (out.size() == 0)
        return support::Status::ok();
    if (!visitElements(src.dataType(), [&]<typename T>() {
            gatherRows(elements<T>(src), mutableElements<T>(out), out.shape(), tables);
        }))
        return unsupportedType(ctx, src.dataType());
    return support::Status::ok();
}

template <typename F>
support::Expected<Tensor> gathered(KernelContext &ctx, const Tensor &src, const Shape &shape, F &&entry)
{
    auto out = ctx.allocate(src.dataType(), shape);
    if (!out)
        return out;
    if (auto st = gatherInto(ctx, src, *out, makeTables(shape, entry)); !st)
        return st.error();
    return out;
}

/// `src` viewed as `view` (same element count) with its axes reordered: output axis d is view axis perm[d].
support::Expected<Tensor> permuted(KernelContext &ctx, const Tensor &src, const Shape &view,
                                   const std::vector<std::size_t> &perm)
{
    const Shape strides = stridesOf(view);
    Shape shape(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d)
        shape[d] = view[perm[d]];
    return gathered(ctx, src, shape, [&](std::size_t d, std::int64_t i) { return i * strides[perm[d]]; });
}

} // namespace

/// A list argument that was attribute `attr` before opset `inputSince` and input `input` from then on;
/// nullopt when not given.
support::Expected<std::optional<std::vector<std::int64_t>>> listArgument(KernelContext &ctx, const char *attr,
                                                                        std::size_t input, int inputSince)
{
    if (ctx.opset() < inputSince)
        return ctx.hasAttribute(attr) ? std::optional(ctx.attrInts(attr)) : std::nullopt;
    if (!ctx.hasInput(input))
        return std::optional<std::vector<std::int64_t>>();
    auto values = integerList(ctx, ctx.input(input), attr);
    if (!values)
        return values.takeError();
    return std::optional(std::move(*values));
}

/// Axes in [-rank, rank) as distinct non-negative axes, flagged in a rank-long mask.
support::Expected<std::vector<bool>> axisMask(KernelContext &ctx, const std::vector<std::int64_t> &axes, std::size_t rank)
{
    std::vector<bool> mask(rank, false);
    for (const auto a : axes) {
        auto axis = normalizeAxis(ctx, a, rank);
        if (!axis)
            return axis.takeError();
        if (mask[*axis])
            return ctx.error("axis " + std::to_string(a) + " is given twice");
        mask[*axis] = true;
    }
    return mask;
}

// --- copies

support::Status transpose(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    std::vector<std::size_t> perm(x.rank());
    if (ctx.hasAttribute("perm")) {
        const auto given = ctx.attrInts("perm");
        std::vector<bool> seen(x.rank(), false);
        bool valid = given.size() == x.rank();
        for (std::size_t d = 0; valid && d < given.size(); ++d) {
            valid = given[d] >= 0 && given[d] < static_cast<std::int64_t>(x.rank()) && !seen[static_cast<std::size_t>(given[d])];
            if (valid)
                seen[perm[d] = static_cast<std::size_t>(given[d])] = true;
        }
        if (!valid)
            return ctx.error("perm " + shapeString(given) + " is not a permutation of the input's " +
                             std::to_string(x.rank()) + " axes");
    } else {
        for (std::size_t d = 0; d < x.rank(); ++d)
            perm[d] = x.rank() - 1 - d;
    }
    return emit(ctx, permuted(ctx, x, x.shape(), perm));
}

support::Status concat(KernelContext &ctx)
{
    if (ctx.inputCount() == 0)
        return ctx.error("needs at least one input");
    if (auto st = ctx.requireInputs(ctx.inputCount()); !st)
        return st;
    if (ctx.opset() >= 4 && !ctx.hasAttribute("axis"))
        return ctx.error("needs the 'axis' attribute");
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 1), ctx.input(0).rank());
    if (!axis)
        return axis.takeError();
    std::vector<Tensor> pieces;
    for (std::size_t i = 0; i < ctx.inputCount(); ++i)
        pieces.push_back(ctx.input(i));
    return emit(ctx, joinAxis(ctx, pieces, *axis, false));
}

support::Status split(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 0), x.rank());
    if (!axis)
        return axis.takeError();
    // Opset 1 took the sizes as an optional input or an attribute, opsets 2–12 as an attribute.
    auto sizes = ctx.opset() == 1 && ctx.hasInput(1) ? listArgument(ctx, "split", 1, 1) : listArgument(ctx, "split", 1, 13);
    if (!sizes)
        return sizes.takeError();
    const std::int64_t dim = x.dim(*axis);
    const auto parts = static_cast<std::int64_t>(ctx.outputCount());
    std::vector<std::int64_t> lengths = sizes->value_or(std::vector<std::int64_t>{});
    if (const ir::Attribute *numOutputs = ctx.opset() >= 18 ? ctx.attribute("num_outputs") : nullptr) {
        // Split-18: chunks of ceil(dim / n), the last one smaller when the dim does not divide evenly
        const std::int64_t n = numOutputs->proto.i();
        if (!lengths.empty())
            return ctx.error("takes the 'split' input or the 'num_outputs' attribute, not both");
        if (n < 1 || n != parts)
            return ctx.error("num_outputs is " + std::to_string(n) + " but the node has " + std::to_string(parts) + " outputs");
        const std::int64_t chunk = dim / n + (dim % n != 0);
        if (dim - (n - 1) * chunk <= 0 && dim > 0)
            return ctx.error("num_outputs " + std::to_string(n) + " leaves the last chunk of a dim of " + std::to_string(dim) +
                             " empty (chunks of " + std::to_string(chunk) + ")");
        for (std::int64_t k = 0; k < n; ++k)
            lengths.push_back(std::clamp<std::int64_t>(dim - k * chunk, 0, chunk));
    }
    if (lengths.empty()) {
        if (parts == 0 || dim % parts != 0)
            return ctx.error("cannot split a dim of " + std::to_string(dim) + " into " + std::to_string(parts) +
                             " equal parts");
        lengths.assign(static_cast<std::size_t>(parts), dim / parts);
    }
    std::int64_t total = 0;
    bool fits = static_cast<std::int64_t>(lengths.size()) == parts;
    for (const auto l : lengths) {
        fits = fits && l >= 0 && l <= dim - total;
        total += fits ? l : 0;
    }
    if (!fits || total != dim)
        return ctx.error("split " + shapeString(lengths) + " does not divide a dim of " + std::to_string(dim) +
                         " into " + std::to_string(parts) + " outputs");
    std::int64_t start = 0;
    for (std::size_t k = 0; k < lengths.size(); start += lengths[k++]) {
        if (!ctx.wantsOutput(k))
            continue;
        auto piece = sliceAxis(ctx, x, *axis, start, lengths[k], true);
        if (!piece)
            return piece.takeError();
        ctx.setOutput(k, std::move(*piece));
    }
    return support::Status::ok();
}

support::Status slice(KernelContext &ctx)
{
    const bool fromInputs = ctx.opset() >= 10;
    if (auto st = ctx.requireInputs(fromInputs ? 3 : 1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto starts = listArgument(ctx, "starts", 1, 10);
    auto ends = listArgument(ctx, "ends", 2, 10);
    auto axes = listArgument(ctx, "axes", 3, 10);
    auto steps = listArgument(ctx, "steps", 4, 10);
    for (auto *arg : {&starts, &ends, &axes, &steps})
        if (!*arg)
            return arg->takeError();
    if (!*starts || !*ends || (*starts)->size() != (*ends)->size())
        return ctx.error("starts and ends must be given with the same length");
    const std::size_t count = (*starts)->size();
    std::vector<std::int64_t> axisList(count);
    for (std::size_t i = 0; i < count; ++i)
        axisList[i] = static_cast<std::int64_t>(i);
    if (*axes)
        axisList = **axes;
    const std::vector<std::int64_t> stepList = steps->value_or(std::vector<std::int64_t>(count, 1));
    if (axisList.size() != count || stepList.size() != count)
        return ctx.error("starts, ends, axes and steps must have the same length");
    auto sliced = axisMask(ctx, axisList, x.rank());
    if (!sliced)
        return sliced.takeError();

    Shape shape = x.shape();
    std::vector<std::int64_t> first(x.rank(), 0), step(x.rank(), 1);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t d = *normalizeAxis(ctx, axisList[i], x.rank());
        const std::int64_t dim = x.dim(d);
        const std::int64_t s = stepList[i];
        if (s == 0)
            return ctx.error("steps must not be 0");
        std::int64_t b = (**starts)[i], e = (**ends)[i];
        b = b < 0 ? b + dim : b;
        e = e < 0 ? e + dim : e;
        // Positive steps clamp to [0, dim]; negative steps to [0, dim-1] for the start and [-1, dim-1] for the end.
        b = s > 0 ? std::clamp<std::int64_t>(b, 0, dim) : std::clamp<std::int64_t>(b, 0, dim - 1);
        e = s > 0 ? std::clamp<std::int64_t>(e, 0, dim) : std::clamp<std::int64_t>(e, -1, dim - 1);
        shape[d] = s > 0 ? (e > b ? (e - b - 1) / s + 1 : 0) : (b > e ? (b - e - 1) / -s + 1 : 0);
        first[d] = b;
        step[d] = s;
    }
    const Shape strides = stridesOf(x.shape());
    return emit(ctx, gathered(ctx, x, shape, [&](std::size_t d, std::int64_t i) {
                    return (first[d] + i * step[d]) * strides[d];
                }));
}

support::Status expand(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto requested = integerList(ctx, ctx.input(1), "shape");
    if (!requested)
        return requested.takeError();
    for (const auto d : *requested)
        if (d < 0)
            return ctx.error("the shape " + shapeString(*requested) + " has a negative dim");
    const auto shape = broadcastShapes({x.shape(), *requested});
    if (!shape)
        return ctx.error("cannot broadcast " + shapeString(x.shape()) + " to " + shapeString(*requested));
    const auto strides = broadcastStrides(x.shape(), shape->size(), *shape);
    return emit(ctx, gathered(ctx, x, *shape, [&](std::size_t d, std::int64_t i) { return i * strides[d]; }));
}

support::Status tile(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    std::vector<std::int64_t> repeats(x.rank(), 1);
    if (ctx.opset() < 6) {
        // Tile-1: a scalar count of copies along a scalar axis, both as inputs.
        if (auto st = ctx.requireInputs(3); !st)
            return st;
        auto tiles = scalarInteger(ctx, ctx.input(1), "tiles");
        auto axisValue = scalarInteger(ctx, ctx.input(2), "axis");
        if (!tiles || !axisValue)
            return !tiles ? tiles.takeError() : axisValue.takeError();
        auto axis = normalizeAxis(ctx, *axisValue, x.rank());
        if (!axis)
            return axis.takeError();
        repeats[*axis] = *tiles;
    } else {
        auto given = integerList(ctx, ctx.input(1), "repeats");
        if (!given)
            return given.takeError();
        if (given->size() != x.rank())
            return ctx.error("repeats has " + std::to_string(given->size()) + " values for a rank " +
                             std::to_string(x.rank()) + " input");
        repeats = *given;
    }
    Shape shape = x.shape();
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (repeats[d] < 0)
            return ctx.error("repeats " + shapeString(repeats) + " has a negative value");
        if (shape[d] != 0 && repeats[d] > std::numeric_limits<std::int64_t>::max() / shape[d])
            return ctx.error("repeats " + shapeString(repeats) + " make a dim overflow");
        shape[d] *= repeats[d];
    }
    const Shape strides = stridesOf(x.shape());
    return emit(ctx, gathered(ctx, x, shape, [&](std::size_t d, std::int64_t i) { return i % x.dim(d) * strides[d]; }));
}

namespace {

/// Where output coordinate `i` of a padded axis reads (source index, or -1 for the constant).
std::int64_t padSource(std::int64_t i, std::int64_t before, std::int64_t dim, char mode)
{
    const std::int64_t src = i - before;
    if (src >= 0 && src < dim)
        return src;
    if (mode == 'c')
        return -1;
    if (mode == 'e')
        return src < 0 ? 0 : dim - 1;
    if (mode == 'w') // wrap (opset 19): the axis repeats with period dim
        return ((src % dim) + dim) % dim;
    // reflect (numpy): the axis repeats with period 2(dim-1), mirrored around its first and last elements
    const std::int64_t period = 2 * (dim - 1);
    if (period == 0)
        return 0;
    const std::int64_t m = (src < 0 ? -src : src) % period;
    return m < dim ? m : period - m;
}

/// The pad value as one element of the data's type (zero when not given).
support::Expected<Tensor> padValue(KernelContext &ctx, int dataType)
{
    if (ctx.opset() < 11) {
        const Tensor value = Tensor::fromVector<float>(TensorProto::FLOAT, {}, {ctx.attrFloat("value", 0.0f)});
        return dataType == TensorProto::STRING ? Tensor::zeros(dataType, {}) : convertTensor(value, dataType);
    }
    if (!ctx.hasInput(2) || ctx.input(2).size() == 0)
        return Tensor::zeros(dataType, {});
    const Tensor &value = ctx.input(2);
    if (value.dataType() != dataType || value.size() != 1)
        return ctx.error("constant_value must be one element of the data's type");
    return value;
}

} // namespace

support::Status pad(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(ctx.opset() < 11 ? 1 : 2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const std::string modeName = ctx.attrString("mode", "constant");
    const bool wrapKnown = ctx.opset() >= 19;
    if (modeName != "constant" && modeName != "reflect" && modeName != "edge" && !(wrapKnown && modeName == "wrap"))
        return ctx.error("mode '" + modeName + "' is not constant, reflect, edge" + (wrapKnown ? " or wrap" : " (wrap came with opset 19)"));
    const char mode = modeName[0];
    auto pads = ctx.opset() < 11 ? support::Expected<std::vector<std::int64_t>>(ctx.attrInts(ctx.opset() < 2 ? "paddings" : "pads"))
                                 : integerList(ctx, ctx.input(1), "pads");
    if (!pads)
        return pads.takeError();
    std::vector<std::int64_t> axisList;
    if (ctx.opset() >= 18 && ctx.hasInput(3)) {
        auto axes = integerList(ctx, ctx.input(3), "axes");
        if (!axes)
            return axes.takeError();
        axisList = *axes;
    } else {
        for (std::size_t d = 0; d < x.rank(); ++d)
            axisList.push_back(static_cast<std::int64_t>(d));
    }
    if (pads->size() != 2 * axisList.size())
        return ctx.error("pads has " + std::to_string(pads->size()) + " values, expected " +
                         std::to_string(2 * axisList.size()));
    auto padded = axisMask(ctx, axisList, x.rank());
    if (!padded)
        return padded.takeError();
    std::vector<std::int64_t> before(x.rank(), 0);
    Shape shape = x.shape();
    for (std::size_t i = 0; i < axisList.size(); ++i) {
        const std::size_t d = *normalizeAxis(ctx, axisList[i], x.rank());
        const std::int64_t b = (*pads)[i], e = (*pads)[i + axisList.size()];
        const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 4;
        if (b < -limit || b > limit || e < -limit || e > limit || x.dim(d) + b + e < 0)
            return ctx.error("pads " + shapeString(*pads) + " do not fit a " + shapeString(x.shape()) + " input");
        if (mode != 'c' && x.dim(d) == 0 && (b > 0 || e > 0))
            return ctx.error(modeName + " padding needs a non-empty axis " + std::to_string(d));
        before[d] = b;
        shape[d] = x.dim(d) + b + e;
    }
    auto value = padValue(ctx, x.dataType());
    if (!value)
        return value.takeError();
    auto out = ctx.allocate(x.dataType(), shape);
    if (!out)
        return out.takeError();
    if (!visitElements(x.dataType(), [&]<typename T>() {
            std::fill_n(mutableElements<T>(*out), out->size(), elements<T>(*value)[0]);
        }))
        return unsupportedType(ctx, x.dataType());
    const Shape strides = stridesOf(x.shape());
    const auto tables = makeTables(shape, [&](std::size_t d, std::int64_t i) {
        const std::int64_t src = padSource(i, before[d], x.dim(d), mode);
        return src < 0 ? -1 : src * strides[d];
    });
    if (auto st = gatherInto(ctx, x, *out, tables); !st)
        return st;
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

namespace {

struct Blocks {
    std::int64_t n, c, h, w, b;
};

support::Expected<Blocks> blockGeometry(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st.error();
    const Tensor &x = ctx.input(0);
    const std::int64_t b = ctx.attrInt("blocksize", 0);
    if (x.rank() != 4)
        return ctx.error("takes a 4-D [N, C, H, W] input");
    if (b <= 0 || b > (std::int64_t(1) << 20))
        return ctx.error("blocksize must be in [1, 2^20], got " + std::to_string(b));
    return Blocks{x.dim(0), x.dim(1), x.dim(2), x.dim(3), b};
}

} // namespace

support::Status depthToSpace(KernelContext &ctx)
{
    auto g = blockGeometry(ctx);
    if (!g)
        return g.takeError();
    if (g->c % (g->b * g->b) != 0)
        return ctx.error("channels (" + std::to_string(g->c) + ") must be a multiple of blocksize²");
    const std::int64_t c = g->c / (g->b * g->b);
    // DCR reads channels as [b, b, C'], CRD as [C', b, b]; both interleave the blocks into H and W.
    const bool crd = ctx.opset() >= 11 && ctx.attrString("mode", "DCR") == "CRD";
    auto out = crd ? permuted(ctx, ctx.input(0), {g->n, c, g->b, g->b, g->h, g->w}, {0, 1, 4, 2, 5, 3})
                   : permuted(ctx, ctx.input(0), {g->n, g->b, g->b, c, g->h, g->w}, {0, 3, 4, 1, 5, 2});
    if (!out)
        return out.takeError();
    ctx.setOutput(0, out->reshaped({g->n, c, g->h * g->b, g->w * g->b}));
    return support::Status::ok();
}

support::Status spaceToDepth(KernelContext &ctx)
{
    auto g = blockGeometry(ctx);
    if (!g)
        return g.takeError();
    if (g->h % g->b != 0 || g->w % g->b != 0)
        return ctx.error("H and W must be multiples of blocksize " + std::to_string(g->b));
    const std::int64_t h = g->h / g->b, w = g->w / g->b;
    auto out = permuted(ctx, ctx.input(0), {g->n, g->c, h, g->b, w, g->b}, {0, 3, 5, 1, 2, 4});
    if (!out)
        return out.takeError();
    ctx.setOutput(0, out->reshaped({g->n, g->c * g->b * g->b, h, w}));
    return support::Status::ok();
}

support::Status trilu(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (x.rank() < 2)
        return ctx.error("takes an input of rank 2 or more");
    std::int64_t k = 0;
    if (ctx.hasInput(1)) {
        auto given = scalarInteger(ctx, ctx.input(1), "k");
        if (!given)
            return given.takeError();
        k = *given;
    }
    k = std::clamp<std::int64_t>(k, -x.dim(x.rank() - 2) - 1, x.dim(x.rank() - 1) + 1); // same rows kept, no overflow
    const bool upper = ctx.attrInt("upper", 1) != 0;
    const std::int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    auto out = ctx.allocate(x.dataType(), x.shape());
    if (!out)
        return out.takeError();
    if (!visitElements(x.dataType(), [&]<typename T>() {
            const T *in = elements<T>(x);
            T *o = mutableElements<T>(*out);
            for (std::int64_t m = 0; m < x.size(); m += rows * cols)
                for (std::int64_t r = 0; r < rows; ++r) {
                    // keep columns j with j - r >= k (upper) or j - r <= k (lower)
                    const std::int64_t edge = std::clamp<std::int64_t>(r + k, -1, cols);
                    const std::int64_t from = upper ? std::max<std::int64_t>(edge, 0) : 0;
                    const std::int64_t to = upper ? cols : std::min<std::int64_t>(edge + 1, cols);
                    const std::int64_t row = m + r * cols;
                    std::copy(in + row + from, in + row + std::max(from, to), o + row + from);
                }
        }))
        return unsupportedType(ctx, x.dataType());
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status reverseSequence(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const std::int64_t timeAxis = ctx.attrInt("time_axis", 0);
    const std::int64_t batchAxis = ctx.attrInt("batch_axis", 1);
    if (x.rank() < 2 || timeAxis + batchAxis != 1 || (timeAxis != 0 && timeAxis != 1))
        return ctx.error("takes an input of rank 2 or more with time_axis and batch_axis 0 and 1");
    auto lens = integerList(ctx, ctx.input(1), "sequence_lens");
    if (!lens)
        return lens.takeError();
    const std::int64_t steps = x.dim(static_cast<std::size_t>(timeAxis));
    const std::int64_t batch = x.dim(static_cast<std::size_t>(batchAxis));
    if (static_cast<std::int64_t>(lens->size()) != batch)
        return ctx.error("sequence_lens has " + std::to_string(lens->size()) + " values for a batch of " +
                         std::to_string(batch));
    for (const auto l : *lens)
        if (l < 0 || l > steps)
            return ctx.error("a sequence length of " + std::to_string(l) + " is outside [0, " + std::to_string(steps) + "]");
    auto out = copyOf(ctx, x);
    if (!out)
        return out.takeError();
    const std::int64_t inner = dimProduct(x.shape(), 2, x.rank());
    auto offset = [&](std::int64_t t, std::int64_t b) { return (timeAxis == 0 ? t * batch + b : b * steps + t) * inner; };
    visitElements(x.dataType(), [&]<typename T>() {
        const T *in = elements<T>(x);
        T *o = mutableElements<T>(*out);
        for (std::int64_t b = 0; b < batch; ++b)
            for (std::int64_t t = 0; t < (*lens)[static_cast<std::size_t>(b)]; ++t)
                std::copy_n(in + offset((*lens)[static_cast<std::size_t>(b)] - 1 - t, b), inner, o + offset(t, b));
    });
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
