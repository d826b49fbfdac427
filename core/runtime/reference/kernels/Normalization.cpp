// Normalizations (BatchNormalization, InstanceNormalization, LpNormalization, LayerNormalization, LRN,
// MeanVarianceNormalization) and the losses NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
// Statistics are two-pass (mean, then squared deviations) in double.
#include "runtime/KernelContext.h"
#include "runtime/reference/kernels/Accumulation.h"
#include "runtime/Dispatch.h"

#include "ir/Type.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace portolan::runtime::kernels {

namespace {

/// A float-typed tensor's values as a DOUBLE tensor (allocated through the budget).
support::Expected<Tensor> toDoubles(KernelContext &ctx, const Tensor &t, const char *what)
{
    const Tensor src = toComputeType(t);
    auto out = ctx.allocate(TensorProto::DOUBLE, src.shape());
    if (!out)
        return out.takeError();
    double *dst = out->mutableData<double>();
    if (!visitFloat(src.dataType(), [&]<typename T>() { std::copy(src.data<T>(), src.data<T>() + src.size(), dst); }))
        return ctx.error(std::string(what) + " must be a floating-point tensor, not " + ir::dataTypeName(t.dataType()));
    return std::move(*out);
}

/// Per-element scale and bias: parameter p of element i is (i / inner) % count. Absent → identity.
struct Affine {
    const double *scale = nullptr;
    const double *bias = nullptr;
    std::int64_t inner = 1;
    std::int64_t count = 1;
};

/// mean[g] and var[g] (population) of every group of the plan.
template <typename T>
void computeMoments(const ReducePlan &plan, const T *x, double *mean, double *var)
{
    std::fill(mean, mean + plan.outCount, 0.0);
    std::fill(var, var + plan.outCount, 0.0);
    walkPlan(plan, [&](std::int64_t in, std::int64_t out, std::int64_t length, std::int64_t step) {
        for (std::int64_t i = 0; i < length; ++i)
            mean[out + i * step] += static_cast<double>(x[in + i]);
    });
    const auto n = static_cast<double>(plan.groupSize);
    for (std::int64_t g = 0; g < plan.outCount; ++g)
        mean[g] /= n;
    walkPlan(plan, [&](std::int64_t in, std::int64_t out, std::int64_t length, std::int64_t step) {
        for (std::int64_t i = 0; i < length; ++i) {
            const double d = static_cast<double>(x[in + i]) - mean[out + i * step];
            var[out + i * step] += d * d;
        }
    });
    for (std::int64_t g = 0; g < plan.outCount; ++g)
        var[g] /= n;
}

/// y = (x - mean[g]) · invStd[g] · scale[p] + bias[p] for every element, g its group in the plan.
template <typename T>
void applyNormalization(const ReducePlan &plan, const T *x, T *y, const double *mean, const double *invStd,
                        const Affine &affine)
{
    walkPlan(plan, [&](std::int64_t in, std::int64_t out, std::int64_t length, std::int64_t step) {
        std::int64_t p = (in / affine.inner) % affine.count, sub = in % affine.inner;
        for (std::int64_t i = 0; i < length; ++i) {
            const std::int64_t g = out + i * step;
            double v = (static_cast<double>(x[in + i]) - mean[g]) * invStd[g];
            if (affine.scale)
                v *= affine.scale[p];
            if (affine.bias)
                v += affine.bias[p];
            y[in + i] = static_cast<T>(v);
            if (++sub == affine.inner) {
                sub = 0;
                p = p + 1 == affine.count ? 0 : p + 1;
            }
        }
    });
}

/// Scratch of `count` doubles from the budget.
support::Expected<Tensor> scratch(KernelContext &ctx, std::int64_t count)
{
    return ctx.allocate(TensorProto::DOUBLE, {count});
}

/// Standardizes input 0 over the `reduced` axes; `epsilon` < 0 selects MVN's 1 / (σ + 1e-9).
/// With `stats`, the mean and variance come from there instead of from the data (inference BatchNorm).
/// `onMoments` sees the per-group mean and variance that were used.
/// `viewShape` (empty: input 0's own) reads input 0 under another shape of the same element order,
/// so the reduced axes can be groups of channels; the output keeps input 0's shape.
template <typename OnMoments>
support::Status standardize(KernelContext &ctx, const std::vector<bool> &reduced, double epsilon, const Affine &affine,
                            const double *statsMean, const double *statsVar, OnMoments &&onMoments,
                            const Shape &viewShape = {})
{
    const Tensor in = toComputeType(viewShape.empty() ? ctx.input(0) : ctx.input(0).reshaped(viewShape));
    const ReducePlan plan = makePlan(in.shape(), reduced);
    auto out = ctx.allocate(in.dataType(), in.shape());
    auto mean = scratch(ctx, plan.outCount);
    auto var = scratch(ctx, plan.outCount);
    auto invStd = scratch(ctx, plan.outCount);
    if (!out || !mean || !var || !invStd)
        return !out ? out.takeError() : !mean ? mean.takeError() : !var ? var.takeError() : invStd.takeError();
    double *m = mean->mutableData<double>(), *v = var->mutableData<double>(), *s = invStd->mutableData<double>();
    const bool known = visitFloat(in.dataType(), [&]<typename T>() {
        if (statsMean) {
            std::copy(statsMean, statsMean + plan.outCount, m);
            std::copy(statsVar, statsVar + plan.outCount, v);
        } else {
            computeMoments(plan, in.data<T>(), m, v);
        }
        for (std::int64_t g = 0; g < plan.outCount; ++g)
            s[g] = epsilon < 0 ? 1.0 / (std::sqrt(v[g]) + 1e-9) : 1.0 / std::sqrt(v[g] + epsilon);
        applyNormalization(plan, in.data<T>(), out->mutableData<T>(), m, s, affine);
    });
    if (!known)
        return ctx.error("needs a floating-point input, not " + ir::dataTypeName(in.dataType()));
    ctx.setOutput(0, fromComputeType(out->reshaped(ctx.input(0).shape()), ctx.input(0).dataType()));
    return onMoments(m, v, s);
}

/// Reads parameter input `i`, which must hold `count` values.
support::Expected<Tensor> parameter(KernelContext &ctx, std::size_t i, std::int64_t count, const char *what)
{
    const Tensor &t = ctx.input(i);
    if (t.size() != count)
        return ctx.error(std::string(what) + " " + shapeString(t.shape()) + " must have " + std::to_string(count) +
                         " elements");
    return toDoubles(ctx, t, what);
}

/// Writes `values` (double) as a tensor of `dataType` and `shape` to output `i`, if wanted.
support::Status emit(KernelContext &ctx, std::size_t i, const double *values, int dataType, const Shape &shape)
{
    if (!ctx.wantsOutput(i))
        return support::Status::ok();
    auto t = ctx.allocate(TensorProto::DOUBLE, shape);
    if (!t)
        return t.takeError();
    std::copy(values, values + t->size(), t->mutableData<double>());
    ctx.setOutput(i, convertTensor(*t, dataType));
    return support::Status::ok();
}

support::Status checkChannels(KernelContext &ctx, const Tensor &x)
{
    if (x.rank() < 2)
        return ctx.error("needs an input of rank 2 or more [N, C, ...]");
    return support::Status::ok();
}

} // namespace

