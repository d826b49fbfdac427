// Reference kernels of Gelu (ai.portolan's, and the standard op of opset 20) and ai.portolan
// RMSNormalization, computed in double from any float type and stored back at the input's precision.
#include "runtime/KernelContext.h"
#include "runtime/reference/kernels/Broadcast.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/NormalizedAxes.h"

#include "ir/Type.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace portolan::runtime::kernels {

namespace {

/// Input `i` as a DOUBLE tensor, or an error when it is not floating-point.
support::Expected<Tensor> doublesOf(KernelContext &ctx, std::size_t i, const char *what)
{
    const Tensor &t = ctx.input(i);
    if (!isFloatingType(t.dataType()))
        return ctx.error(std::string(what) + " must be a floating-point tensor, not " + ir::dataTypeName(t.dataType()));
    return t.dataType() == TensorProto::DOUBLE ? t : convertTensor(t, TensorProto::DOUBLE);
}

} // namespace

support::Status gelu(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const std::string approximate = ctx.attrString("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
        return ctx.error("approximate must be \"none\" or \"tanh\", not \"" + approximate + "\"");
    auto x = doublesOf(ctx, 0, "X");
    if (!x)
        return x.takeError();
    auto y = ctx.allocate(TensorProto::DOUBLE, x->shape());
    if (!y)
        return y.takeError();
    const double *in = x->data<double>();
    double *out = y->mutableData<double>();
    const double k = std::sqrt(2.0 / std::numbers::pi);
    const bool tanhForm = approximate == "tanh";
    for (std::int64_t i = 0; i < x->size(); ++i) {
        const double v = in[i];
        out[i] = tanhForm ? 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)))
                          : 0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2));
    }
    ctx.setOutput(0, convertTensor(*y, ctx.input(0).dataType()));
    return support::Status::ok();
}

support::Status rmsNormalization(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    auto x = doublesOf(ctx, 0, "X");
    auto scale = doublesOf(ctx, 1, "Scale");
    if (!x || !scale)
        return !x ? x.takeError() : scale.takeError();
    const auto block = normalizedBlock(ctx, *x, ctx.attrInt("axis", -1));
    if (!block)
        return block.error();
    const std::int64_t n = block->second;
    // The scale broadcasts to the normalized dims x[axis:] (the standard op); ai.portolan's may also
    // give their element count in another shape.
    const Shape normalized(x->shape().begin() + block->first, x->shape().end());
    std::vector<double> g(static_cast<std::size_t>(n));
    const auto spread = broadcastShapes({normalized, scale->shape()});
    if (spread && *spread == normalized) {
        BroadcastWalker walk(normalized, {scale->shape()});
        for (std::int64_t i = 0; i < n; ++i, walk.next())
            g[static_cast<std::size_t>(i)] = scale->data<double>()[walk.offset(0)];
    } else if (!ctx.node().domain.empty() && (scale->size() == n || scale->size() == 1)) {
        for (std::int64_t i = 0; i < n; ++i)
            g[static_cast<std::size_t>(i)] = scale->data<double>()[scale->size() == 1 ? 0 : i];
    } else {
        return ctx.error("Scale " + shapeString(scale->shape()) + " does not broadcast to the normalized dims " +
                         shapeString(normalized));
    }
    if (ctx.node().domain.empty()) { // the standard op's moment precision: the reference sums in double
        const std::int64_t stash = ctx.attrInt("stash_type", TensorProto::FLOAT);
        if (stash != TensorProto::FLOAT && stash != TensorProto::DOUBLE && stash != TensorProto::FLOAT16 &&
            stash != TensorProto::BFLOAT16)
            return ctx.error("stash_type " + std::to_string(stash) + " is not a floating-point type");
    }
    auto y = ctx.allocate(TensorProto::DOUBLE, x->shape());
    if (!y)
        return y.takeError();
    const double epsilon = ctx.attrFloat("epsilon", 1e-5f);
    const double *in = x->data<double>();
    double *out = y->mutableData<double>();
    for (std::int64_t r = 0; n > 0 && r < x->size() / n; ++r) {
        const double *row = in + r * n;
        double squares = 0;
        for (std::int64_t i = 0; i < n; ++i)
            squares += row[i] * row[i];
        const double inv = 1.0 / std::sqrt(squares / static_cast<double>(n) + epsilon);
        for (std::int64_t i = 0; i < n; ++i)
            out[r * n + i] = row[i] * inv * g[static_cast<std::size_t>(i)];
    }
    ctx.setOutput(0, convertTensor(*y, ctx.input(0).dataType()));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
