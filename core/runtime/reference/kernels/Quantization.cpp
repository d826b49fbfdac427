// Quantization kernels: QuantizeLinear and DequantizeLinear (per tensor, or per axis from opset 13),
// DynamicQuantizeLinear, and MatMulInteger / QLinearMatMul as exact int64 sums through the blocked GEMM.
// Arithmetic follows the ONNX reference: x / scale in float, rounded half to even, then saturated.
#include "runtime/reference/KernelContext.h"
#include "runtime/reference/kernels/Broadcast.h"
#include "runtime/reference/kernels/Dispatch.h"
#include "runtime/reference/kernels/Spatial.h"

#include "ir/Type.h"

#include <cmath>

namespace portolan::runtime::kernels {

namespace {

/// Where per-axis parameters apply: element i uses parameter (i / inner) % count.
struct AxisLayout {
    std::int64_t inner = 1, count = 1;
};

support::Expected<AxisLayout> axisLayout(KernelContext &ctx, const Tensor &x, const Tensor &scale)
{
    if (scale.size() == 1)
        return AxisLayout{};
    if (ctx.opset() < 13 || scale.rank() != 1)
        return ctx.error(std::string("the scale must be a scalar") + (ctx.opset() >= 13 ? " or 1-D" : "") + ", got " +
                         shapeString(scale.shape()));
    const auto rank = static_cast<std::int64_t>(x.rank());
    std::int64_t axis = ctx.attrInt("axis", 1);
    if (axis < -rank || axis >= rank)
        return ctx.error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    axis = axis < 0 ? axis + rank : axis;
    AxisLayout layout;
    layout.count = x.dim(static_cast<std::size_t>(axis));
    for (std::size_t i = static_cast<std::size_t>(axis) + 1; i < x.rank(); ++i)
        layout.inner *= x.dim(i);
    return layout;
}

std::size_t channelOf(std::int64_t i, const AxisLayout &l, std::size_t params)
{
    return params == 1 ? 0 : static_cast<std::size_t>((i / l.inner) % l.count);
}

/// Numpy matmul shapes: A [..., M, K] times B [..., K, N], batch dims broadcast, 1-D operands promoted.
struct MatMulShape {
    std::int64_t M = 1, K = 1, N = 1;
    Shape aBatch, bBatch, batch, output;
};

support::Expected<MatMulShape> matMulShape(KernelContext &ctx, const Tensor &a, const Tensor &b)
{
    if (a.rank() == 0 || b.rank() == 0)
        return ctx.error("A and B must have rank 1 or more");
    Shape as = a.shape(), bs = b.shape();
    if (as.size() == 1)
        as.insert(as.begin(), 1);
    if (bs.size() == 1)
        bs.push_back(1);
    MatMulShape mm;
    mm.M = as[as.size() - 2];
    mm.K = as.back();
    mm.N = bs.back();
    if (bs[bs.size() - 2] != mm.K)
        return ctx.error("A " + shapeString(a.shape()) + " and B " + shapeString(b.shape()) + " do not multiply");
    mm.aBatch.assign(as.begin(), as.end() - 2);
    mm.bBatch.assign(bs.begin(), bs.end() - 2);
    auto batch = broadcastShapes({mm.aBatch, mm.bBatch});
    if (!batch)
        return ctx.error("the batch dims of A " + shapeString(a.shape()) + " and B " + shapeString(b.shape()) +
                         " do not broadcast");
    mm.batch = *batch;
    mm.output = mm.batch;
    if (a.rank() > 1)
        mm.output.push_back(mm.M);
    if (b.rank() > 1)
        mm.output.push_back(mm.N);
    return mm;
}

/// Σ_k a·b per batch; store(batchIndex, m, n0, acc, count) receives row m's sums for columns n0 … n0+count.
template <typename Store>
void batchedGemm(const MatMulShape &mm, const std::int32_t *a, const std::int32_t *b, Store &&store)
{
    BroadcastWalker walk(mm.batch, {mm.aBatch, mm.bBatch});
    const std::int64_t batches = elementCount(mm.batch);
    for (std::int64_t bi = 0; bi < batches; ++bi, walk.next())
        blockedGemm<std::int64_t>(a + walk.offset(0) * mm.M * mm.K, b + walk.offset(1) * mm.K * mm.N, mm.M, mm.K, mm.N,
                                  [&](std::int64_t m, std::int64_t n0, const std::int64_t *acc, std::int64_t count) {
                                      store(bi, m, n0, acc, count);
                                  });
}

} // namespace

/// Later versions' attributes the kernels do not implement yet: a clear error, never a silent default.
/// (saturate only changes float8 outputs, which are refused by element type.)
static support::Status checkUnimplemented(KernelContext &ctx, int outputType)
{
    if (const std::int64_t block = ctx.attrInt("block_size", 0); block != 0)
        return ctx.error("blocked quantization (block_size " + std::to_string(block) + ") is not implemented yet");
    if (const std::int64_t precision = ctx.attrInt("precision", 0); precision != 0)
        return ctx.error("precision " + std::to_string(precision) + " is not implemented yet");
    if (const std::int64_t wanted = ctx.attrInt("output_dtype", 0); wanted != 0 && wanted != outputType)
        return ctx.error("output_dtype " + ir::dataTypeName(static_cast<int>(wanted)) + " is not implemented yet (the output is " +
                         ir::dataTypeName(outputType) + ")");
    return support::Status::ok();
}

support::Status quantizeLinear(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    if (auto st = checkUnimplemented(ctx, ctx.hasInput(2) ? ctx.input(2).dataType() : TensorProto::UINT8); !st)
        return st;
    const Tensor &raw = ctx.input(0);
    const Tensor x = raw.dataType() == TensorProto::INT32 ? convertTensor(raw, TensorProto::DOUBLE) : toComputeType(raw);
    const Tensor &scale = ctx.input(1);
    const Tensor &zeroPoint = ctx.input(2);
    auto layout = axisLayout(ctx, x, scale);
    if (!layout)
        return layout.takeError();
    auto scales = quantParams(ctx, scale, layout->count, "y_scale");
    auto zeros = quantParams(ctx, zeroPoint, layout->count, "y_zero_point");
    if (!scales || !zeros)
        return !scales ? scales.takeError() : zeros.takeError();
    const int outType = zeroPoint.defined() ? zeroPoint.dataType() : TensorProto::UINT8;
    auto out = ctx.allocate(outType, x.shape());
    if (!out)
        return out.takeError();
    bool known = false;
    visitQuantized(outType, [&]<typename Q>() {
        known = visitFloat(x.dataType(), [&]<typename T>() {
            // float inputs divide in float as the reference does; int32 inputs (converted above) in double
            const T *xs = x.data<T>();
            Q *y = out->mutableData<Q>();
            for (std::int64_t i = 0; i < x.size(); ++i) {
                const std::size_t c = channelOf(i, *layout, scales->size());
                const T q = xs[i] / static_cast<T>((*scales)[c]);
                y[i] = saturateRound<Q>(static_cast<double>(q), (*zeros)[zeros->size() == 1 ? 0 : c]);
            }
        });
    });
    if (!known)
        return ctx.error("QuantizeLinear takes float or int32 x and an int8 or uint8 zero point");
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

support::Status dequantizeLinear(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    if (auto st = checkUnimplemented(ctx, ctx.input(1).dataType()); !st)
        return st;
    const Tensor &x = ctx.input(0);
    const Tensor &zeroPoint = ctx.input(2);
    if (zeroPoint.defined() && zeroPoint.dataType() != x.dataType())
        return ctx.error("x_zero_point must have x's element type");
    auto layout = axisLayout(ctx, x, ctx.input(1));
    if (!layout)
        return layout.takeError();
    auto scales = quantParams(ctx, ctx.input(1), layout->count, "x_scale");
    auto zeros = quantParams(ctx, zeroPoint, layout->count, "x_zero_point");
    if (!scales || !zeros)
        return !scales ? scales.takeError() : zeros.takeError();
    auto out = ctx.allocate(TensorProto::FLOAT, x.shape());
    if (!out)
        return out.takeError();
    auto run = [&]<typename T>() {
        float *y = out->mutableData<float>();
        for (std::int64_t i = 0; i < x.size(); ++i) {
            const std::size_t c = channelOf(i, *layout, scales->size());
            const auto zp = static_cast<float>((*zeros)[zeros->size() == 1 ? 0 : c]);
            y[i] = (static_cast<float>(x.data<T>()[i]) - zp) * static_cast<float>((*scales)[c]);
        }
    };
    if (x.dataType() == TensorProto::INT32)
        run.template operator()<std::int32_t>();
    else if (!visitQuantized(x.dataType(), run))
        return ctx.error("DequantizeLinear takes int8, uint8 or int32 x, not " + ir::dataTypeName(x.dataType()));
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

/// uint8 quantization of x over [min(0, min x), max(0, max x)], computed in float as the reference does.
support::Status dynamicQuantizeLinear(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (x.dataType() != TensorProto::FLOAT)
        return ctx.error("DynamicQuantizeLinear takes float x, not " + ir::dataTypeName(x.dataType()));
    const float *xs = x.data<float>();
    float lo = 0, hi = 0;
    for (std::int64_t i = 0; i < x.size(); ++i) {
        lo = std::isnan(xs[i]) || xs[i] < lo ? xs[i] : lo;
        hi = std::isnan(xs[i]) || xs[i] > hi ? xs[i] : hi;
    }
    const float scale = (hi - lo) / 255.0f;
    // An all-zero x has scale 0: every value maps to the zero point 0 rather than 0/0.
    const std::uint8_t zero = scale == 0 ? 0 : saturateRound<std::uint8_t>(0.0f - lo / scale);
    auto y = ctx.allocate(TensorProto::UINT8, x.shape());
    if (!y)
        return y.takeError();
    std::uint8_t *ys = y->mutableData<std::uint8_t>();
    for (std::int64_t i = 0; i < x.size(); ++i)
        ys[i] = scale == 0 ? 0 : saturateRound<std::uint8_t>(static_cast<double>(xs[i] / scale), zero);
    ctx.setOutput(0, std::move(*y));
    ctx.setOutput(1, Tensor::fromVector<float>(TensorProto::FLOAT, {}, {scale}));
    ctx.setOutput(2, Tensor::fromVector<std::uint8_t>(TensorProto::UINT8, {}, {zero}));
    return support::Status::ok();
}

/// MatMulInteger (A, B, a_zero_point, b_zero_point) → int32, and QLinearMatMul (a, a_scale, a_zero_point,
/// b, b_scale, b_zero_point, y_scale, y_zero_point). Zero points and scales are per tensor, or per row of
/// A (a's and y's) and per column of B (b's).
support::Status matMulInteger(KernelContext &ctx)
{
    const bool qlinear = ctx.node().opType == "QLinearMatMul";
    if (auto st = ctx.requireInputs(qlinear ? 8 : 2); !st)
        return st;
    const Tensor &aq = ctx.input(0);
    const Tensor &bq = ctx.input(qlinear ? 3 : 1);
    auto mm = matMulShape(ctx, aq, bq);
    if (!mm)
        return mm.takeError();
    auto a = centered(ctx, aq, ctx.input(2), mm->K, mm->M, "A");
    if (!a)
        return a.takeError();
    auto b = centered(ctx, bq, ctx.input(qlinear ? 5 : 3), 1, mm->N, "B");
    if (!b)
        return b.takeError();
    const std::int64_t M = mm->M, N = mm->N;
    if (!qlinear) {
        auto out = ctx.allocate(TensorProto::INT32, mm->output);
        if (!out)
            return out.takeError();
        std::int32_t *y = out->mutableData<std::int32_t>();
        batchedGemm(*mm, a->data<std::int32_t>(), b->data<std::int32_t>(),
                    [&](std::int64_t bi, std::int64_t m, std::int64_t n0, const std::int64_t *acc, std::int64_t count) {
                        for (std::int64_t i = 0; i < count; ++i)
                            y[(bi * M + m) * N + n0 + i] = static_cast<std::int32_t>(acc[i]);
                    });
        ctx.setOutput(0, std::move(*out));
        return support::Status::ok();
    }
    auto aScale = quantParams(ctx, ctx.input(1), M, "a_scale");
    auto bScale = quantParams(ctx, ctx.input(4), N, "b_scale");
    auto yScale = quantParams(ctx, ctx.input(6), M, "y_scale");
    auto yZero = quantParams(ctx, ctx.input(7), M, "y_zero_point");
    for (const auto *p : {&aScale, &bScale, &yScale, &yZero})
        if (!*p)
            return p->error();
    const int outType = ctx.input(7).dataType();
    auto out = ctx.allocate(outType, mm->output);
    if (!out)
        return out.takeError();
    auto pick = [](const std::vector<double> &v, std::int64_t i) { return v[v.size() == 1 ? 0 : static_cast<std::size_t>(i)]; };
    const bool known = visitQuantized(outType, [&]<typename Q>() {
        Q *y = out->mutableData<Q>();
        batchedGemm(*mm, a->data<std::int32_t>(), b->data<std::int32_t>(),
                    [&](std::int64_t bi, std::int64_t m, std::int64_t n0, const std::int64_t *acc, std::int64_t count) {
                        const double rowScale = pick(*aScale, m) / pick(*yScale, m), zero = pick(*yZero, m);
                        for (std::int64_t i = 0; i < count; ++i)
                            y[(bi * M + m) * N + n0 + i] = saturateRound<Q>(
                                static_cast<double>(acc[i]) * rowScale * pick(*bScale, n0 + i), zero);
                    });
    });
    if (!known)
        return ctx.error("y_zero_point must be int8 or uint8");
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
