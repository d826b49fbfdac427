// Convolution kernels: Conv, ConvTranspose, ConvInteger and QLinearConv over 1-D to N-D inputs, as a
// gather (im2col) or scatter (col2im) plus a blocked GEMM summing in double (int64 for integers). 2-D
// gathers walk rows directly; other ranks go through a table of offsets. 2-D depthwise convolutions
// skip the GEMM, whose one-row products would waste most of its work.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/Spatial.h"

#include "ir/Type.h"

namespace portolan::runtime::kernels {

namespace {

template <typename T>
constexpr int tensorType()
{
    if constexpr (std::is_same_v<T, float>)
        return TensorProto::FLOAT;
    else if constexpr (std::is_same_v<T, double>)
        return TensorProto::DOUBLE;
    else
        return TensorProto::INT32;
}

/// The checked layout of a convolution: X [N, C, D…], W [M, C/group, k…] (ConvTranspose: [C, M/group, k…]).
struct ConvShape {
    std::int64_t batch = 0, channels = 0, filters = 0, group = 1;
    Window window;

    std::int64_t inPlane() const { return planeSize(window.input); }
    std::int64_t outPlane() const { return planeSize(window.output); }
    std::int64_t kernelSize() const { return planeSize(window.kernel); }
    Shape outputShape() const
    {
        Shape s{batch, filters};
        s.insert(s.end(), window.output.begin(), window.output.end());
        return s;
    }
};

/// Checks X and W against each other and group; fills everything but the window's output and pads.
support::Status checkShapes(KernelContext &ctx, const Tensor &x, const Tensor &w, bool transposed, ConvShape &cs)
{
    if (x.rank() < 3)
        return ctx.error("X must have rank 3 or more ([N, C, D1, …]), got " + shapeString(x.shape()));
    if (w.rank() != x.rank())
        return ctx.error("W " + shapeString(w.shape()) + " must have the rank of X " + shapeString(x.shape()));
    cs.group = ctx.attrInt("group", 1);
    cs.batch = x.dim(0);
    cs.channels = x.dim(1);
    if (cs.group < 1 || cs.channels % cs.group != 0)
        return ctx.error("group " + std::to_string(cs.group) + " does not divide the " + std::to_string(cs.channels) +
                         " input channels");
    const std::int64_t wChannels = transposed ? w.dim(0) : w.dim(1) * cs.group;
    if (wChannels != cs.channels)
        return ctx.error("W " + shapeString(w.shape()) + " does not fit " + std::to_string(cs.channels) +
                         " input channels in " + std::to_string(cs.group) + " groups");
    cs.filters = transposed ? w.dim(1) * cs.group : w.dim(0);
    if (cs.filters % cs.group != 0)
        return ctx.error("group " + std::to_string(cs.group) + " does not divide the " + std::to_string(cs.filters) +
                         " filters of W");
    const Shape wSpatial(w.shape().begin() + 2, w.shape().end());
    cs.window.kernel = kernelShape(ctx, wSpatial);
    if (cs.window.kernel != wSpatial)
        return ctx.error("kernel_shape " + shapeString(cs.window.kernel) + " does not match W " + shapeString(w.shape()));
    cs.window.input.assign(x.shape().begin() + 2, x.shape().end());
    return support::Status::ok();
}

support::Expected<ConvShape> convShape(KernelContext &ctx, const Tensor &x, const Tensor &w)
{
    ConvShape cs;
    if (auto st = checkShapes(ctx, x, w, false, cs); !st)
        return st.error();
    auto window = makeWindow(ctx, cs.window.input, cs.window.kernel, false);
    if (!window)
        return window.takeError();
    cs.window = std::move(*window);
    return cs;
}

/// The output positions [first, last) along one spatial axis whose input coordinate
/// o·stride − pad + k·dilation, for kernel offset k, lies inside an input of `in` positions.
struct InsideRange {
    std::int64_t first = 0, last = 0;
};
InsideRange insideRange(std::int64_t k, std::int64_t stride, std::int64_t pad, std::int64_t dilation, std::int64_t in,
                        std::int64_t out)
{
    const std::int64_t shift = k * dilation - pad; // the input coordinate of output 0
    InsideRange r;
    r.first = std::min(out, shift >= 0 ? 0 : (-shift + stride - 1) / stride);
    r.last = shift > in - 1 ? 0 : std::min(out, (in - 1 - shift) / stride + 1);
    r.last = std::max(r.first, r.last);
    return r;
}

/// A 2-D window's geometry, read once, for the gathers below that walk rows instead of a table.
struct Window2d {
    std::int64_t H, W, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw;
    explicit Window2d(const Window &w)
        : H(w.input[0]), W(w.input[1]), OH(w.output[0]), OW(w.output[1]), KH(w.kernel[0]), KW(w.kernel[1]),
          sh(w.strides[0]), sw(w.strides[1]), ph(w.padsBegin[0]), pw(w.padsBegin[1]), dh(w.dilations[0]),
          dw(w.dilations[1])
    {
    }
    /// Calls f(oh, row, cols) for every output row oh whose tap (kh, kw) reads input row `row` (others
    /// read padding); cols is the range of output columns whose tap reads inside the input, where
    /// output column ow reads input column ow·sw + column0(kw).
    template <typename F>
    void forTapRows(std::int64_t kh, std::int64_t kw, F &&f) const
    {
        const InsideRange rows = insideRange(kh, sh, ph, dh, H, OH), cols = insideRange(kw, sw, pw, dw, W, OW);
        for (std::int64_t oh = rows.first; oh < rows.last; ++oh)
            f(oh, oh * sh - ph + kh * dh, cols);
    }
    std::int64_t column0(std::int64_t kw) const { return kw * dw - pw; }
};

/// A 2-D depthwise convolution (one input channel per group): each output plane is a sum of its
/// channel's shifted rows, tap by tap in kernel order, with no column matrix and no product of one row.
template <typename Acc, typename T, typename Store>
void depthwise2d(const ConvShape &cs, const T *x, const T *w, Store &store)
{
    const Window2d g2(cs.window);
    const std::int64_t mg = cs.filters / cs.group, ks = cs.kernelSize(), P = cs.outPlane(), inPlane = cs.inPlane();
    const bool worthIt = cs.batch * cs.filters * P * ks > (std::int64_t(1) << 20);
    support::parallelFor(cs.batch * cs.group, worthIt, [&](std::int64_t first, std::int64_t last) {
        std::vector<Acc> acc(static_cast<std::size_t>(P));
        for (std::int64_t ng = first; ng < last; ++ng) {
            const std::int64_t n = ng / cs.group, g = ng % cs.group;
            const T *src = x + (n * cs.channels + g) * inPlane;
            for (std::int64_t m = g * mg; m < (g + 1) * mg; ++m) {
                std::fill(acc.begin(), acc.end(), Acc(0));
                for (std::int64_t kh = 0; kh < g2.KH; ++kh)
                    for (std::int64_t kw = 0; kw < g2.KW; ++kw) {
                        const Acc weight = static_cast<Acc>(w[m * ks + kh * g2.KW + kw]);
                        const std::int64_t column0 = g2.column0(kw), sw = g2.sw;
                        g2.forTapRows(kh, kw, [&](std::int64_t oh, std::int64_t row, InsideRange cols) {
                            const T *in = src + row * g2.W + column0;
                            Acc *out = acc.data() + oh * g2.OW;
                            for (std::int64_t ow = cols.first; ow < cols.last; ++ow)
                                out[ow] += weight * static_cast<Acc>(in[ow * sw]);
                        });
                    }
                store(n, m, 0, acc.data(), P);
            }
        }
    });
}

/// Columns [C/group · k, output positions] of one group's channels: column p of row (c, kh, kw) is
/// the input that tap reads for output p, 0 in the padding.
template <typename T>
void gatherColumns2d(const Window2d &g2, const T *xg, std::int64_t channels, std::int64_t inPlane, T *col)
{
    const std::int64_t P = g2.OH * g2.OW;
    for (std::int64_t c = 0; c < channels; ++c)
        for (std::int64_t kh = 0; kh < g2.KH; ++kh)
            for (std::int64_t kw = 0; kw < g2.KW; ++kw) {
                T *dst = col + ((c * g2.KH + kh) * g2.KW + kw) * P;
                std::fill(dst, dst + P, T(0));
                const T *src = xg + c * inPlane;
                const std::int64_t column0 = g2.column0(kw), sw = g2.sw;
                g2.forTapRows(kh, kw, [&](std::int64_t oh, std::int64_t row, InsideRange cols) {
                    const T *in = src + row * g2.W + column0;
                    T *out = dst + oh * g2.OW;
                    for (std::int64_t ow = cols.first; ow < cols.last; ++ow)
                        out[ow] = in[ow * sw];
                });
            }
}

/// The shared core: per image and group, gathers X into columns [C/group · k, output positions] (skipped
/// for 1×1 stride-1 unpadded kernels, where X already is that matrix) and multiplies W's rows into it;
/// 2-D depthwise convolutions sum shifted rows instead. store(n, m, p0, acc, count) receives output
/// channel m's sums for positions p0 … p0+count.
template <typename Acc, typename T, typename Store>
support::Status convolve(KernelContext &ctx, const ConvShape &cs, const T *x, const T *w, Store &&store)
{
    const Window &win = cs.window;
    const std::int64_t cg = cs.channels / cs.group, mg = cs.filters / cs.group;
    const std::int64_t ks = cs.kernelSize(), rows = cg * ks, P = cs.outPlane(), inPlane = cs.inPlane();
    bool pointwise = ks == 1;
    for (std::size_t i = 0; i < win.rank(); ++i)
        pointwise = pointwise && win.strides[i] == 1 && win.padsBegin[i] == 0 && win.padsEnd[i] == 0;
    const bool planar = win.rank() == 2;
    if (planar && cg == 1 && !pointwise) {
        depthwise2d<Acc>(cs, x, w, store);
        return support::Status::ok();
    }
    Tensor table, columns;
    if (!pointwise) {
        if (!planar) {
            auto t = windowTable(ctx, win, win.output, win.input);
            if (!t)
                return t.takeError();
            table = std::move(*t);
        }
        auto c = ctx.allocateUninitialized(tensorType<T>(), {rows, P}); // the gather writes every column
        if (!c)
            return c.takeError();
        columns = std::move(*c);
    }
    T *col = pointwise ? nullptr : columns.mutableData<T>();
    for (std::int64_t n = 0; n < cs.batch; ++n)
        for (std::int64_t g = 0; g < cs.group; ++g) {
            const T *xg = x + (n * cs.channels + g * cg) * inPlane;
            if (!pointwise && planar)
                gatherColumns2d(Window2d(win), xg, cg, inPlane, col);
            else if (!pointwise)
                for (std::int64_t c = 0; c < cg; ++c)
                    for (std::int64_t kk = 0; kk < ks; ++kk) {
                        const std::int64_t *off = table.data<std::int64_t>() + kk * P;
                        const T *src = xg + c * inPlane;
                        T *dst = col + (c * ks + kk) * P;
                        for (std::int64_t p = 0; p < P; ++p)
                            dst[p] = off[p] >= 0 ? src[off[p]] : T(0);
                    }
            blockedGemm<Acc>(w + g * mg * rows, pointwise ? xg : col, mg, rows, P,
                             [&](std::int64_t m, std::int64_t p0, const Acc *acc, std::int64_t count) {
                                 store(n, g * mg + m, p0, acc, count);
                             },
                             /*parallel=*/true); // each call writes only its own output columns
        }
    return support::Status::ok();
}

/// An optional 1-D bias of one value per filter, as double.
support::Expected<std::vector<double>> readBias(KernelContext &ctx, std::size_t input, std::int64_t filters)
{
    if (!ctx.hasInput(input))
        return std::vector<double>(static_cast<std::size_t>(filters), 0.0);
    const Tensor &b = ctx.input(input);
    if (b.rank() != 1 || b.size() != filters)
        return ctx.error("B must be 1-D with one value per filter (" + std::to_string(filters) + "), got " +
                         shapeString(b.shape()));
    if (!visitNumeric(b.dataType(), []<typename T>() {}) && !isHalfType(b.dataType()))
        return ctx.error("B has the non-numeric type " + ir::dataTypeName(b.dataType()));
    const Tensor d = convertTensor(b, TensorProto::DOUBLE);
    return std::vector<double>(d.data<double>(), d.data<double>() + d.size());
}

/// ConvTranspose's window: output size from output_shape, auto_pad or pads, with output_padding added.
support::Expected<Window> transposedWindow(KernelContext &ctx, Window w)
{
    const std::size_t rank = w.input.size();
    if (auto st = detail::readDims(ctx, "strides", rank, 1, 1, w.strides); !st)
        return st.error();
    if (auto st = detail::readDims(ctx, "dilations", rank, 1, 1, w.dilations); !st)
        return st.error();
    Shape pads, outputPadding, outputShape = ctx.attrInts("output_shape");
    if (auto st = detail::readDims(ctx, "pads", 2 * rank, 0, 0, pads); !st)
        return st.error();
    if (auto st = detail::readDims(ctx, "output_padding", rank, 0, 0, outputPadding); !st)
        return st.error();
    if (outputShape.size() == rank + 2) // some exporters give [N, C, D…]
        outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
    if (!outputShape.empty() && outputShape.size() != rank)
        return ctx.error("output_shape " + shapeString(outputShape) + " does not have one value per spatial axis");
    const std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
    if (autoPad != "NOTSET" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER" && autoPad != "VALID" &&
        !autoPad.empty())
        return ctx.error("unknown auto_pad '" + autoPad + "'");
    w.padsBegin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(rank));
    w.padsEnd.assign(pads.begin() + static_cast<std::ptrdiff_t>(rank), pads.end());
    w.output.resize(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        if (outputPadding[i] >= std::max(w.strides[i], w.dilations[i]))
            return ctx.error("output_padding " + shapeString(outputPadding) + " must be below the stride or dilation");
        const std::int64_t full = (w.input[i] - 1) * w.strides[i] + outputPadding[i] + w.extent(i);
        const bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
        if (!outputShape.empty() || same) {
            const std::int64_t target = !outputShape.empty() ? outputShape[i] : w.input[i] * w.strides[i];
            const std::int64_t total = std::max<std::int64_t>(0, full - target);
            w.padsBegin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.padsEnd[i] = total - w.padsBegin[i];
            w.output[i] = target;
        } else {
            if (autoPad == "VALID")
                w.padsBegin[i] = w.padsEnd[i] = 0;
            w.output[i] = full - w.padsBegin[i] - w.padsEnd[i];
        }
        if (w.output[i] < 0)
            return ctx.error("the pads leave a negative output size on spatial axis " + std::to_string(i));
    }
    return w;
}

} // namespace