support::Status batchNormalization(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(5); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (auto st = checkChannels(ctx, x); !st)
        return st;
    const std::int64_t channels = x.dim(1), spatial = x.size() / std::max<std::int64_t>(1, x.dim(0) * channels);
    const bool training = ctx.opset() >= 14 ? ctx.attrInt("training_mode", 0) != 0
                                            : ctx.attrInt("is_test", 0) == 0 && ctx.outputCount() > 1;
    // Opsets before 9 with spatial=0 keep one parameter per (channel, position).
    const bool perPosition = ctx.opset() < 9 && ctx.attrInt("spatial", 1) == 0;
    const std::int64_t count = perPosition ? channels * spatial : channels;
    auto scale = parameter(ctx, 1, count, "scale");
    auto bias = parameter(ctx, 2, count, "B");
    auto mean = parameter(ctx, 3, count, "mean");
    auto var = parameter(ctx, 4, count, "var");
    if (!scale || !bias || !mean || !var)
        return !scale ? scale.takeError() : !bias ? bias.takeError() : !mean ? mean.takeError() : var.takeError();

    std::vector<bool> reduced(x.rank(), !perPosition); // groups: channels, or (channel, position)
    reduced[0] = true;
    reduced[1] = false;
    const Affine affine{scale->data<double>(), bias->data<double>(), perPosition ? 1 : spatial, count};
    const double epsilon = ctx.attrFloat("epsilon", 1e-5f);
    const double momentum = ctx.attrFloat("momentum", 0.9f);
    const double *runningMean = mean->data<double>(), *runningVar = var->data<double>();
    return standardize(ctx, reduced, epsilon, affine, training ? nullptr : runningMean, training ? nullptr : runningVar,
                       [&](const double *m, const double *v, const double *) -> support::Status {
                           if (!training)
                               return support::Status::ok();
                           std::vector<double> newMean(static_cast<std::size_t>(count)), newVar(newMean.size());
                           for (std::int64_t c = 0; c < count; ++c) {
                               newMean[c] = runningMean[c] * momentum + m[c] * (1 - momentum);
                               newVar[c] = runningVar[c] * momentum + v[c] * (1 - momentum);
                           }
                           const Shape shape = ctx.input(3).shape();
                           const int type = ctx.input(3).dataType();
                           support::Status st = emit(ctx, 1, newMean.data(), type, shape);
                           if (st)
                               st = emit(ctx, 2, newVar.data(), type, shape);
                           if (st && ctx.opset() < 14) // saved mean and variance of this batch
                               st = emit(ctx, 3, m, type, shape);
                           if (st && ctx.opset() < 14)
                               st = emit(ctx, 4, v, type, shape);
                           return st;
                       });
}

