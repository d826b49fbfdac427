// Image resampling kernels: Resize (opset 10, 11, 13 semantics), the deprecated Upsample, GridSample and
// RoiAlign. Resize runs one separable pass per axis in double, innermost axis first as the ONNX reference
// nests its interpolation; GridSample follows PyTorch's grid_sample, taken to any number of spatial axes
// (GridSample-20's N-linear and N-cubic modes), RoiAlign the ONNX Runtime algorithm.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/ResizePlan.h"
#include "runtime/reference/kernels/Spatial.h"

#include "ir/Type.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

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

enum class Sampling { Linear, Nearest, Cubic };

/// Taps per output point (1, 2 or 4 per axis, multiplied over the axes) the kernel accepts: N-cubic over
/// seven axes would already need 16384 reads per point and channel.
constexpr std::int64_t kMaxTapsPerPoint = 4096;

/// The taps along one spatial axis for one sampling point, in tap order; a tap outside the axis
/// reads zero, so it is left out.
struct AxisSamples {
    std::array<std::int64_t, 4> index{};
    std::array<double, 4> weight{};
    std::size_t count = 0;

    void add(std::int64_t i, double w, std::int64_t size)
    {
        if (i >= 0 && i < size) {
            index[count] = i;
            weight[count++] = w;
        }
    }
};

/// The taps of unnormalized coordinate f (not NaN, within ±1e15) on an axis of `size` elements.
AxisSamples axisSamples(double f, std::int64_t size, Sampling sampling, Padding padding, bool alignCorners)
{
    AxisSamples s;
    if (sampling == Sampling::Cubic) { // the point stays put and each tap is padded on its own, as PyTorch does
        const double base = std::floor(f);
        const auto w = cubicWeights(f - base, -0.75);
        for (std::size_t i = 0; i < 4; ++i) {
            const double tap = padCoordinate(base - 1 + static_cast<double>(i), size, padding, alignCorners);
            s.add(static_cast<std::int64_t>(tap), w[i], size);
        }
        return s;
    }
    f = padCoordinate(f, size, padding, alignCorners); // linear and nearest move the point itself into X
    if (sampling == Sampling::Nearest) {
        s.add(static_cast<std::int64_t>(std::nearbyint(f)), 1, size); // ties to even, the spec's rule
        return s;
    }
    const double base = std::floor(f), t = f - base;
    const auto i = static_cast<std::int64_t>(base);
    s.add(i, 1 - t, size);
    s.add(i + 1, t, size);
    return s;
}

} // namespace

