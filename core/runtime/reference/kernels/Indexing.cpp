// Indexing kernels: Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND, Compress,
// OneHot, NonZero (TopK, Unique, CumSum, ArgMax/ArgMin are in Ordering.cpp). Indices are validated before anything is written.
#include "runtime/reference/kernels/DataMovement.h"
#include "support/IntegerArithmetic.h"
#include "runtime/reference/kernels/TensorOps.h"

#include <cmath>
#include <numeric>

namespace portolan::runtime::kernels {

namespace {

/// f(i, offset) for each element i of `shape` in row-major order, offset = Σ coordinate·strides.
template <typename F>
void walkOffsets(const Shape &shape, const Shape &strides, F &&f)
{
    const std::int64_t total = elementCount(shape);
    std::vector<std::int64_t> counter(shape.size(), 0);
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < total; ++i) {
        f(i, offset);
        for (std::size_t d = shape.size(); d-- > 0;) {
            offset += strides[d];
            if (++counter[d] < shape[d])
                break;
            offset -= strides[d] * shape[d];
            counter[d] = 0;
        }
    }
}

/// Indices input `input` (any integer type) as a new int64 tensor wrapped into [0, n); an error names the
/// first index out of range.
support::Expected<Tensor> wrappedIndices(KernelContext &ctx, std::size_t input, std::int64_t n)
{
    const Tensor &t = ctx.input(input);
    auto out = ctx.allocate(TensorProto::INT64, t.shape());
    if (!out)
        return out;
    std::int64_t *o = out->mutableData<std::int64_t>();
    std::int64_t bad = 0;
    bool valid = true;
    if (!visitInteger(t.dataType(), [&]<typename T>() {
            for (std::int64_t i = 0; valid && i < t.size(); ++i) {
                bad = o[i] = static_cast<std::int64_t>(t.data<T>()[i]);
                valid = wrapIndex(o[i], n);
            }
        }))
        return ctx.error("indices must be an integer tensor, got " + ir::dataTypeName(t.dataType()));
    if (!valid)
        return ctx.error("index " + std::to_string(bad) + " is out of range [" + std::to_string(-n) + ", " +
                         std::to_string(n) + ")");
    return out;
}

} // namespace

/// The slices idx[0..m) (valid, non-negative) of `x` along `axis`, in that order (declared in DataMovement.h).
support::Expected<Tensor> take(KernelContext &ctx, const Tensor &x, std::size_t axis, const std::int64_t *idx, std::int64_t m)
{
    Shape shape = x.shape();
    shape[axis] = m;
    auto out = ctx.allocate(x.dataType(), shape);
    if (!out)
        return out;
    const std::int64_t n = x.dim(axis);
    const std::int64_t outer = dimProduct(x.shape(), 0, axis), inner = dimProduct(x.shape(), axis + 1, x.rank());
    if (!visitElements(x.dataType(), [&]<typename T>() {
            const T *in = elements<T>(x);
            T *o = mutableElements<T>(*out);
            for (std::int64_t b = 0; b < outer; ++b)
                for (std::int64_t j = 0; j < m; ++j)
                    std::copy_n(in + (b * n + idx[j]) * inner, inner, o + (b * m + j) * inner);
        }))
        return unsupportedType(ctx, x.dataType());
    return out;
}

// --- gathers

support::Status gather(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 0), x.rank());
    if (!axis)
        return axis.takeError();
    const std::int64_t n = x.dim(*axis);
    auto indices = wrappedIndices(ctx, 1, n);
    if (!indices)
        return indices.takeError();
    Shape shape(x.shape().begin(), x.shape().begin() + static_cast<std::ptrdiff_t>(*axis));
    shape.insert(shape.end(), indices->shape().begin(), indices->shape().end());
    shape.insert(shape.end(), x.shape().begin() + static_cast<std::ptrdiff_t>(*axis) + 1, x.shape().end());
    auto out = take(ctx, x, *axis, indices->data<std::int64_t>(), indices->size());
    if (!out)
        return out.takeError();
    ctx.setOutput(0, out->reshaped(shape));
    return support::Status::ok();
}