support::Status instanceNormalization(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (auto st = checkChannels(ctx, x); !st)
        return st;
    const std::int64_t channels = x.dim(1), spatial = x.size() / std::max<std::int64_t>(1, x.dim(0) * channels);
    auto scale = parameter(ctx, 1, channels, "scale");
    auto bias = parameter(ctx, 2, channels, "B");
    if (!scale || !bias)
        return !scale ? scale.takeError() : bias.takeError();
    std::vector<bool> reduced(x.rank(), true);
    reduced[0] = reduced[1] = false;
    const Affine affine{scale->data<double>(), bias->data<double>(), spatial, channels};
    return standardize(ctx, reduced, ctx.attrFloat("epsilon", 1e-5f), affine, nullptr, nullptr,
                       [](const double *, const double *, const double *) { return support::Status::ok(); });
}

/// LpNormalization: x divided by its L1 or L2 norm along `axis`. A zero norm gives zeros (the spec
/// is silent; ONNX Runtime writes 0, where 0/0 would be NaN).
support::Status lpNormalization(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const std::int64_t p = ctx.attrInt("p", 2);
    if (p != 1 && p != 2)
        return ctx.error("p = " + std::to_string(p) + "; LpNormalization takes 1 or 2");
    const auto rank = static_cast<std::int64_t>(x.rank());
    std::int64_t axis = ctx.attrInt("axis", -1);
    if (rank == 0 || axis < -rank || axis >= rank)
        return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    axis = axis < 0 ? axis + rank : axis;
    auto values = toDoubles(ctx, x, "input");
    if (!values)
        return values.takeError();
    const std::int64_t extent = x.dim(static_cast<std::size_t>(axis));
    std::int64_t inner = 1;
    for (std::int64_t d = axis + 1; d < rank; ++d)
        inner *= x.dim(static_cast<std::size_t>(d));
    const std::int64_t outer = extent * inner == 0 ? 0 : x.size() / (extent * inner);
    double *v = values->mutableData<double>();
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
            double *line = v + o * extent * inner + i;
            double norm = 0;
            for (std::int64_t k = 0; k < extent; ++k)
                norm += p == 1 ? std::abs(line[k * inner]) : line[k * inner] * line[k * inner];
            norm = p == 1 ? norm : std::sqrt(norm);
            for (std::int64_t k = 0; k < extent; ++k)
                line[k * inner] = norm == 0 ? 0.0 : line[k * inner] / norm;
        }
    return emit(ctx, 0, values->data<double>(), x.dataType(), x.shape());
}

