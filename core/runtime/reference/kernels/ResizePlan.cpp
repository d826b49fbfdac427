// Resize's plan: options, output shape and per-axis taps (see ResizePlan.h).
#include "runtime/reference/kernels/ResizePlan.h"

#include "runtime/Dispatch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace portolan::runtime::kernels {

std::array<double, 4> cubicWeights(double t, double a)
{
    auto near = [a](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };       // |x| ≤ 1
    auto far = [a](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }; // 1 < |x| < 2
    return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

namespace {

/// `outWidth` is the real-valued output length the reference divides by (input · scale when scales are given).
/// The cubic convolution kernel of coefficient a at distance x.
double cubicKernel(double x, double a)
{
    x = std::fabs(x);
    if (x <= 1)
        return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2)
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

/// Antialiased taps when shrinking (Resize-18): the filter's support grows by 1 / scale and its
/// weights are normalized to sum to one. Offsets are relative to floor(src), as in ONNX's reference.
int antialiasFirstOffset(const ResizeOptions &o, double scale)
{
    return static_cast<int>(std::floor((o.mode == Mode::Linear ? -1.0 : -2.0) / scale)) + 1;
}

AxisTaps axisTaps(const ResizeOptions &o, std::int64_t in, std::int64_t out, double scale, double outWidth,
                  double roiStart, double roiEnd)
{
    AxisTaps axis;
    const bool antialias = o.antialias && o.mode != Mode::Nearest && scale < 1;
    const int firstOffset = antialias ? antialiasFirstOffset(o, scale) : 0;
    axis.taps = antialias ? 2 - 2 * firstOffset : o.mode == Mode::Nearest ? 1 : (o.mode == Mode::Linear ? 2 : 4);
    axis.index.resize(static_cast<std::size_t>(out * axis.taps));
    axis.weight.resize(axis.index.size());
    axis.outside.resize(static_cast<std::size_t>(out));
    axis.identity = in == out;
    const auto last = static_cast<double>(in - 1);
    for (std::int64_t xo = 0; xo < out; ++xo) {
        const auto x = static_cast<double>(xo);
        double src = 0;
        switch (o.transform) {
        case Transform::HalfPixel: src = (x + 0.5) / scale - 0.5; break;
        case Transform::PytorchHalfPixel: src = outWidth > 1 ? (x + 0.5) / scale - 0.5 : 0; break;
        case Transform::AlignCorners: src = outWidth == 1 ? 0 : x * last / (outWidth - 1); break;
        case Transform::Asymmetric: src = x / scale; break;
        case Transform::TfHalfPixelForNn: src = (x + 0.5) / scale; break;
        case Transform::HalfPixelSymmetric: {
            // the output's integer length against its real one moves the sampling grid to stay centred
            const double adjustment = static_cast<double>(out) / outWidth, centre = static_cast<double>(in) / 2;
            src = centre * (1 - adjustment) + (x + 0.5) / scale - 0.5;
            break;
        }
        case Transform::TfCropAndResize:
            src = (outWidth == 1 ? (roiEnd - roiStart) * last / 2 : x * (roiEnd - roiStart) * last / (outWidth - 1)) +
                  roiStart * last;
            break;
        }
        const auto at = static_cast<std::size_t>(xo * axis.taps);
        if (!std::isfinite(src) || (o.transform == Transform::TfCropAndResize && (src < 0 || src > last))) {
            axis.outside[static_cast<std::size_t>(xo)] = 1;
            axis.identity = false;
            continue;
        }
        const double base = std::floor(src), t = src - base;
        const auto b = static_cast<std::int64_t>(base);
        auto clampIndex = [in](std::int64_t i) { return std::clamp<std::int64_t>(i, 0, in - 1); };
        if (antialias) {
            double total = 0;
            for (int k = 0; k < axis.taps; ++k) {
                const int offset = firstOffset + k;
                const double w = o.mode == Mode::Linear ? std::clamp(1 - std::fabs((offset - t) * scale), 0.0, 1.0)
                                                        : cubicKernel(scale * (offset - t), o.cubicA);
                const std::int64_t i = b + offset;
                const bool excluded = o.excludeOutside && (i < 0 || i >= in);
                axis.index[at + static_cast<std::size_t>(k)] = clampIndex(i);
                axis.weight[at + static_cast<std::size_t>(k)] = excluded ? 0 : w;
                total += excluded ? 0 : w;
            }
            for (int k = 0; total != 0 && k < axis.taps; ++k)
                axis.weight[at + static_cast<std::size_t>(k)] /= total;
        } else if (o.mode == Mode::Nearest) {
            std::int64_t pick = b;
            if (t != 0) {
                switch (o.rounding) {
                case Rounding::PreferFloor: pick = t <= 0.5 ? b : b + 1; break;
                case Rounding::PreferCeil: pick = t < 0.5 ? b : b + 1; break;
                case Rounding::Floor: break;
                case Rounding::Ceil: pick = b + 1; break;
                case Rounding::Legacy: pick = scale < 1 ? b + 1 : b; break;
                }
            }
            axis.index[at] = clampIndex(pick);
            axis.weight[at] = 1;
        } else if (o.mode == Mode::Linear) {
            axis.index[at] = clampIndex(b);
            axis.index[at + 1] = clampIndex(b + 1);
            axis.weight[at] = 1 - t;
            axis.weight[at + 1] = t;
        } else {
            const auto w = cubicWeights(t, o.cubicA);
            double total = 0;
            for (int k = 0; k < 4; ++k) {
                const std::int64_t i = b - 1 + k;
                const bool excluded = o.excludeOutside && (i < 0 || i >= in);
                axis.weight[at + static_cast<std::size_t>(k)] = excluded ? 0 : w[static_cast<std::size_t>(k)];
                axis.index[at + static_cast<std::size_t>(k)] = clampIndex(i);
                total += axis.weight[at + static_cast<std::size_t>(k)];
            }
            if (o.excludeOutside && total != 0)
                for (int k = 0; k < 4; ++k)
                    axis.weight[at + static_cast<std::size_t>(k)] /= total;
        }
        for (int k = 0; k < axis.taps; ++k) {
            const double w = axis.weight[at + static_cast<std::size_t>(k)];
            if (w != 0 && (w != 1 || axis.index[at + static_cast<std::size_t>(k)] != xo))
                axis.identity = false;
        }
    }
    return axis;
}

} // namespace

/// Reads a 1-D float tensor of one value per axis.
support::Expected<std::vector<double>> perAxis(KernelContext &ctx, const Tensor &t, std::size_t rank, const char *what)
{
    if (t.rank() != 1 || t.size() != static_cast<std::int64_t>(rank))
        return ctx.error(std::string(what) + " must be 1-D with one value per axis of X (" + std::to_string(rank) +
                         "), got " + shapeString(t.shape()));
    if (!visitNumeric(t.dataType(), []<typename T>() {}) && !isHalfType(t.dataType()))
        return ctx.error(std::string(what) + " must be numeric");
    const Tensor d = convertTensor(t, TensorProto::DOUBLE);
    return std::vector<double>(d.data<double>(), d.data<double>() + d.size());
}

/// The output shape for scales (floor(dim · scale)), after checking they are positive.
support::Expected<Shape> scaledShape(KernelContext &ctx, const Shape &in, const std::vector<double> &scales)
{
    Shape out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (!(scales[i] > 0) || !std::isfinite(scales[i]))
            return ctx.error("scales must be positive and finite, got " + std::to_string(scales[i]) + " on axis " +
                             std::to_string(i));
        const double d = std::floor(static_cast<double>(in[i]) * scales[i]);
        if (d > 9e15)
            return ctx.error("scales make axis " + std::to_string(i) + " impossibly large");
        out[i] = static_cast<std::int64_t>(d);
    }
    return out;
}

