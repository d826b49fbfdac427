// Reference kernels of the ai.portolan transformer fusions: SkipLayerNormalization and Attention,
// computed in double from inputs of any float type and stored back at the input's precision
// (ai.portolan LayerNormalization is the standard kernel, registered in Kernels.def).
#include "runtime/reference/KernelContext.h"
#include "runtime/reference/kernels/Dispatch.h"
#include "runtime/reference/kernels/NormalizedAxes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace portolan::runtime::kernels {

namespace {

Tensor asDoubles(const Tensor &t)
{
    return t.dataType() == TensorProto::DOUBLE ? t : convertTensor(t, TensorProto::DOUBLE);
}

bool isFloatType(int t)
{
    return t == TensorProto::FLOAT || t == TensorProto::DOUBLE || isHalfType(t);
}

/// Strides to read a tensor of `dims` broadcast (right-aligned) to `target`: 0 where it broadcasts.
std::vector<std::int64_t> broadcastStrides(const Shape &dims, const Shape &target)
{
    std::vector<std::int64_t> strides(target.size(), 0);
    std::int64_t stride = 1;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        const std::size_t from = dims.size() - 1 - k;
        const std::size_t to = target.size() - 1 - k;
        strides[to] = dims[from] == 1 ? 0 : stride;
        stride *= dims[from];
    }
    return strides;
}

} // namespace

support::Status skipLayerNormalization(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (!isFloatType(x.dataType()))
        return ctx.error("X must be a floating-point tensor");
    if (ctx.input(1).shape() != x.shape())
        return ctx.error("Skip must have X's shape " + shapeString(x.shape()));
    const auto rank = static_cast<std::int64_t>(x.rank());
    const auto block = normalizedBlock(ctx, x, ctx.attrInt("axis", -1));
    if (!block)
        return block.error();
    const std::int64_t n = block->second;
    const Tensor X = asDoubles(x), skip = asDoubles(ctx.input(1)), gamma = asDoubles(ctx.input(2));
    const Tensor beta = ctx.hasInput(3) ? asDoubles(ctx.input(3)) : Tensor();
    const Tensor bias = ctx.hasInput(4) ? asDoubles(ctx.input(4)) : Tensor();
    if (gamma.size() != n || (beta.defined() && beta.size() != n))
        return ctx.error("Gamma and Beta must have " + std::to_string(n) + " elements (the normalized dims)");
    const std::int64_t last = rank > 0 ? x.dim(static_cast<std::size_t>(rank - 1)) : 1;
    if (bias.defined() && bias.size() != last)
        return ctx.error("Bias must have " + std::to_string(last) + " elements (the last dim)");
    auto y = ctx.allocate(TensorProto::DOUBLE, x.shape());
    if (!y)
        return y.takeError();
    auto sum = ctx.allocate(TensorProto::DOUBLE, ctx.wantsOutput(1) ? x.shape() : Shape{0});
    if (!sum)
        return sum.takeError();
    const double epsilon = ctx.attrFloat("epsilon", 1e-5f);
    const double *px = X.data<double>(), *ps = skip.data<double>(), *pg = gamma.data<double>();
    const double *pb = beta.defined() ? beta.data<double>() : nullptr;
    const double *pbias = bias.defined() ? bias.data<double>() : nullptr;
    double *py = y->mutableData<double>();
    double *psum = ctx.wantsOutput(1) ? sum->mutableData<double>() : nullptr;
    std::vector<double> row(static_cast<std::size_t>(n));
    for (std::int64_t r = 0; n > 0 && r < x.size() / n; ++r) {
        double mean = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t at = r * n + i;
            row[static_cast<std::size_t>(i)] = px[at] + ps[at] + (pbias ? pbias[at % last] : 0.0);
            mean += row[static_cast<std::size_t>(i)];
        }
        mean /= static_cast<double>(n);
        double variance = 0;
        for (const double v : row)
            variance += (v - mean) * (v - mean);
        variance /= static_cast<double>(n);
        const double inv = 1.0 / std::sqrt(variance + epsilon);
        for (std::int64_t i = 0; i < n; ++i) {
            const double v = row[static_cast<std::size_t>(i)];
            py[r * n + i] = (v - mean) * inv * pg[i] + (pb ? pb[i] : 0.0);
            if (psum)
                psum[r * n + i] = v;
        }
    }
    ctx.setOutput(0, convertTensor(*y, x.dataType()));
    if (ctx.wantsOutput(1))
        ctx.setOutput(1, convertTensor(*sum, x.dataType()));
    return support::Status::ok();
}