/// GroupNormalization: moments over each group of num_groups channels (and the spatial dims). Opset
/// 18 scales and shifts per group (scale and bias have num_groups values), opset 21 per channel.
support::Status groupNormalization(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (auto st = checkChannels(ctx, x); !st)
        return st;
    const std::int64_t groups = ctx.attrInt("num_groups", 0), channels = x.dim(1);
    if (groups < 1 || channels % groups != 0)
        return ctx.error("num_groups " + std::to_string(groups) + " does not divide the " + std::to_string(channels) +
                         " channels");
    const std::int64_t spatial = x.size() / std::max<std::int64_t>(1, x.dim(0) * channels);
    const bool perGroup = ctx.opset() < 21;
    const std::int64_t parameters = perGroup ? groups : channels;
    auto scale = parameter(ctx, 1, parameters, "scale");
    auto bias = parameter(ctx, 2, parameters, "bias");
    if (!scale || !bias)
        return !scale ? scale.takeError() : bias.takeError();
    // stash_type (21) names the precision of the moments; the reference computes them in double
    const std::int64_t perGroupElements = channels / groups * spatial;
    const Affine affine{scale->data<double>(), bias->data<double>(), perGroup ? perGroupElements : spatial, parameters};
    return standardize(ctx, {false, false, true}, ctx.attrFloat("epsilon", 1e-5f), affine, nullptr, nullptr,
                       [](const double *, const double *, const double *) { return support::Status::ok(); },
                       Shape{x.dim(0), groups, perGroupElements});
}

support::Status layerNormalization(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const auto rank = static_cast<std::int64_t>(x.rank());
    std::int64_t axis = ctx.attrInt("axis", -1);
    if (axis < -rank || axis >= rank)
        return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    axis = axis < 0 ? axis + rank : axis;
    std::int64_t normalized = 1;
    for (std::int64_t i = axis; i < rank; ++i)
        normalized *= x.dim(static_cast<std::size_t>(i));
    // Scale and B span the normalized dims (or are a single value broadcast over them).
    const auto sized = [&](std::size_t i, const char *what) -> support::Expected<Tensor> {
        const std::int64_t n = ctx.input(i).size();
        return parameter(ctx, i, n == 1 ? 1 : normalized, what);
    };
    auto scale = sized(1, "Scale");
    if (!scale)
        return scale.takeError();
    Tensor bias;
    if (ctx.hasInput(2)) {
        auto b = sized(2, "B");
        if (!b)
            return b.takeError();
        bias = std::move(*b);
    }
    if (scale->size() != (bias.defined() ? bias.size() : scale->size()))
        return ctx.error("Scale and B must have the same number of elements");
    std::vector<bool> reduced(x.rank(), false);
    for (std::int64_t i = axis; i < rank; ++i)
        reduced[static_cast<std::size_t>(i)] = true;
    const Affine affine{scale->data<double>(), bias.defined() ? bias.data<double>() : nullptr, 1, scale->size()};
    const int stashType = static_cast<int>(ctx.attrInt("stash_type", TensorProto::FLOAT));
    if (stashType != TensorProto::FLOAT && stashType != TensorProto::DOUBLE && !isHalfType(stashType))
        return ctx.error("stash_type " + std::to_string(stashType) + " is not a floating-point type");
    Shape statsShape = x.shape();
    std::fill(statsShape.begin() + axis, statsShape.end(), 1);
    return standardize(ctx, reduced, ctx.attrFloat("epsilon", 1e-5f), affine, nullptr, nullptr,
                       [&](const double *m, const double *, const double *s) {
                           support::Status st = emit(ctx, 1, m, stashType, statsShape);
                           return st ? emit(ctx, 2, s, stashType, statsShape) : st;
                       });
}