support::Expected<Mode> parseMode(KernelContext &ctx, const std::string &mode)
{
    if (mode == "nearest")
        return Mode::Nearest;
    if (mode == "linear" || mode == "bilinear")
        return Mode::Linear;
    if (mode == "cubic" && ctx.node().opType == "Resize" && ctx.opset() >= 11)
        return Mode::Cubic;
    return ctx.error("unsupported mode '" + mode + "'");
}

support::Expected<ResizePlan> planFromScales(KernelContext &ctx, const ResizeOptions &o, const Shape &x, const Shape &outShape,
                                             const std::vector<double> &scales, bool fromScales,
                                             const std::vector<double> &roi)
{
    // the taps are as long as the output's axes: a size bomb is refused before they are built
    if (auto fits = ctx.bytesWithinBudget(ctx.input(0).dataType(), outShape); !fits)
        return fits.error();
    ResizePlan plan{o, x, outShape, {}};
    const std::size_t rank = x.size();
    for (std::size_t axis = 0; axis < rank; ++axis) {
        const std::int64_t in = x[axis], out = outShape[axis];
        if (in == 0 && out > 0)
            return ctx.error("cannot resize the empty axis " + std::to_string(axis) + " to " + std::to_string(out));
        const double outWidth = fromScales ? static_cast<double>(in) * scales[axis] : static_cast<double>(out);
        plan.axes.push_back(axisTaps(o, in, out, scales[axis], outWidth, roi.empty() ? 0 : roi[axis],
                                     roi.empty() ? 1 : roi[rank + axis]));
    }
    return plan;
}