support::Status attention(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &q = ctx.input(0), &k = ctx.input(1), &v = ctx.input(2);
    if (!isFloatType(q.dataType()))
        return ctx.error("Q must be a floating-point tensor");
    const std::size_t rank = q.rank();
    if (rank < 2 || k.rank() != rank || v.rank() != rank)
        return ctx.error("Q, K and V must have the same rank, at least 2");
    const std::int64_t sq = q.dim(rank - 2), d = q.dim(rank - 1), sk = k.dim(rank - 2), dv = v.dim(rank - 1);
    if (k.dim(rank - 1) != d || v.dim(rank - 2) != sk)
        return ctx.error("K must be [..., Sk, " + std::to_string(d) + "] and V [..., Sk, Dv] with K's Sk");
    for (std::size_t i = 0; i + 2 < rank; ++i)
        if (k.dim(i) != q.dim(i) || v.dim(i) != q.dim(i))
            return ctx.error("Q, K and V must have the same leading dims");
    Shape scoresShape = q.shape();
    scoresShape[rank - 1] = sk;
    const Tensor Q = asDoubles(q), K = asDoubles(k), V = asDoubles(v);
    Tensor mask;
    std::vector<std::int64_t> maskStrides;
    if (ctx.hasInput(3)) {
        mask = asDoubles(ctx.input(3));
        if (mask.rank() > rank)
            return ctx.error("Mask has a higher rank than the scores");
        for (std::size_t i = 0; i < mask.rank(); ++i) {
            const std::int64_t m = mask.dim(i), s = scoresShape[rank - mask.rank() + i];
            if (m != 1 && m != s)
                return ctx.error("Mask " + shapeString(mask.shape()) + " does not broadcast to the scores " +
                                 shapeString(scoresShape));
        }
        maskStrides = broadcastStrides(mask.shape(), scoresShape);
    }
    Shape outShape = q.shape();
    outShape[rank - 1] = dv;
    auto out = ctx.allocate(TensorProto::DOUBLE, outShape);
    if (!out)
        return out.takeError();
    const double scale = ctx.attrFloat("scale", 1.0f);
    const bool causal = ctx.attrInt("causal", 0) != 0;
    const std::int64_t batches = sq > 0 ? q.size() / (sq * d > 0 ? sq * d : 1) : 0;
    std::vector<double> p(static_cast<std::size_t>(sk));
    const double *pq = Q.data<double>(), *pk = K.data<double>(), *pv = V.data<double>();
    double *po = out->mutableData<double>();
    for (std::int64_t b = 0; b < batches; ++b) {
        for (std::int64_t i = 0; i < sq; ++i) {
            double top = -std::numeric_limits<double>::infinity();
            for (std::int64_t j = 0; j < sk; ++j) {
                double s = 0;
                for (std::int64_t c = 0; c < d; ++c)
                    s += pq[(b * sq + i) * d + c] * pk[(b * sk + j) * d + c];
                s *= scale;
                if (mask.defined()) {
                    // flat index of (b…, i, j) in the scores, then the mask's broadcast offset
                    std::int64_t flat = (b * sq + i) * sk + j, offset = 0;
                    for (std::size_t axis = rank; axis-- > 0;) {
                        offset += (flat % scoresShape[axis]) * maskStrides[axis];
                        flat /= scoresShape[axis];
                    }
                    s += mask.data<double>()[offset];
                }
                if (causal && j > i + (sk - sq))
                    s = -std::numeric_limits<double>::infinity();
                p[static_cast<std::size_t>(j)] = s;
                top = std::max(top, s);
            }
            double total = 0;
            for (double &e : p) {
                e = std::exp(e - top); // a row of -inf gives NaN, as Softmax does
                total += e;
            }
            for (std::int64_t c = 0; c < dv; ++c) {
                double acc = 0;
                for (std::int64_t j = 0; j < sk; ++j)
                    acc += p[static_cast<std::size_t>(j)] * pv[(b * sk + j) * dv + c];
                po[(b * sq + i) * dv + c] = acc / total;
            }
        }
    }
    ctx.setOutput(0, convertTensor(*out, q.dataType()));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