support::Status meanVarianceNormalization(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const auto rank = static_cast<std::int64_t>(x.rank());
    std::vector<std::int64_t> axes = ctx.hasAttribute("axes") ? ctx.attrInts("axes") : std::vector<std::int64_t>{0, 2, 3};
    std::vector<bool> reduced(x.rank(), false);
    for (std::int64_t axis : axes) {
        if (axis < -rank || axis >= rank)
            return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
        reduced[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)] = true;
    }
    return standardize(ctx, reduced, -1.0, Affine{}, nullptr, nullptr,
                       [](const double *, const double *, const double *) { return support::Status::ok(); });
}

support::Status lrn(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor in = toComputeType(ctx.input(0));
    if (auto st = checkChannels(ctx, in); !st)
        return st;
    const std::int64_t size = ctx.attrInt("size", 0);
    if (size <= 0)
        return ctx.error("the size attribute must be positive");
    const double alpha = ctx.attrFloat("alpha", 1e-4f), beta = ctx.attrFloat("beta", 0.75f), bias = ctx.attrFloat("bias", 1.0f);
    const std::int64_t channels = in.dim(1), spatial = in.size() / std::max<std::int64_t>(1, in.dim(0) * channels);
    const std::int64_t before = (size - 1) / 2, after = size - 1 - before; // floor and ceil of (size-1)/2
    auto out = ctx.allocate(in.dataType(), in.shape());
    if (!out)
        return out.takeError();
    const bool known = visitFloat(in.dataType(), [&]<typename T>() {
        const T *x = in.data<T>();
        T *y = out->mutableData<T>();
        for (std::int64_t n = 0; n < in.dim(0); ++n)
            for (std::int64_t c = 0; c < channels; ++c)
                for (std::int64_t s = 0; s < spatial; ++s) {
                    const std::int64_t base = n * channels * spatial + s;
                    double squares = 0;
                    for (std::int64_t k = std::max<std::int64_t>(0, c - before); k <= std::min(channels - 1, c + after); ++k) {
                        const double v = static_cast<double>(x[base + k * spatial]);
                        squares += v * v;
                    }
                    const double v = static_cast<double>(x[base + c * spatial]);
                    y[base + c * spatial] = static_cast<T>(v / std::pow(bias + alpha / static_cast<double>(size) * squares, beta));
                }
    });
    if (!known)
        return ctx.error("needs a floating-point input, not " + ir::dataTypeName(in.dataType()));
    ctx.setOutput(0, fromComputeType(*out, ctx.input(0).dataType()));
    return support::Status::ok();
}