namespace {

/// For GatherElements/ScatterElements: the axis, the indices wrapped into its range, and the data offset of
/// each index position with the axis left out (the index itself adds index·stride[axis]).
struct ElementPlan {
    std::size_t axis = 0;
    Tensor indices;
    Shape strides;
};

support::Expected<ElementPlan> elementPlan(KernelContext &ctx, const Tensor &data, const Tensor &indicesInput)
{
    ElementPlan plan;
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 0), data.rank());
    if (!axis)
        return axis.takeError();
    plan.axis = *axis;
    bool fits = indicesInput.rank() == data.rank();
    for (std::size_t d = 0; fits && d < data.rank(); ++d)
        fits = d == plan.axis || indicesInput.dim(d) <= data.dim(d);
    if (!fits)
        return ctx.error("indices " + shapeString(indicesInput.shape()) + " must have the data's rank and no larger dims "
                         "than the data " + shapeString(data.shape()) + " off the axis");
    auto indices = wrappedIndices(ctx, 1, data.dim(plan.axis));
    if (!indices)
        return indices.takeError();
    plan.indices = std::move(*indices);
    plan.strides = stridesOf(data.shape());
    return plan;
}

template <typename F>
void walkElements(const ElementPlan &plan, F &&f) // f(position in indices, data offset)
{
    Shape strides = plan.strides;
    const std::int64_t axisStride = strides[plan.axis];
    strides[plan.axis] = 0;
    const std::int64_t *idx = plan.indices.data<std::int64_t>();
    walkOffsets(plan.indices.shape(), strides, [&](std::int64_t i, std::int64_t base) { f(i, base + idx[i] * axisStride); });
}

enum class Reduction { None, Add, Mul, Max, Min };

support::Expected<Reduction> reductionOf(KernelContext &ctx)
{
    const std::string r = ctx.opset() >= 16 ? ctx.attrString("reduction", "none") : "none";
    if (r == "none")
        return Reduction::None;
    if (r == "add")
        return Reduction::Add;
    if (r == "mul")
        return Reduction::Mul;
    if ((r == "max" || r == "min") && ctx.opset() < 18)
        return ctx.error("reduction '" + r + "' came with opset 18 (the model's is " + std::to_string(ctx.opset()) + ")");
    if (r == "max")
        return Reduction::Max;
    if (r == "min")
        return Reduction::Min;
    return ctx.error("reduction '" + r + "' is not none, add, mul, max or min");
}

/// f(combine) with combine(T &dst, const T &src) applying `r` (the caller admits reductions for numbers only).
template <typename T, typename F>
bool withCombiner(Reduction r, F &&f)
{
    if (r == Reduction::None) {
        f([](T &d, const T &s) { d = s; });
        return true;
    }
    if constexpr (std::is_arithmetic_v<T>) {
        switch (r) {
        case Reduction::Add:
            if constexpr (std::is_integral_v<T>)
                f([](T &d, const T &s) { d = support::wrappingAdd(d, s); });
            else
                f([](T &d, const T &s) { d = static_cast<T>(d + s); });
            break;
        case Reduction::Mul:
            if constexpr (std::is_integral_v<T>)
                f([](T &d, const T &s) { d = support::wrappingMul(d, s); });
            else
                f([](T &d, const T &s) { d = static_cast<T>(d * s); });
            break;
        // max/min propagate NaN (s != s) as numpy's maximum/minimum do
        case Reduction::Max: f([](T &d, const T &s) { d = s > d || s != s ? s : d; }); break;
        default: f([](T &d, const T &s) { d = s < d || s != s ? s : d; }); break;
        }
        return true;
    }
    return false;
}

