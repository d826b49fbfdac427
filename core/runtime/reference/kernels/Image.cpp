// Image resampling kernels: Resize (opset 10, 11, 13 semantics), the deprecated Upsample, GridSample and
// RoiAlign. Resize runs one separable pass per axis in double, innermost axis first as the ONNX reference
// nests its interpolation; GridSample follows PyTorch's grid_sample, RoiAlign the ONNX Runtime algorithm.
#include "runtime/reference/KernelContext.h"
#include "runtime/reference/kernels/Dispatch.h"
#include "runtime/reference/kernels/ResizePlan.h"
#include "runtime/reference/kernels/Spatial.h"

#include "ir/Type.h"

#include <array>
#include <cmath>
#include <limits>

namespace portolan::runtime::kernels {

namespace {

/// Resizes x by `plan`, axis by axis, innermost first.
support::Status resample(KernelContext &ctx, const ResizePlan &plan)
{
    const ResizeOptions &o = plan.options;
    const Shape &outShape = plan.outShape;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    const std::size_t rank = x.rank();
    // The output first: it bounds every buffer below, and an empty one needs no work.
    auto result = ctx.allocate(x.dataType(), outShape);
    if (!result)
        return result.takeError();
    if (result->size() == 0) {
        ctx.setOutput(0, fromComputeType(*result, originalType));
        return support::Status::ok();
    }
    auto current = ctx.allocate(TensorProto::DOUBLE, x.shape());
    if (!current)
        return current.takeError();
    const bool numeric = visitNumeric(x.dataType(), [&]<typename T>() {
        double *dst = current->mutableData<double>();
        for (std::int64_t i = 0; i < x.size(); ++i)
            dst[i] = static_cast<double>(x.data<T>()[i]);
    });
    if (!numeric)
        return ctx.error(ctx.node().opType + " does not take " + ir::dataTypeName(originalType));
    Tensor cur = std::move(*current);
    for (std::size_t axis = rank; axis-- > 0;) {
        const std::int64_t in = cur.dim(axis), out = outShape[axis];
        const AxisTaps &taps = plan.axes[axis];
        if (taps.identity)
            continue;
        Shape shape = cur.shape();
        shape[axis] = out;
        auto next = ctx.allocate(TensorProto::DOUBLE, shape);
        if (!next)
            return next.takeError();
        std::int64_t outer = 1, inner = 1;
        for (std::size_t i = 0; i < axis; ++i)
            outer *= shape[i];
        for (std::size_t i = axis + 1; i < rank; ++i)
            inner *= shape[i];
        const double *src = cur.data<double>();
        double *dst = next->mutableData<double>();
        resampleRows(taps, taps.weight, src, dst, in, out, inner, o.extrapolation, 0, outer * out);
        cur = std::move(*next);
    }
    visitNumeric(x.dataType(), [&]<typename T>() {
        T *y = result->mutableData<T>();
        for (std::int64_t i = 0; i < cur.size(); ++i) {
            if constexpr (std::is_floating_point_v<T>)
                y[i] = static_cast<T>(cur.data<double>()[i]);
            else
                y[i] = saturateRound<T>(cur.data<double>()[i]);
        }
    });
    ctx.setOutput(0, fromComputeType(*result, originalType));
    return support::Status::ok();
}

} // namespace

support::Status resize(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    auto input = [&](std::size_t k) { return ctx.hasInput(k) ? &ctx.input(k) : nullptr; };
    auto plan = planResize(ctx, ctx.input(0).shape(), input(1), input(2), input(3));
    if (!plan)
        return plan.takeError();
    return resample(ctx, *plan);
}

/// Upsample: scales from height_scale/width_scale (opset 1), the scales attribute (7) or input (9).
support::Status upsample(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    ResizeOptions o;
    auto mode = parseMode(ctx, ctx.attrString("mode", "nearest"));
    if (!mode)
        return mode.takeError();
    o.mode = *mode;
    std::vector<double> scales;
    if (ctx.opset() >= 9) {
        if (auto st = ctx.requireInputs(2); !st)
            return st;
        auto s = perAxis(ctx, ctx.input(1), x.rank(), "scales");
        if (!s)
            return s.takeError();
        scales = std::move(*s);
    } else if (ctx.opset() >= 7) {
        const auto f = ctx.attrFloats("scales");
        scales.assign(f.begin(), f.end());
    } else {
        if (x.rank() != 4)
            return ctx.error("Upsample-1 takes a 4-D input");
        scales = {1.0, 1.0, ctx.attrFloat("height_scale", 1.0f), ctx.attrFloat("width_scale", 1.0f)};
    }
    if (scales.size() != x.rank())
        return ctx.error("scales must have one value per axis of X");
    for (const double s : scales)
        if (s < 1)
            return ctx.error("Upsample scales must be at least 1");
    auto shape = scaledShape(ctx, x.shape(), scales);
    if (!shape)
        return shape.takeError();
    auto plan = planFromScales(ctx, o, x.shape(), *shape, scales, true, {});
    if (!plan)
        return plan.takeError();
    return resample(ctx, *plan);
}

namespace {

double unnormalize(double g, std::int64_t size, bool alignCorners)
{
    return alignCorners ? (g + 1) / 2 * static_cast<double>(size - 1) : ((g + 1) * static_cast<double>(size) - 1) / 2;
}

/// Folds x into [low, high] (given doubled) by mirroring at the ends.
double reflect(double x, double twiceLow, double twiceHigh)
{
    if (twiceLow == twiceHigh)
        return 0;
    const double low = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    x = std::fabs(x - low);
    const double extra = std::fmod(x, span);
    const auto flips = static_cast<std::int64_t>(std::floor(x / span));
    return flips % 2 == 0 ? extra + low : span - extra + low;
}

enum class Padding { Zeros, Border, Reflection };

double padCoordinate(double x, std::int64_t size, Padding padding, bool alignCorners)
{
    const auto last = static_cast<double>(size - 1);
    if (padding == Padding::Border)
        return std::clamp(x, 0.0, last);
    if (padding == Padding::Reflection) {
        x = alignCorners ? reflect(x, 0, 2 * last) : reflect(x, -1, 2 * static_cast<double>(size) - 1);
        return std::clamp(x, 0.0, last);
    }
    return x;
}

} // namespace

support::Status gridSample(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    const Tensor grid = toComputeType(ctx.input(1));
    if (x.rank() != 4 || grid.rank() != 4 || grid.dim(0) != x.dim(0) || grid.dim(3) != 2)
        return ctx.error("takes X [N, C, H, W] and grid [N, H_out, W_out, 2]" +
                         std::string(ctx.opset() >= 20 ? " (GridSample-20's volumetric form is not implemented yet)" : ""));
    std::string modeName = ctx.attrString("mode", ctx.opset() >= 20 ? "linear" : "bilinear");
    if (ctx.opset() >= 20) { // GridSample-20 renamed the modes linear, nearest and cubic
        if (modeName == "linear" || modeName == "cubic")
            modeName = modeName == "linear" ? "bilinear" : "bicubic";
        else if (modeName != "nearest")
            return ctx.error("mode '" + modeName + "' is not linear, nearest or cubic");
    }
    const std::string paddingName = ctx.attrString("padding_mode", "zeros");
    const bool alignCorners = ctx.attrInt("align_corners", 0) != 0;
    if (modeName != "bilinear" && modeName != "nearest" && modeName != "bicubic")
        return ctx.error("unsupported mode '" + modeName + "'");
    if (paddingName != "zeros" && paddingName != "border" && paddingName != "reflection")
        return ctx.error("unsupported padding_mode '" + paddingName + "'");
    const Padding padding = paddingName == "zeros" ? Padding::Zeros
                            : paddingName == "border" ? Padding::Border : Padding::Reflection;
    const std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), Ho = grid.dim(1), Wo = grid.dim(2);
    if (H == 0 || W == 0)
        return ctx.error("X has an empty spatial axis");
    auto out = ctx.allocate(x.dataType(), {N, C, Ho, Wo});
    if (!out)
        return out.takeError();
    const bool known = visitFloat(x.dataType(), [&]<typename T>() {
        const T *g = grid.data<T>();
        T *y = out->mutableData<T>();
        // Up to 16 taps (bicubic) of (plane offset, weight); out-of-range taps read zero and are dropped.
        std::array<std::int64_t, 16> at{};
        std::array<double, 16> weight{};
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t p = 0; p < Ho * Wo; ++p) {
                const double gx = static_cast<double>(g[(n * Ho * Wo + p) * 2]);
                const double gy = static_cast<double>(g[(n * Ho * Wo + p) * 2 + 1]);
                int taps = 0;
                auto add = [&](std::int64_t ix, std::int64_t iy, double w) {
                    if (ix >= 0 && ix < W && iy >= 0 && iy < H) {
                        at[static_cast<std::size_t>(taps)] = iy * W + ix;
                        weight[static_cast<std::size_t>(taps++)] = w;
                    }
                };
                // Clamped far outside the input so the integer conversions below stay defined.
                double fx = std::clamp(unnormalize(gx, W, alignCorners), -1e15, 1e15);
                double fy = std::clamp(unnormalize(gy, H, alignCorners), -1e15, 1e15);
                const bool nan = std::isnan(fx) || std::isnan(fy);
                if (!nan && modeName == "bicubic") {
                    const double bx = std::floor(fx), by = std::floor(fy);
                    const auto wx = cubicWeights(fx - bx, -0.75), wy = cubicWeights(fy - by, -0.75);
                    for (int j = 0; j < 4; ++j)
                        for (int i = 0; i < 4; ++i) { // each tap is padded on its own, as PyTorch does
                            const double tx = padCoordinate(bx - 1 + i, W, padding, alignCorners);
                            const double ty = padCoordinate(by - 1 + j, H, padding, alignCorners);
                            add(static_cast<std::int64_t>(tx), static_cast<std::int64_t>(ty),
                                wx[static_cast<std::size_t>(i)] * wy[static_cast<std::size_t>(j)]);
                        }
                } else if (!nan) {
                    fx = padCoordinate(fx, W, padding, alignCorners);
                    fy = padCoordinate(fy, H, padding, alignCorners);
                    if (modeName == "nearest") {
                        add(static_cast<std::int64_t>(std::nearbyint(fx)), static_cast<std::int64_t>(std::nearbyint(fy)), 1);
                    } else {
                        const double bx = std::floor(fx), by = std::floor(fy), tx = fx - bx, ty = fy - by;
                        const auto ix = static_cast<std::int64_t>(bx), iy = static_cast<std::int64_t>(by);
                        add(ix, iy, (1 - tx) * (1 - ty));
                        add(ix + 1, iy, tx * (1 - ty));
                        add(ix, iy + 1, (1 - tx) * ty);
                        add(ix + 1, iy + 1, tx * ty);
                    }
                }
                for (std::int64_t c = 0; c < C; ++c) {
                    const T *plane = x.data<T>() + (n * C + c) * H * W;
                    double v = nan ? std::numeric_limits<double>::quiet_NaN() : 0.0;
                    for (int k = 0; k < taps; ++k)
                        v += weight[static_cast<std::size_t>(k)] * static_cast<double>(plane[at[static_cast<std::size_t>(k)]]);
                    y[(n * C + c) * Ho * Wo + p] = static_cast<T>(v);
                }
            }
    });
    if (!known)
        return ctx.error("GridSample takes floating-point inputs, not " + ir::dataTypeName(originalType));
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

