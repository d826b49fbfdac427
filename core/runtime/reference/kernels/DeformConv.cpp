// DeformConv (opset 19; 22 adds bfloat16): an N-D convolution whose every kernel tap reads X at its
// regular position plus a learned displacement from `offset`, interpolated N-linearly, zero outside the
// input (the padding is zeros too), and optionally scaled by `mask`. Computed in double — sampling
// weights, products and sums — and rounded once to the input's type.
//
// Per batch item and group, the sampled taps form a [C/group · K, positions] column matrix (im2col with
// moving taps) that one GEMM with the group's weights turns into output rows; positions are taken in
// blocks so the columns stay a bounded scratch.
#include "runtime/reference/kernels/DataMovement.h"
#include "runtime/reference/kernels/Spatial.h"
#include "runtime/reference/kernels/TensorOps.h"

#include "ir/Type.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace portolan::runtime::kernels {

namespace {

/// a·b·c, or -1 when it would pass int64 (all non-negative).
std::int64_t product3(std::int64_t a, std::int64_t b, std::int64_t c)
{
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    if (a != 0 && b > max / a)
        return -1;
    if (a * b != 0 && c > max / (a * b))
        return -1;
    return a * b * c;
}

/// The input elements one sampling point reads and their N-linear weights.
struct Sample {
    std::vector<std::int64_t> index; // flat offsets into one channel's plane
    std::vector<double> weight;
    bool nan = false; // a NaN coordinate: the sample is NaN
};

/// Plans the N-linear read of `pos` (one coordinate per spatial axis) from a plane of `dims`. On each axis
/// the two neighbours floor(pos) and floor(pos) + 1 weigh 1 - frac and frac; a neighbour outside the
/// input contributes zero and is left out. Zero-weight neighbours inside stay in, so 0 · inf gives NaN as
/// a sum over all neighbours would.
void planSample(const double *pos, const Shape &dims, Sample &s)
{
    s.index.assign(1, 0);
    s.weight.assign(1, 1.0);
    s.nan = false;
    for (std::size_t a = 0; a < dims.size(); ++a) {
        const double p = pos[a];
        if (std::isnan(p)) {
            s.nan = true;
            return;
        }
        if (!(p > -1.0 && p < static_cast<double>(dims[a]))) { // both neighbours outside (infinities too)
            s.index.clear();
            s.weight.clear();
            return;
        }
        const double low = std::floor(p);
        const double frac = p - low;
        const auto lo = static_cast<std::int64_t>(low); // in [-1, dims[a] - 1]: the check above bounds it
        const std::size_t before = s.index.size();
        const bool loInside = lo >= 0, hiInside = lo + 1 < dims[a];
        std::vector<std::int64_t> index;
        std::vector<double> weight;
        index.reserve(2 * before);
        weight.reserve(2 * before);
        for (std::size_t i = 0; i < before; ++i) {
            if (loInside) {
                index.push_back(s.index[i] * dims[a] + lo);
                weight.push_back(s.weight[i] * (1.0 - frac));
            }
            if (hiInside) {
                index.push_back(s.index[i] * dims[a] + lo + 1);
                weight.push_back(s.weight[i] * frac);
            }
        }
        s.index = std::move(index);
        s.weight = std::move(weight);
    }
}

} // namespace