/// Runs a scatter: out = data, then scatter(out, updates, combine) for T the data's (compute) type.
template <typename F>
support::Status runScatter(KernelContext &ctx, const Tensor &data, const Tensor &updates, F &&scatter)
{
    auto reduction = reductionOf(ctx);
    if (!reduction)
        return reduction.takeError();
    if (updates.dataType() != data.dataType())
        return ctx.error("updates must have the data's element type");
    // Reductions on 16-bit floats are computed in float; plain assignment moves the stored bits.
    const bool compute = *reduction != Reduction::None && isHalfType(data.dataType());
    if (*reduction != Reduction::None && !compute && !visitNumeric(data.dataType(), []<typename T>() {}))
        return ctx.error("a reduction does not take " + ir::dataTypeName(data.dataType()) + " tensors");
    auto out = copyOf(ctx, compute ? toComputeType(data) : data);
    if (!out)
        return out.takeError();
    const Tensor u = compute ? toComputeType(updates) : updates;
    bool done = false;
    visitElements(out->dataType(), [&]<typename T>() {
        done = withCombiner<T>(*reduction, [&](auto combine) { scatter(mutableElements<T>(*out), elements<T>(u), combine); });
    });
    if (!done)
        return unsupportedType(ctx, data.dataType());
    ctx.setOutput(0, fromComputeType(*out, data.dataType()));
    return support::Status::ok();
}

} // namespace

support::Status gatherElements(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    auto plan = elementPlan(ctx, x, ctx.input(1));
    if (!plan)
        return plan.takeError();
    auto out = ctx.allocate(x.dataType(), plan->indices.shape());
    if (!out)
        return out.takeError();
    if (!visitElements(x.dataType(), [&]<typename T>() {
            const T *in = elements<T>(x);
            T *o = mutableElements<T>(*out);
            walkElements(*plan, [&](std::int64_t i, std::int64_t offset) { o[i] = in[offset]; });
        }))
        return unsupportedType(ctx, x.dataType());
    return emit(ctx, std::move(out));
}

support::Status scatterElements(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const Tensor &updates = ctx.input(2);
    if (updates.shape() != ctx.input(1).shape())
        return ctx.error("updates must have the indices' shape");
    auto plan = elementPlan(ctx, x, ctx.input(1));
    if (!plan)
        return plan.takeError();
    return runScatter(ctx, x, updates, [&](auto *o, const auto *u, auto combine) {
        walkElements(*plan, [&](std::int64_t i, std::int64_t offset) { combine(o[offset], u[i]); });
    });
}

namespace {

/// GatherND/ScatterND: each index tuple (the last indices dim, k values) addresses a slice of
/// data.shape[batch + k:]; `offsets` holds each tuple's data offset (batch offset included).
struct TuplePlan {
    Tensor offsets;
    std::int64_t sliceSize = 1;
};

support::Expected<TuplePlan> tuplePlan(KernelContext &ctx, const Tensor &data, const Tensor &indicesInput, std::size_t batch)
{
    const std::size_t q = indicesInput.rank();
    if (q < 1 || batch >= q || batch >= data.rank())
        return ctx.error("indices need rank above batch_dims " + std::to_string(batch) + " and so does the data");
    const auto k = static_cast<std::size_t>(indicesInput.dim(q - 1));
    bool fits = batch + k <= data.rank();
    for (std::size_t d = 0; fits && d < batch; ++d)
        fits = indicesInput.dim(d) == data.dim(d);
    if (!fits)
        return ctx.error("indices " + shapeString(indicesInput.shape()) + " do not address data " +
                         shapeString(data.shape()) + " with batch_dims " + std::to_string(batch));
    auto indices = indicesAsInt64(ctx, indicesInput, "indices");
    if (!indices)
        return indices.takeError();
    const Shape strides = stridesOf(data.shape());
    TuplePlan plan;
    plan.sliceSize = dimProduct(data.shape(), batch + k, data.rank());
    Shape tupleShape(indicesInput.shape().begin(), indicesInput.shape().end() - 1);
    auto offsets = ctx.allocate(TensorProto::INT64, tupleShape);
    if (!offsets)
        return offsets.takeError();
    const std::int64_t perBatch = dimProduct(tupleShape, batch, tupleShape.size());
    const std::int64_t batchStride = batch ? strides[batch - 1] : 0;
    const std::int64_t *idx = indices->data<std::int64_t>();
    std::int64_t *off = offsets->mutableData<std::int64_t>();
    for (std::int64_t t = 0; t < offsets->size(); ++t) {
        std::int64_t offset = (t / std::max<std::int64_t>(perBatch, 1)) * batchStride;
        for (std::size_t j = 0; j < k; ++j) {
            const std::int64_t given = idx[t * static_cast<std::int64_t>(k) + static_cast<std::int64_t>(j)];
            std::int64_t v = given;
            if (!wrapIndex(v, data.dim(batch + j)))
                return ctx.error("index " + std::to_string(given) + " is out of range for data axis " +
                                 std::to_string(batch + j) + " of size " + std::to_string(data.dim(batch + j)));
            offset += v * strides[batch + j];
        }
        off[t] = offset;
    }
    plan.offsets = std::move(*offsets);
    return plan;
}

} // namespace