/// RoiAlign: per region, bins of sampling-grid points bilinearly interpolated (points more than one pixel
/// outside count as zero), averaged or — as ONNX Runtime does — the maximum weighted corner value.
support::Status roiAlign(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    const Tensor x = toComputeType(ctx.input(0));
    const Tensor rois = convertTensor(toComputeType(ctx.input(1)), TensorProto::DOUBLE);
    const Tensor &batch = ctx.input(2);
    if (x.rank() != 4 || rois.rank() != 2 || rois.dim(1) != 4)
        return ctx.error("takes X [N, C, H, W] and rois [num_rois, 4]");
    if (batch.dataType() != TensorProto::INT64 || batch.rank() != 1 || batch.size() != rois.dim(0))
        return ctx.error("batch_indices must be 1-D int64 with one index per roi");
    const std::string modeName = ctx.attrString("mode", "avg");
    if (modeName != "avg" && modeName != "max")
        return ctx.error("unsupported mode '" + modeName + "'");
    const std::string transform =
        ctx.opset() >= 16 ? ctx.attrString("coordinate_transformation_mode", "half_pixel") : "output_half_pixel";
    if (transform != "half_pixel" && transform != "output_half_pixel")
        return ctx.error("unsupported coordinate_transformation_mode '" + transform + "'");
    const bool halfPixel = transform == "half_pixel", maxMode = modeName == "max";
    const std::int64_t oh = ctx.attrInt("output_height", 1), ow = ctx.attrInt("output_width", 1);
    const std::int64_t samplingRatio = ctx.attrInt("sampling_ratio", 0);
    const double scale = ctx.attrFloat("spatial_scale", 1.0f);
    if (oh < 1 || ow < 1 || samplingRatio < 0)
        return ctx.error("output_height and output_width must be positive and sampling_ratio not negative");
    const std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
    if (H == 0 || W == 0)
        return ctx.error("X has an empty spatial axis");
    auto out = ctx.allocate(x.dataType(), {R, C, oh, ow});
    if (!out)
        return out.takeError();
    std::vector<double> acc(static_cast<std::size_t>(C));
    support::Status status;
    const bool known = visitFloat(x.dataType(), [&]<typename T>() {
        T *y = out->mutableData<T>();
        for (std::int64_t r = 0; r < R && status; ++r) {
            const std::int64_t b = batch.data<std::int64_t>()[r];
            if (b < 0 || b >= N) {
                status = ctx.error("batch index " + std::to_string(b) + " is outside [0, " + std::to_string(N) + ")");
                return;
            }
            const double *roi = rois.data<double>() + r * 4, offset = halfPixel ? 0.5 : 0.0;
            const double x0 = roi[0] * scale - offset, y0 = roi[1] * scale - offset;
            double rw = roi[2] * scale - offset - x0, rh = roi[3] * scale - offset - y0;
            if (!halfPixel) {
                rw = std::max(rw, 1.0);
                rh = std::max(rh, 1.0);
            }
            const double binW = rw / static_cast<double>(ow), binH = rh / static_cast<double>(oh);
            const double gridH = samplingRatio > 0 ? static_cast<double>(samplingRatio) : std::ceil(binH);
            const double gridW = samplingRatio > 0 ? static_cast<double>(samplingRatio) : std::ceil(binW);
            if (!(gridH < 65536 && gridW < 65536)) {
                status = ctx.error("roi " + std::to_string(r) + " has a non-finite coordinate or needs an adaptive sampling grid too large to compute");
                return;
            }
            const auto gh = static_cast<std::int64_t>(std::max(gridH, 0.0)), gw = static_cast<std::int64_t>(std::max(gridW, 0.0));
            const double count = static_cast<double>(std::max<std::int64_t>(gh * gw, 1));
            const T *planes = x.data<T>() + b * C * H * W;
            for (std::int64_t ph = 0; ph < oh; ++ph)
                for (std::int64_t pw = 0; pw < ow; ++pw) {
                    std::fill(acc.begin(), acc.end(), maxMode ? -std::numeric_limits<double>::infinity() : 0.0);
                    for (std::int64_t iy = 0; iy < gh; ++iy)
                        for (std::int64_t ix = 0; ix < gw; ++ix) {
                            double sy = y0 + ph * binH + (iy + 0.5) * binH / gridH;
                            double sx = x0 + pw * binW + (ix + 0.5) * binW / gridW;
                            std::array<std::int64_t, 4> at{};
                            std::array<double, 4> w{};
                            if (sy >= -1.0 && sy <= H && sx >= -1.0 && sx <= W) { // else all weights stay 0
                                sy = std::max(sy, 0.0);
                                sx = std::max(sx, 0.0);
                                auto lowHigh = [](double &v, std::int64_t size, std::int64_t &lo, std::int64_t &hi) {
                                    lo = static_cast<std::int64_t>(v);
                                    hi = lo + 1;
                                    if (lo >= size - 1) {
                                        lo = hi = size - 1;
                                        v = static_cast<double>(lo);
                                    }
                                };
                                std::int64_t yl, yh, xl, xh;
                                lowHigh(sy, H, yl, yh);
                                lowHigh(sx, W, xl, xh);
                                const double ly = sy - yl, lx = sx - xl;
                                at = {yl * W + xl, yl * W + xh, yh * W + xl, yh * W + xh};
                                w = {(1 - ly) * (1 - lx), (1 - ly) * lx, ly * (1 - lx), ly * lx};
                            }
                            for (std::int64_t c = 0; c < C; ++c) {
                                const T *p = planes + c * H * W;
                                double v[4];
                                for (std::size_t k = 0; k < 4; ++k)
                                    v[k] = w[k] * static_cast<double>(p[at[k]]);
                                double &a = acc[static_cast<std::size_t>(c)];
                                a = maxMode ? std::max({a, v[0], v[1], v[2], v[3]}) : a + v[0] + v[1] + v[2] + v[3];
                            }
                        }
                    for (std::int64_t c = 0; c < C; ++c) {
                        const double a = acc[static_cast<std::size_t>(c)];
                        y[((r * C + c) * oh + ph) * ow + pw] = static_cast<T>(maxMode ? (gh * gw > 0 ? a : 0.0) : a / count);
                    }
                }
        }
    });
    if (!known)
        return ctx.error("RoiAlign takes floating-point inputs, not " + ir::dataTypeName(originalType));
    if (!status)
        return status;
    ctx.setOutput(0, fromComputeType(*out, originalType));
    return support::Status::ok();
}

} // namespace portolan::runtime::kernels