namespace {

/// The NLL of log-probabilities `logProb` [N, C, D] (flattened) for `target` [N, D], written as
/// output 0 in `dataType`: per element for reduction "none", else a scalar sum or weighted mean.
template <typename T>
support::Status negativeLogLikelihood(KernelContext &ctx, const T *logProb, const Shape &inputShape, int dataType)
{
    const Tensor &target = ctx.input(1);
    if (target.dataType() != TensorProto::INT64 && target.dataType() != TensorProto::INT32)
        return ctx.error("the target must be int32 or int64, not " + ir::dataTypeName(target.dataType()));
    if (inputShape.size() < 2)
        return ctx.error("the input must be [N, C] or [N, C, d1, ...]");
    Shape expected = inputShape;
    expected.erase(expected.begin() + 1);
    if (target.shape() != expected)
        return ctx.error("the target must have shape " + shapeString(expected));
    const std::int64_t classes = inputShape[1], n = inputShape[0];
    const std::int64_t d = n == 0 ? 0 : target.size() / n;
    Tensor weight;
    if (ctx.hasInput(2)) {
        auto w = parameter(ctx, 2, classes, "weight");
        if (!w)
            return w.takeError();
        weight = std::move(*w);
    }
    const std::string reduction = ctx.attrString("reduction", "mean");
    if (reduction != "none" && reduction != "sum" && reduction != "mean")
        return ctx.error("unknown reduction '" + reduction + "'");
    const bool hasIgnore = ctx.hasAttribute("ignore_index");
    const std::int64_t ignore = ctx.attrInt("ignore_index", 0);

    auto losses = ctx.allocate(TensorProto::DOUBLE, target.shape());
    if (!losses)
        return losses.takeError();
    double *loss = losses->mutableData<double>();
    double lossSum = 0, weightSum = 0;
    for (std::int64_t i = 0; i < target.size(); ++i) {
        const std::int64_t t = target.dataType() == TensorProto::INT64 ? target.data<std::int64_t>()[i] : target.data<std::int32_t>()[i];
        if (hasIgnore && t == ignore)
            continue;
        if (t < 0 || t >= classes)
            return ctx.error("target " + std::to_string(t) + " is outside [0, " + std::to_string(classes) + ")");
        const double w = weight.defined() ? weight.data<double>()[t] : 1.0;
        const std::int64_t batch = i / std::max<std::int64_t>(d, 1), position = i % std::max<std::int64_t>(d, 1);
        loss[i] = -static_cast<double>(logProb[(batch * classes + t) * d + position]) * w;
        lossSum += loss[i];
        weightSum += w;
    }
    if (reduction == "none") {
        ctx.setOutput(0, convertTensor(*losses, dataType));
    } else {
        const double value = reduction == "sum" ? lossSum : lossSum / weightSum;
        ctx.setOutput(0, convertTensor(Tensor::fromVector<double>(TensorProto::DOUBLE, {}, {value}), dataType));
    }
    return support::Status::ok();
}

} // namespace

support::Status negativeLogLikelihoodLoss(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor in = toComputeType(ctx.input(0));
    support::Status status;
    if (!visitFloat(in.dataType(), [&]<typename T>() {
            status = negativeLogLikelihood(ctx, in.data<T>(), in.shape(), ctx.input(0).dataType());
        }))
        return ctx.error("the input must be a floating-point tensor, not " + ir::dataTypeName(in.dataType()));
    return status;
}

support::Status softmaxCrossEntropyLoss(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor in = toComputeType(ctx.input(0));
    if (in.rank() < 2)
        return ctx.error("the scores must be [N, C] or [N, C, d1, ...]");
    const std::int64_t classes = in.dim(1), d = in.size() / std::max<std::int64_t>(1, in.dim(0) * classes);
    auto logProb = ctx.allocate(TensorProto::DOUBLE, in.shape());
    if (!logProb)
        return logProb.takeError();
    double *lp = logProb->mutableData<double>();
    // log_softmax along the class axis, shifted by the max so large scores stay finite.
    if (!visitFloat(in.dataType(), [&]<typename T>() {
            const T *x = in.data<T>();
            for (std::int64_t n = 0; n < in.dim(0); ++n)
                for (std::int64_t p = 0; p < d; ++p) {
                    const std::int64_t base = n * classes * d + p;
                    double maxValue = -std::numeric_limits<double>::infinity();
                    for (std::int64_t c = 0; c < classes; ++c)
                        maxValue = std::max(maxValue, static_cast<double>(x[base + c * d]));
                    const double shift = std::isfinite(maxValue) ? maxValue : 0.0;
                    double sum = 0;
                    for (std::int64_t c = 0; c < classes; ++c)
                        sum += std::exp(static_cast<double>(x[base + c * d]) - shift);
                    const double logSum = std::log(sum) + shift;
                    for (std::int64_t c = 0; c < classes; ++c)
                        lp[base + c * d] = static_cast<double>(x[base + c * d]) - logSum;
                }
        }))
        return ctx.error("the scores must be a floating-point tensor, not " + ir::dataTypeName(in.dataType()));
    if (auto st = negativeLogLikelihood(ctx, static_cast<const double *>(lp), in.shape(), ctx.input(0).dataType()); !st)
        return st;
    if (ctx.wantsOutput(1))
        ctx.setOutput(1, convertTensor(*logProb, ctx.input(0).dataType()));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