/// GridSample over any number r of spatial axes (opset 16: r = 2 only): for each grid point, the taps of
/// every axis (1 nearest, 2 linear, 4 cubic) are combined into their product, innermost axis fastest,
/// each weighing the product of its axes' weights; the sum runs in double.
support::Status gridSample(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const int originalType = ctx.input(0).dataType();
    if (!isFloatingType(originalType))
        return ctx.error("GridSample takes floating-point inputs, not " + ir::dataTypeName(originalType));
    if (!isFloatingType(ctx.input(1).dataType()))
        return ctx.error("grid must be floating-point, not " + ir::dataTypeName(ctx.input(1).dataType()));
    const Tensor x = toComputeType(ctx.input(0));
    const Tensor grid = toComputeType(ctx.input(1));
    const std::size_t rank = x.rank();
    if (ctx.opset() < 20 && rank != 4)
        return ctx.error("GridSample-16 takes X [N, C, H, W] and grid [N, H_out, W_out, 2]");
    if (rank < 3 || grid.rank() != rank || grid.dim(0) != x.dim(0) ||
        grid.dim(rank - 1) != static_cast<std::int64_t>(rank - 2))
        return ctx.error("takes X [N, C, D1, ..., Dr] and grid [N, O1, ..., Or, r] of the same rank, at least 3");
    const std::size_t r = rank - 2;

    std::string modeName = ctx.attrString("mode", ctx.opset() >= 20 ? "linear" : "bilinear");
    // GridSample-20 renamed the modes bilinear and bicubic to linear and cubic (N-linear, N-cubic).
    const std::string linearName = ctx.opset() >= 20 ? "linear" : "bilinear";
    const std::string cubicName = ctx.opset() >= 20 ? "cubic" : "bicubic";
    Sampling sampling;
    if (modeName == linearName)
        sampling = Sampling::Linear;
    else if (modeName == "nearest")
        sampling = Sampling::Nearest;
    else if (modeName == cubicName)
        sampling = Sampling::Cubic;
    else
        return ctx.error("mode '" + modeName + "' is not " + linearName + ", nearest or " + cubicName);
    const std::string paddingName = ctx.attrString("padding_mode", "zeros");
    if (paddingName != "zeros" && paddingName != "border" && paddingName != "reflection")
        return ctx.error("unsupported padding_mode '" + paddingName + "'");
    const Padding padding = paddingName == "zeros" ? Padding::Zeros
                            : paddingName == "border" ? Padding::Border : Padding::Reflection;
    const bool alignCorners = ctx.attrInt("align_corners", 0) != 0;

    const std::int64_t perAxis = sampling == Sampling::Cubic ? 4 : sampling == Sampling::Linear ? 2 : 1;
    std::int64_t maxTaps = 1;
    for (std::size_t a = 0; a < r; ++a)
        if ((maxTaps *= perAxis) > kMaxTapsPerPoint)
            return ctx.error("mode '" + modeName + "' over " + std::to_string(r) + " spatial axes reads more than " +
                             std::to_string(kMaxTapsPerPoint) + " input points per output point");

    // Spatial sizes and strides of X; the output takes the grid's spatial shape.
    const std::int64_t N = x.dim(0), C = x.dim(1);
    std::vector<std::int64_t> inDims(r), inStride(r);
    std::int64_t inPlane = 1, outPoints = 1;
    Shape outShape{N, C};
    for (std::size_t a = r; a-- > 0;) {
        inDims[a] = x.dim(a + 2);
        inStride[a] = inPlane;
        inPlane *= inDims[a];
    }
    for (std::size_t a = 0; a < r; ++a) {
        outShape.push_back(grid.dim(a + 1));
        outPoints *= grid.dim(a + 1);
    }
    auto out = ctx.allocate(x.dataType(), outShape);
    if (!out)
        return out.takeError();
    if (out->size() == 0) { // nothing to sample, even from an empty X
        ctx.setOutput(0, fromComputeType(*out, originalType));
        return support::Status::ok();
    }
    if (inPlane == 0)
        return ctx.error("X has an empty spatial axis");
    auto tapOffsets = ctx.allocate(TensorProto::INT64, {maxTaps});
    if (!tapOffsets)
        return tapOffsets.takeError();
    auto tapWeights = ctx.allocate(TensorProto::DOUBLE, {maxTaps});
    if (!tapWeights)
        return tapWeights.takeError();
    std::int64_t *at = tapOffsets->mutableData<std::int64_t>();
    double *weight = tapWeights->mutableData<double>();
    std::vector<AxisSamples> axes(r);
    std::vector<std::size_t> digit(r); // which tap of each axis the current product term takes

    visitFloat(x.dataType(), [&]<typename T>() {
        visitFloat(grid.dataType(), [&]<typename G>() {
            T *y = out->mutableData<T>();
            for (std::int64_t n = 0; n < N; ++n)
                for (std::int64_t p = 0; p < outPoints; ++p) {
                    // The grid lists a point's coordinates innermost axis first (x, y, z, ...).
                    const G *coordinates = grid.data<G>() + (n * outPoints + p) * static_cast<std::int64_t>(r);
                    bool nan = false, empty = false;
                    for (std::size_t a = 0; a < r && !nan; ++a) {
                        const std::size_t axis = r - 1 - a;
                        // Clamped far outside X so the integer conversions stay defined.
                        const double f = std::clamp(unnormalize(static_cast<double>(coordinates[a]), inDims[axis],
                                                                alignCorners), -1e15, 1e15);
                        nan = std::isnan(f);
                        if (!nan) {
                            axes[axis] = axisSamples(f, inDims[axis], sampling, padding, alignCorners);
                            empty = empty || axes[axis].count == 0;
                        }
                    }
                    std::int64_t taps = 0;
                    if (!nan && !empty) {
                        std::fill(digit.begin(), digit.end(), 0);
                        for (bool more = true; more;) {
                            std::int64_t offset = 0;
                            for (std::size_t a = 0; a < r; ++a)
                                offset += axes[a].index[digit[a]] * inStride[a];
                            // Innermost axis's weight first: in 2-D, wx * wy exactly as before the N-D form.
                            double w = axes[r - 1].weight[digit[r - 1]];
                            for (std::size_t a = r - 1; a-- > 0;)
                                w *= axes[a].weight[digit[a]];
                            at[taps] = offset;
                            weight[taps++] = w;
                            more = false;
                            for (std::size_t a = r; a-- > 0;) { // next term, innermost axis fastest
                                if (++digit[a] < axes[a].count) {
                                    more = true;
                                    break;
                                }
                                digit[a] = 0;
                            }
                        }
                    }
                    for (std::int64_t c = 0; c < C; ++c) {
                        const T *plane = x.data<T>() + (n * C + c) * inPlane;
                        double v = nan ? std::numeric_limits<double>::quiet_NaN() : 0.0;
                        for (std::int64_t k = 0; k < taps; ++k)
                            v += weight[k] * static_cast<double>(plane[at[k]]);
                        y[(n * C + c) * outPoints + p] = static_cast<T>(v);
                    }
                }
        });
    });
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