support::Expected<ResizePlan> planResize(KernelContext &ctx, const Shape &x, const Tensor *roiInput, const Tensor *scalesInput,
                                         const Tensor *sizesInput)
{
    const std::size_t rank = x.size();
    ResizeOptions o;
    auto mode = parseMode(ctx, ctx.attrString("mode", "nearest"));
    if (!mode)
        return mode.takeError();
    o.mode = *mode;
    if (ctx.opset() < 11) { // Resize-10: X, scales; asymmetric coordinates
        if (!roiInput) // Resize-10's second input is the scales
            return ctx.error("Resize-10 needs its scales input");
        auto scales = perAxis(ctx, *roiInput, rank, "scales");
        if (!scales)
            return scales.takeError();
        auto shape = scaledShape(ctx, x, *scales);
        if (!shape)
            return shape.takeError();
        return planFromScales(ctx, o, x, *shape, *scales, true, {});
    }
    const std::string transform = ctx.attrString("coordinate_transformation_mode", "half_pixel");
    const std::string nearest = ctx.attrString("nearest_mode", "round_prefer_floor");
    if (transform == "half_pixel") o.transform = Transform::HalfPixel;
    else if (transform == "pytorch_half_pixel") o.transform = Transform::PytorchHalfPixel;
    else if (transform == "align_corners") o.transform = Transform::AlignCorners;
    else if (transform == "asymmetric") o.transform = Transform::Asymmetric;
    else if (transform == "tf_crop_and_resize") o.transform = Transform::TfCropAndResize;
    else if (transform == "tf_half_pixel_for_nn" && ctx.opset() < 13) o.transform = Transform::TfHalfPixelForNn;
    else if (transform == "half_pixel_symmetric" && ctx.opset() >= 19) o.transform = Transform::HalfPixelSymmetric;
    else return ctx.error("unsupported coordinate_transformation_mode '" + transform + "'");
    if (nearest == "round_prefer_floor") o.rounding = Rounding::PreferFloor;
    else if (nearest == "round_prefer_ceil") o.rounding = Rounding::PreferCeil;
    else if (nearest == "floor") o.rounding = Rounding::Floor;
    else if (nearest == "ceil") o.rounding = Rounding::Ceil;
    else return ctx.error("unsupported nearest_mode '" + nearest + "'");
    o.cubicA = ctx.attrFloat("cubic_coeff_a", -0.75f);
    o.excludeOutside = ctx.attrInt("exclude_outside", 0) != 0;
    o.extrapolation = ctx.attrFloat("extrapolation_value", 0.0f);
    o.antialias = ctx.opset() >= 18 && ctx.attrInt("antialias", 0) != 0;
    // Resize-18: scales, sizes and roi may cover only the listed axes
    std::vector<std::int64_t> axes;
    if (ctx.opset() >= 18)
        axes = ctx.attrInts("axes");
    if (axes.empty())
        for (std::size_t d = 0; d < rank; ++d)
            axes.push_back(static_cast<std::int64_t>(d));
    std::vector<bool> listed(rank, false);
    for (std::int64_t &a : axes) {
        if (a < -static_cast<std::int64_t>(rank) || a >= static_cast<std::int64_t>(rank))
            return ctx.error("axes value " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
        a = a < 0 ? a + static_cast<std::int64_t>(rank) : a;
        if (listed[static_cast<std::size_t>(a)])
            return ctx.error("axis " + std::to_string(a) + " is listed twice in axes");
        listed[static_cast<std::size_t>(a)] = true;
    }
    const std::string policy = ctx.opset() >= 18 ? ctx.attrString("keep_aspect_ratio_policy", "stretch") : "stretch";
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
        return ctx.error("keep_aspect_ratio_policy '" + policy + "' is not stretch, not_larger or not_smaller");
    // a per-listed-axis list as one value per axis of X; `fill` for the others
    auto spread = [&](const std::vector<double> &values, double fill) {
        std::vector<double> full(rank, fill);
        for (std::size_t i = 0; i < axes.size(); ++i)
            full[static_cast<std::size_t>(axes[i])] = values[i];
        return full;
    };

    std::vector<double> roi;
    if (o.transform == Transform::TfCropAndResize) {
        if (!roiInput)
            return ctx.error("tf_crop_and_resize needs the roi input");
        auto r = perAxis(ctx, roiInput->reshaped({roiInput->size()}), 2 * axes.size(), "roi");
        if (!r)
            return r.takeError();
        const std::vector<double> starts(r->begin(), r->begin() + static_cast<std::ptrdiff_t>(axes.size()));
        const std::vector<double> ends(r->begin() + static_cast<std::ptrdiff_t>(axes.size()), r->end());
        roi = spread(starts, 0);
        const std::vector<double> fullEnds = spread(ends, 1);
        roi.insert(roi.end(), fullEnds.begin(), fullEnds.end());
    }
    const bool hasScales = scalesInput && scalesInput->size() > 0;
    const bool hasSizes = sizesInput && sizesInput->size() > 0;
    if (hasScales == hasSizes)
        return ctx.error("exactly one of scales and sizes must be given");
    if (hasScales) {
        auto listedScales = perAxis(ctx, *scalesInput, axes.size(), "scales");
        if (!listedScales)
            return listedScales.takeError();
        const std::vector<double> scales = spread(*listedScales, 1.0);
        auto shape = scaledShape(ctx, x, scales);
        if (!shape)
            return shape.takeError();
        return planFromScales(ctx, o, x, *shape, scales, true, roi);
    }
    const Tensor &sizes = *sizesInput;
    if (sizes.dataType() != TensorProto::INT64 || sizes.rank() != 1 || sizes.size() != static_cast<std::int64_t>(axes.size()))
        return ctx.error("sizes must be a 1-D int64 tensor with one value per axis resized");
    Shape shape = x;
    std::vector<double> scales(rank, 1.0);
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const auto a = static_cast<std::size_t>(axes[i]);
        shape[a] = sizes.data<std::int64_t>()[i];
        if (shape[a] < 0)
            return ctx.error("sizes has a negative value");
        scales[a] = x[a] == 0 ? 1.0 : static_cast<double>(shape[a]) / static_cast<double>(x[a]);
    }
    if (policy != "stretch") {
        // one scale for every listed axis: the largest (not_smaller) or smallest (not_larger) asked for,
        // and each length rounded from it (half to even, as ONNX's reference rounds)
        double scale = policy == "not_larger" ? std::numeric_limits<double>::infinity() : 0.0;
        for (const std::int64_t a : axes)
            scale = policy == "not_larger" ? std::min(scale, scales[static_cast<std::size_t>(a)])
                                           : std::max(scale, scales[static_cast<std::size_t>(a)]);
        for (const std::int64_t a : axes) {
            const auto d = static_cast<std::size_t>(a);
            scales[d] = scale;
            shape[d] = static_cast<std::int64_t>(std::nearbyint(scale * static_cast<double>(x[d])));
        }
    }
    if (auto fits = ctx.bytesWithinBudget(ctx.input(0).dataType(), shape); !fits)
        return fits.error();
    return planFromScales(ctx, o, x, shape, scales, false, roi);
}


} // namespace portolan::runtime::kernels
