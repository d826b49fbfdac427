// Quantization kernels: DynamicQuantizeLinear, and MatMulInteger / QLinearMatMul as exact int64 sums
// through the blocked GEMM (QuantizeLinear and DequantizeLinear: QuantizeLinear.cpp). Arithmetic
// follows the ONNX reference: x / scale in float, rounded half to even, then saturated.
#include "runtime/KernelContext.h"
#include "runtime/reference/kernels/Broadcast.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/Spatial.h"

#include "ir/Type.h"

#include <cmath>

namespace portolan::runtime::kernels {

namespace {

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