support::Status deformConv(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const int type = ctx.input(0).dataType();
    if (!isFloatingType(type))
        return ctx.error("X must be a floating-point tensor, got " + ir::dataTypeName(type));
    const char *names[] = {"X", "W", "offset", "B", "mask"};
    for (std::size_t i = 1; i < 5; ++i)
        if (ctx.hasInput(i) && ctx.input(i).dataType() != type)
            return ctx.error(std::string(names[i]) + " is " + ir::dataTypeName(ctx.input(i).dataType()) + ", X is " +
                             ir::dataTypeName(type));
    const Tensor &x = ctx.input(0), &w = ctx.input(1), &offset = ctx.input(2);
    if (x.rank() < 3)
        return ctx.error("X must have rank 3 or more ([N, C, D1, …]), got " + shapeString(x.shape()));
    if (w.rank() != x.rank() || offset.rank() != x.rank())
        return ctx.error("X, W and offset must have the same rank");
    const std::size_t nd = x.rank() - 2;
    const std::int64_t batch = x.dim(0), channels = x.dim(1), filters = w.dim(0);
    const std::int64_t group = ctx.attrInt("group", 1), offsetGroup = ctx.attrInt("offset_group", 1);
    if (group < 1 || channels % group != 0 || filters % group != 0)
        return ctx.error("group " + std::to_string(group) + " must be positive and divide the " +
                         std::to_string(channels) + " input channels and the " + std::to_string(filters) + " filters");
    if (w.dim(1) * group != channels)
        return ctx.error("W " + shapeString(w.shape()) + " does not fit " + std::to_string(channels) +
                         " input channels in " + std::to_string(group) + " groups");
    if (offsetGroup < 1 || channels % offsetGroup != 0)
        return ctx.error("offset_group " + std::to_string(offsetGroup) + " must be positive and divide the " +
                         std::to_string(channels) + " input channels");
    const Shape wSpatial(w.shape().begin() + 2, w.shape().end());
    const Shape kernel = kernelShape(ctx, wSpatial);
    if (kernel != wSpatial)
        return ctx.error("kernel_shape " + shapeString(kernel) + " does not match W " + shapeString(w.shape()));
    for (const auto k : kernel)
        if (k > (std::int64_t(1) << 31)) // keeps (k - 1) · dilation within int64 in the window below
            return ctx.error("kernel size " + std::to_string(k) + " exceeds 2^31");
    // The window reader below would honour auto_pad, which DeformConv does not have.
    if (ctx.attribute("auto_pad") != nullptr)
        return ctx.error("DeformConv has no auto_pad attribute");
    const Shape inSpatial(x.shape().begin() + 2, x.shape().end());
    auto window = makeWindow(ctx, inSpatial, kernel, false);
    if (!window)
        return window.takeError();
    const Shape &outSpatial = window->output;
    const std::int64_t taps = planeSize(kernel), positions = planeSize(outSpatial), inPlane = planeSize(inSpatial);

    // offset: [N, offset_group · K · nd, O…], coordinate a of tap k of offset group g in channel (g·K + k)·nd + a.
    // mask: [N, offset_group · K, O…] (the spec's text adds a factor n for N-D; its reference has none).
    auto expect = [&](const Tensor &t, std::int64_t perGroup, const char *name) -> support::Status {
        Shape want{batch, product3(offsetGroup, perGroup, 1)};
        want.insert(want.end(), outSpatial.begin(), outSpatial.end());
        if (want[1] < 0 || t.shape() != want)
            return ctx.error(std::string(name) + " " + shapeString(t.shape()) + " must be " + shapeString(want) +
                             ": [N, offset_group · " + (perGroup == taps ? "K" : "K · spatial rank") +
                             ", output spatial dims " + shapeString(outSpatial) + "]");
        return support::Status::ok();
    };
    const std::int64_t coordinates = product3(taps, static_cast<std::int64_t>(nd), 1);
    if (coordinates < 0)
        return ctx.error("the kernel has too many taps");
    if (auto st = expect(offset, coordinates, "offset"); !st)
        return st;
    const bool hasMask = ctx.hasInput(4);
    if (hasMask)
        if (auto st = expect(ctx.input(4), taps, "mask"); !st)
            return st;
    std::vector<double> bias(static_cast<std::size_t>(filters), 0.0);
    if (ctx.hasInput(3)) {
        const Tensor &b = ctx.input(3);
        if (b.rank() != 1 || b.size() != filters)
            return ctx.error("B must be 1-D with one value per filter (" + std::to_string(filters) + "), got " +
                             shapeString(b.shape()));
        auto bd = toDouble(ctx, b);
        if (!bd)
            return bd.takeError();
        bias.assign(bd->data<double>(), bd->data<double>() + filters);
    }

    auto xd = toDouble(ctx, x), wd = toDouble(ctx, w), od = toDouble(ctx, offset);
    if (!xd || !wd || !od)
        return !xd ? xd.takeError() : !wd ? wd.takeError() : od.takeError();
    support::Expected<Tensor> md = hasMask ? toDouble(ctx, ctx.input(4)) : support::Expected<Tensor>(Tensor());
    if (!md)
        return md.takeError();
    Shape outShape{batch, filters};
    outShape.insert(outShape.end(), outSpatial.begin(), outSpatial.end());
    auto y = ctx.allocateUninitialized(TensorProto::DOUBLE, outShape); // the GEMM stores every element
    if (!y)
        return y.takeError();

    const std::int64_t inPerGroup = channels / group, outPerGroup = filters / group;
    const std::int64_t inPerOffsetGroup = channels / offsetGroup;
    const std::int64_t rows = inPerGroup * taps; // column-matrix rows of one group: (channel, tap)
    // Positions per block: about 2^22 doubles of columns, at least one position.
    const std::int64_t block = std::max<std::int64_t>(1, std::min(positions, (std::int64_t(1) << 22) / std::max<std::int64_t>(rows, 1)));
    auto cols = ctx.allocateUninitialized(TensorProto::DOUBLE, {rows, block});
    if (!cols)
        return cols.takeError();

    // Regular tap coordinates before the offsets: output position o, tap k → o·stride − pad + k·dilation.
    std::vector<std::int64_t> base(static_cast<std::size_t>(positions) * nd), step(static_cast<std::size_t>(taps) * nd);
    for (std::int64_t p = 0; p < positions; ++p)
        for (std::size_t a = nd, rest = static_cast<std::size_t>(p); a-- > 0;) {
            const auto extent = static_cast<std::size_t>(outSpatial[a]);
            base[static_cast<std::size_t>(p) * nd + a] =
                static_cast<std::int64_t>(rest % extent) * window->strides[a] - window->padsBegin[a];
            rest /= extent;
        }
    for (std::int64_t k = 0; k < taps; ++k)
        for (std::size_t a = nd, rest = static_cast<std::size_t>(k); a-- > 0;) {
            const auto extent = static_cast<std::size_t>(kernel[a]);
            step[static_cast<std::size_t>(k) * nd + a] = static_cast<std::int64_t>(rest % extent) * window->dilations[a];
            rest /= extent;
        }

    const double *X = xd->data<double>(), *W = wd->data<double>(), *O = od->data<double>();
    const double *M = hasMask ? md->data<double>() : nullptr;
    double *Y = y->mutableData<double>(), *C = cols->mutableData<double>();
    Sample sample;
    std::vector<double> pos(nd);
    for (std::int64_t n = 0; n < batch; ++n)
        for (std::int64_t g = 0; g < group; ++g)
            for (std::int64_t p0 = 0; p0 < positions; p0 += block) {
                const std::int64_t count = std::min(block, positions - p0);
                const std::int64_t cFirst = g * inPerGroup, cEnd = cFirst + inPerGroup;
                // Each offset group this group's channels reach: one sampling plan serves all its channels.
                for (std::int64_t og = cFirst / inPerOffsetGroup; og * inPerOffsetGroup < cEnd; ++og) {
                    const std::int64_t c0 = std::max(cFirst, og * inPerOffsetGroup);
                    const std::int64_t c1 = std::min(cEnd, (og + 1) * inPerOffsetGroup);
                    for (std::int64_t k = 0; k < taps; ++k)
                        for (std::int64_t q = 0; q < count; ++q) {
                            const std::int64_t p = p0 + q;
                            const std::int64_t channel0 = (n * offsetGroup + og) * coordinates + k * static_cast<std::int64_t>(nd);
                            for (std::size_t a = 0; a < nd; ++a)
                                pos[a] = static_cast<double>(base[static_cast<std::size_t>(p) * nd + a] +
                                                             step[static_cast<std::size_t>(k) * nd + a]) +
                                         O[(channel0 + static_cast<std::int64_t>(a)) * positions + p];
                            planSample(pos.data(), inSpatial, sample);
                            const double scale = M ? M[((n * offsetGroup + og) * taps + k) * positions + p] : 1.0;
                            for (std::int64_t c = c0; c < c1; ++c) {
                                const double *plane = X + (n * channels + c) * inPlane;
                                double v = sample.nan ? std::numeric_limits<double>::quiet_NaN() : 0.0;
                                for (std::size_t i = 0; i < sample.index.size(); ++i)
                                    v += sample.weight[i] * plane[sample.index[i]];
                                C[((c - cFirst) * taps + k) * count + q] = v * scale;
                            }
                        }
                }
                // Y[n, g·outPerGroup + m, p0 + j] = B + Σ_r W_g[m, r] · cols[r, j]
                if (rows == 0) { // no input channels: the bias alone
                    for (std::int64_t m = g * outPerGroup; m < (g + 1) * outPerGroup; ++m)
                        std::fill_n(Y + (n * filters + m) * positions + p0, count, bias[static_cast<std::size_t>(m)]);
                    continue;
                }
                const double *wg = W + g * outPerGroup * rows;
                gemmInDouble<double>({wg, rows, 1}, {C, count, 1}, outPerGroup, count, rows,
                                     [&](std::int64_t m, std::int64_t j0, const double *sums, std::int64_t n2) {
                                         const std::int64_t filter = g * outPerGroup + m;
                                         double *dst = Y + (n * filters + filter) * positions + p0 + j0;
                                         for (std::int64_t j = 0; j < n2; ++j)
                                             dst[j] = sums[j] + bias[static_cast<std::size_t>(filter)];
                                     },
                                     /*parallel=*/true); // each call writes only its own columns
            }
    return emit(ctx, fromDouble(ctx, *y, type));
}

} // namespace portolan::runtime::kernels