support::Status gatherND(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const std::int64_t batch = ctx.opset() >= 12 ? ctx.attrInt("batch_dims", 0) : 0;
    if (batch < 0)
        return ctx.error("batch_dims must not be negative");
    auto plan = tuplePlan(ctx, x, ctx.input(1), static_cast<std::size_t>(batch));
    if (!plan)
        return plan.takeError();
    Shape shape = plan->offsets.shape();
    const std::size_t k = static_cast<std::size_t>(ctx.input(1).shape().back());
    shape.insert(shape.end(), x.shape().begin() + static_cast<std::ptrdiff_t>(batch) + static_cast<std::ptrdiff_t>(k),
                 x.shape().end());
    auto out = ctx.allocate(x.dataType(), shape);
    if (!out)
        return out.takeError();
    const std::int64_t *off = plan->offsets.data<std::int64_t>();
    const std::int64_t size = plan->sliceSize;
    if (!visitElements(x.dataType(), [&]<typename T>() {
            const T *in = elements<T>(x);
            T *o = mutableElements<T>(*out);
            for (std::int64_t t = 0; t < plan->offsets.size(); ++t)
                std::copy_n(in + off[t], size, o + t * size);
        }))
        return unsupportedType(ctx, x.dataType());
    return emit(ctx, std::move(out));
}

support::Status scatterND(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const Tensor &updates = ctx.input(2);
    auto plan = tuplePlan(ctx, x, ctx.input(1), 0);
    if (!plan)
        return plan.takeError();
    Shape expected = plan->offsets.shape();
    const std::size_t k = static_cast<std::size_t>(ctx.input(1).shape().back());
    expected.insert(expected.end(), x.shape().begin() + static_cast<std::ptrdiff_t>(k), x.shape().end());
    if (updates.shape() != expected)
        return ctx.error("updates must have shape " + shapeString(expected));
    const std::int64_t *off = plan->offsets.data<std::int64_t>();
    const std::int64_t size = plan->sliceSize;
    return runScatter(ctx, x, updates, [&](auto *o, const auto *u, auto combine) {
        for (std::int64_t t = 0; t < plan->offsets.size(); ++t)
            for (std::int64_t i = 0; i < size; ++i)
                combine(o[off[t] + i], u[t * size + i]);
    });
}

support::Status compress(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &condition = ctx.input(1);
    if (condition.dataType() != TensorProto::BOOL || condition.rank() != 1)
        return ctx.error("condition must be a 1-D bool tensor");
    const bool hasAxis = ctx.hasAttribute("axis");
    const Tensor x = hasAxis ? ctx.input(0) : ctx.input(0).reshaped({ctx.input(0).size()});
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", 0), x.rank());
    if (!axis)
        return axis.takeError();
    const std::int64_t n = x.dim(*axis);
    std::vector<std::int64_t> selected;
    const std::uint8_t *c = condition.data<std::uint8_t>();
    for (std::int64_t j = 0; j < condition.size(); ++j)
        if (c[j]) {
            if (j >= n)
                return ctx.error("condition selects slice " + std::to_string(j) + " of an axis of " + std::to_string(n));
            selected.push_back(j);
        }
    return emit(ctx, take(ctx, x, *axis, selected.data(), static_cast<std::int64_t>(selected.size())));
}

