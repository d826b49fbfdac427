// Reference kernels of the ai.portolan transformer fusions: SkipLayerNormalization and Attention,
// computed in double from inputs of any float type and stored back at the input's precision
// (ai.portolan LayerNormalization is the standard kernel, registered in Kernels.def).
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
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
    if (!isFloatingType(x.dataType()))
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
    if (!isFloatingType(q.dataType()))
        return ctx.error("Q must be a floating-point tensor");
    const std::size_t rank = q.rank();
    if (rank < 2 || k.rank() != rank || v.rank() != rank)
        return ctx.error("Q, K and V must have the same rank, at least 2");
    const std::string layout = ctx.attrString("layout", "NSD");
    if (layout != "NSD" && layout != "SND")
        return ctx.error("layout \"" + layout + "\" is not NSD or SND");
    const bool sequenceFirst = layout == "SND";
    if (sequenceFirst && rank < 3)
        return ctx.error("layout SND needs rank 3 or more");
    // Logical view [outer, N, S, D]; SND stores the S and N axes swapped.
    const std::size_t seqAxis = sequenceFirst ? rank - 3 : rank - 2;
    const std::size_t headAxis = sequenceFirst ? rank - 2 : rank - 3;
    auto headsOf = [&](const Tensor &t) { return rank >= 3 ? t.dim(headAxis) : 1; };
    const std::int64_t sq = q.dim(seqAxis), d = q.dim(rank - 1), sk = k.dim(seqAxis), dv = v.dim(rank - 1);
    const std::int64_t heads = headsOf(q);
    if (k.dim(rank - 1) != d || v.dim(seqAxis) != sk)
        return ctx.error("K must have Q's head dim " + std::to_string(d) + " and V K's sequence length");
    for (std::size_t i = 0; i < rank; ++i)
        if (i != seqAxis && i != rank - 1 && (k.dim(i) != q.dim(i) || v.dim(i) != q.dim(i)))
            return ctx.error("Q, K and V must have the same batch and head dims");
    std::int64_t outer = 1;
    for (std::size_t i = 0; i + 3 < rank; ++i)
        outer *= q.dim(i);
    // Offset of element (o, n, s, c) of a tensor with sequence length `seq` and last dim `last`.
    auto at = [&](std::int64_t o, std::int64_t n, std::int64_t s, std::int64_t seq, std::int64_t last, std::int64_t c) {
        return (sequenceFirst ? (o * seq + s) * heads + n : (o * heads + n) * seq + s) * last + c;
    };
    // The logical scores [outer…, N, Sq, Sk] the mask broadcasts to.
    Shape scoresShape;
    for (std::size_t i = 0; i + 3 < rank; ++i)
        scoresShape.push_back(q.dim(i));
    if (rank >= 3)
        scoresShape.push_back(heads);
    scoresShape.push_back(sq);
    scoresShape.push_back(sk);
    const Tensor Q = asDoubles(q), K = asDoubles(k), V = asDoubles(v);
    Tensor mask;
    std::vector<std::int64_t> maskStrides;
    if (ctx.hasInput(3)) {
        mask = asDoubles(ctx.input(3));
        if (mask.rank() > scoresShape.size())
            return ctx.error("Mask has a higher rank than the scores");
        for (std::size_t i = 0; i < mask.rank(); ++i) {
            const std::int64_t m = mask.dim(i), s = scoresShape[scoresShape.size() - mask.rank() + i];
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
    std::vector<double> p(static_cast<std::size_t>(sk));
    const double *pq = Q.data<double>(), *pk = K.data<double>(), *pv = V.data<double>();
    double *po = out->mutableData<double>();
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t n = 0; n < heads; ++n)
            for (std::int64_t i = 0; i < sq; ++i) {
                double top = -std::numeric_limits<double>::infinity();
                for (std::int64_t j = 0; j < sk; ++j) {
                    double s = 0;
                    for (std::int64_t c = 0; c < d; ++c)
                        s += pq[at(o, n, i, sq, d, c)] * pk[at(o, n, j, sk, d, c)];
                    s *= scale;
                    if (mask.defined()) {
                        std::int64_t flat = ((o * heads + n) * sq + i) * sk + j, offset = 0;
                        for (std::size_t axis = scoresShape.size(); axis-- > 0;) {
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
                        acc += p[static_cast<std::size_t>(j)] * pv[at(o, n, j, sk, dv, c)];
                    po[at(o, n, i, sq, dv, c)] = acc / total;
                }
            }
    ctx.setOutput(0, convertTensor(*out, q.dataType()));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