support::Status conv(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    const Tensor w = toComputeType(ctx.input(1));
    if (w.dataType() != x.dataType())
        return ctx.error("X and W have different element types");
    auto cs = convShape(ctx, x, w);
    if (!cs)
        return cs.takeError();
    auto bias = readBias(ctx, 2, cs->filters);
    if (!bias)
        return bias.takeError();
    auto out = ctx.allocateUninitialized(x.dataType(), cs->outputShape()); // convolve stores every output
    if (!out)
        return out.takeError();
    support::Status status;
    const bool known = visitFloat(x.dataType(), [&]<typename T>() {
        T *y = out->mutableData<T>();
        const std::int64_t P = cs->outPlane();
        status = convolve<double>(ctx, *cs, x.data<T>(), w.data<T>(),
                                  [&](std::int64_t n, std::int64_t m, std::int64_t p0, const double *acc, std::int64_t count) {
                                      T *dst = y + (n * cs->filters + m) * P + p0;
                                      const double b = (*bias)[static_cast<std::size_t>(m)];
                                      for (std::int64_t i = 0; i < count; ++i)
                                          dst[i] = static_cast<T>(acc[i] + b);
                                  });
    });
    if (!known)
        return ctx.error("Conv takes floating-point inputs, not " + ir::dataTypeName(originalType));
    if (!status)
        return status;
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

support::Status convTranspose(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    const Tensor w = toComputeType(ctx.input(1));
    if (w.dataType() != x.dataType())
        return ctx.error("X and W have different element types");
    ConvShape cs;
    if (auto st = checkShapes(ctx, x, w, true, cs); !st)
        return st;
    auto window = transposedWindow(ctx, cs.window);
    if (!window)
        return window.takeError();
    cs.window = std::move(*window);
    auto bias = readBias(ctx, 2, cs.filters);
    if (!bias)
        return bias.takeError();
    auto out = ctx.allocate(x.dataType(), cs.outputShape());
    if (!out)
        return out.takeError();
    // Each input position's products with W land at output positions from the scatter table.
    auto table = windowTable(ctx, cs.window, cs.window.input, cs.window.output);
    if (!table)
        return table.takeError();
    const std::int64_t cg = cs.channels / cs.group, mg = cs.filters / cs.group, ks = cs.kernelSize();
    const std::int64_t inPlane = cs.inPlane(), outPlane = cs.outPlane();
    auto sums = ctx.allocate(TensorProto::DOUBLE, {cs.filters, outPlane});
    auto wt = ctx.allocate(x.dataType(), {mg * ks, cg});
    if (!sums || !wt)
        return !sums ? sums.takeError() : wt.takeError();
    const bool known = visitFloat(x.dataType(), [&]<typename T>() {
        const T *xs = x.data<T>();
        const T *ws = w.data<T>();
        T *wT = wt->mutableData<T>();
        T *y = out->mutableData<T>();
        double *acc = sums->mutableData<double>();
        const std::int64_t *offsets = table->data<std::int64_t>();
        for (std::int64_t n = 0; n < cs.batch; ++n) {
            std::fill(acc, acc + cs.filters * outPlane, 0.0);
            for (std::int64_t g = 0; g < cs.group; ++g) {
                for (std::int64_t c = 0; c < cg; ++c) // W's group block [cg, mg·ks] transposed for the GEMM
                    for (std::int64_t r = 0; r < mg * ks; ++r)
                        wT[r * cg + c] = ws[(g * cg + c) * mg * ks + r];
                blockedGemm<double>(wT, xs + (n * cs.channels + g * cg) * inPlane, mg * ks, cg, inPlane,
                                    [&](std::int64_t r, std::int64_t p0, const double *part, std::int64_t count) {
                                        const std::int64_t *off = offsets + (r % ks) * inPlane + p0;
                                        double *dst = acc + (g * mg + r / ks) * outPlane;
                                        for (std::int64_t i = 0; i < count; ++i)
                                            if (off[i] >= 0)
                                                dst[off[i]] += part[i];
                                    });
            }
            T *yn = y + n * cs.filters * outPlane;
            for (std::int64_t m = 0; m < cs.filters; ++m)
                for (std::int64_t p = 0; p < outPlane; ++p)
                    yn[m * outPlane + p] = static_cast<T>(acc[m * outPlane + p] + (*bias)[static_cast<std::size_t>(m)]);
        }
    });
    if (!known)
        return ctx.error("ConvTranspose takes floating-point inputs, not " + ir::dataTypeName(originalType));
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

/// ConvInteger (x, w, x_zero_point, w_zero_point) and QLinearConv (x, x_scale, x_zero_point, w, w_scale,
/// w_zero_point, y_scale, y_zero_point, B): integer sums of zero-point-centered values; QLinearConv then
/// requantizes them with x_scale·w_scale/y_scale per filter.
support::Status convInteger(KernelContext &ctx)
{
    const bool qlinear = ctx.node().opType == "QLinearConv";
    const std::size_t xi = 0, wi = qlinear ? 3 : 1;
    if (auto st = ctx.requireInputs(qlinear ? 8 : 2); !st)
        return st;
    const Tensor &xq = ctx.input(xi);
    const Tensor &wq = ctx.input(wi);
    auto cs = convShape(ctx, xq, wq);
    if (!cs)
        return cs.takeError();
    auto x = centered(ctx, xq, ctx.input(2), 1, 1, "x");
    if (!x)
        return x.takeError();
    auto w = centered(ctx, wq, ctx.input(qlinear ? 5 : 3), wq.size() / std::max<std::int64_t>(1, cs->filters),
                      cs->filters, "w");
    if (!w)
        return w.takeError();
    const std::int64_t P = cs->outPlane();
    if (!qlinear) {
        auto out = ctx.allocate(TensorProto::INT32, cs->outputShape());
        if (!out)
            return out.takeError();
        std::int32_t *y = out->mutableData<std::int32_t>();
        auto st = convolve<std::int64_t>(ctx, *cs, x->data<std::int32_t>(), w->data<std::int32_t>(),
                                         [&](std::int64_t n, std::int64_t m, std::int64_t p0, const std::int64_t *acc,
                                             std::int64_t count) {
                                             std::int32_t *dst = y + (n * cs->filters + m) * P + p0;
                                             for (std::int64_t i = 0; i < count; ++i)
                                                 dst[i] = static_cast<std::int32_t>(acc[i]);
                                         });
        if (!st)
            return st;
        ctx.setOutput(0, std::move(*out));
        return support::Status::ok();
    }
    auto xScale = quantParams(ctx, ctx.input(1), 1, "x_scale");
    auto wScale = quantParams(ctx, ctx.input(4), cs->filters, "w_scale");
    auto yScale = quantParams(ctx, ctx.input(6), 1, "y_scale");
    auto yZero = quantParams(ctx, ctx.input(7), 1, "y_zero_point");
    for (const auto *p : {&xScale, &wScale, &yScale, &yZero})
        if (!*p)
            return p->error();
    auto bias = readBias(ctx, 8, cs->filters);
    if (!bias)
        return bias.takeError();
    const int outType = ctx.input(7).dataType();
    auto out = ctx.allocate(outType, cs->outputShape());
    if (!out)
        return out.takeError();
    support::Status status;
    const bool known = visitQuantized(outType, [&]<typename Q>() {
        Q *y = out->mutableData<Q>();
        status = convolve<std::int64_t>(
            ctx, *cs, x->data<std::int32_t>(), w->data<std::int32_t>(),
            [&](std::int64_t n, std::int64_t m, std::int64_t p0, const std::int64_t *acc, std::int64_t count) {
                const auto mi = static_cast<std::size_t>(m);
                const double scale = (*xScale)[0] * (*wScale)[wScale->size() == 1 ? 0 : mi] / (*yScale)[0];
                Q *dst = y + (n * cs->filters + m) * P + p0;
                for (std::int64_t i = 0; i < count; ++i)
                    dst[i] = saturateRound<Q>((static_cast<double>(acc[i]) + (*bias)[mi]) * scale, (*yZero)[0]);
            });
    });
    if (!known)
        return ctx.error("y_zero_point must be int8 or uint8");
    if (!status)
        return status;
    ctx.setOutput(0, std::move(*out));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