support::Status oneHot(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &indices = ctx.input(0);
    const Tensor &values = ctx.input(2);
    auto depthValue = scalarNumber(ctx, ctx.input(1), "depth");
    if (!depthValue)
        return depthValue.takeError();
    if (!(*depthValue >= 0 && *depthValue < 9.0e18))
        return ctx.error("depth must be a non-negative number");
    const auto depth = static_cast<std::int64_t>(*depthValue);
    if (values.size() != 2)
        return ctx.error("values must hold [off_value, on_value]");
    auto axis = normalizeAxis(ctx, ctx.attrInt("axis", -1), indices.rank() + 1);
    if (!axis)
        return axis.takeError();
    Shape shape = indices.shape();
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(*axis), depth);
    auto out = ctx.allocate(values.dataType(), shape);
    if (!out)
        return out.takeError();
    const std::int64_t outer = dimProduct(indices.shape(), 0, *axis);
    const std::int64_t inner = dimProduct(indices.shape(), *axis, indices.rank());
    // The one-hot position of each index, or -1 outside [-depth, depth) (such entries are all off_value).
    std::vector<std::int64_t> hot(static_cast<std::size_t>(indices.size()), -1);
    const Tensor idx = toComputeType(indices);
    if (!visitNumeric(idx.dataType(), [&]<typename T>() {
            for (std::int64_t i = 0; i < idx.size(); ++i) {
                const T v = idx.data<T>()[i];
                if (!(static_cast<double>(v) > -9.0e18 && static_cast<double>(v) < 9.0e18)) // NaN too
                    continue;
                std::int64_t h = static_cast<std::int64_t>(v);
                if (wrapIndex(h, depth))
                    hot[static_cast<std::size_t>(i)] = h;
            }
        }))
        return ctx.error("indices must be numeric");
    if (!visitElements(values.dataType(), [&]<typename T>() {
            T *o = mutableElements<T>(*out);
            std::fill_n(o, out->size(), elements<T>(values)[0]);
            for (std::int64_t b = 0; b < outer; ++b)
                for (std::int64_t i = 0; i < inner; ++i)
                    if (const std::int64_t h = hot[static_cast<std::size_t>(b * inner + i)]; h >= 0)
                        o[(b * depth + h) * inner + i] = elements<T>(values)[1];
        }))
        return unsupportedType(ctx, values.dataType());
    return emit(ctx, std::move(out));
}

support::Status nonZero(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const Shape shape = x.rank() == 0 ? Shape{1} : x.shape(); // a scalar counts as one element, as in numpy
    const bool half = isHalfType(x.dataType());
    std::vector<bool> nonzero(static_cast<std::size_t>(x.size()));
    if (!visitElements(x.dataType(), [&]<typename T>() {
            const T *p = elements<T>(x);
            for (std::int64_t i = 0; i < x.size(); ++i) {
                if constexpr (std::is_same_v<T, std::string>)
                    nonzero[static_cast<std::size_t>(i)] = !p[i].empty();
                else if constexpr (std::is_same_v<T, std::uint16_t>)
                    nonzero[static_cast<std::size_t>(i)] = (half ? p[i] & 0x7fff : p[i]) != 0; // ±0 are zero
                else
                    nonzero[static_cast<std::size_t>(i)] = p[i] != T(0);
            }
        }))
        return unsupportedType(ctx, x.dataType());
    const auto count = static_cast<std::int64_t>(std::count(nonzero.begin(), nonzero.end(), true));
    auto out = ctx.allocate(TensorProto::INT64, {static_cast<std::int64_t>(shape.size()), count});
    if (!out)
        return out.takeError();
    std::int64_t *o = out->mutableData<std::int64_t>();
    std::vector<std::int64_t> coordinate(shape.size(), 0);
    std::int64_t k = 0;
    for (std::int64_t i = 0; i < x.size(); ++i) {
        if (nonzero[static_cast<std::size_t>(i)]) {
            for (std::size_t d = 0; d < shape.size(); ++d)
                o[static_cast<std::int64_t>(d) * count + k] = coordinate[d];
            ++k;
        }
        for (std::size_t d = shape.size(); d-- > 0;) {
            if (++coordinate[d] < shape[d])
                break;
            coordinate[d] = 0;
        }
    }
    return emit(ctx, std::move(out));
}

} // namespace portolan::runtime::kernels
