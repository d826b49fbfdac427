// Resize's plan: its options from the attributes (every opset's semantics), the output shape from
// scales or sizes, and for each axis the input taps and weights of every output index. The reference
// kernel resamples with it in double; the compiled executor's native Resize builds it once at
// compile time and resamples in float.
#pragma once

#include "runtime/KernelContext.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace portolan::runtime::kernels {

enum class Mode { Nearest, Linear, Cubic };
enum class Transform { HalfPixel, PytorchHalfPixel, AlignCorners, Asymmetric, TfHalfPixelForNn, TfCropAndResize,
                       HalfPixelSymmetric };
// Legacy: Upsample and Resize-10 take the floor when enlarging and the ceiling when shrinking.
enum class Rounding { PreferFloor, PreferCeil, Floor, Ceil, Legacy };

struct ResizeOptions {
    Mode mode = Mode::Nearest;
    Transform transform = Transform::Asymmetric;
    Rounding rounding = Rounding::Legacy;
    double cubicA = -0.75;
    bool excludeOutside = false;
    double extrapolation = 0;
    /// Resize-18: a linear or cubic filter stretched by 1 / scale when shrinking, so every input
    /// element counts (the taps of an axis then grow to the stretched filter's width).
    bool antialias = false;
};

/// One axis of a resize: for each output index, `taps` (input index, weight) pairs, or `outside` when
/// tf_crop_and_resize maps it out of the input (it then takes extrapolation_value).
struct AxisTaps {
    int taps = 1;
    std::vector<std::int64_t> index;
    std::vector<double> weight;
    std::vector<std::uint8_t> outside;
    bool identity = true;
};

/// A resize of an input of one shape: per axis (input order) its taps; `identity` axes are skipped.
struct ResizePlan {
    ResizeOptions options;
    Shape inShape, outShape;
    std::vector<AxisTaps> axes;
};

/// Resize (opset 10, 11, 13+) at input shape `x`: `roi`, `scales`, `sizes` are its inputs 1-3 (nullptr
/// when absent). Errors name what is wrong, as the node's errors do.
support::Expected<ResizePlan> planResize(KernelContext &ctx, const Shape &x, const Tensor *roi, const Tensor *scales,
                                         const Tensor *sizes);

/// The plan for explicit options, output shape and per-axis scales (Upsample's path). `fromScales`:
/// the scales were given, not derived from sizes, which changes the real-valued output length.
support::Expected<ResizePlan> planFromScales(KernelContext &ctx, const ResizeOptions &o, const Shape &x, const Shape &outShape,
                                             const std::vector<double> &scales, bool fromScales,
                                             const std::vector<double> &roi);

/// One separable pass over rows [rowBegin, rowEnd) of a [outer, out, inner] destination from a
/// [outer, in, inner] source: each row is its taps' weighted sum, or `extrapolation` outside. `weight`
/// is `taps.weight` in the pass's arithmetic type (double for the reference, float natively).
template <typename T>
void resampleRows(const AxisTaps &taps, const std::vector<T> &weight, const T *src, T *dst, std::int64_t in, std::int64_t out,
                  std::int64_t inner, T extrapolation, std::int64_t rowBegin, std::int64_t rowEnd)
{
    for (std::int64_t r = rowBegin; r < rowEnd; ++r) {
        const std::int64_t b = r / out, xo = r % out;
        T *d = dst + r * inner;
        std::fill(d, d + inner, taps.outside[static_cast<std::size_t>(xo)] ? extrapolation : T(0));
        if (taps.outside[static_cast<std::size_t>(xo)])
            continue;
        for (int k = 0; k < taps.taps; ++k) {
            const auto at = static_cast<std::size_t>(xo * taps.taps + k);
            const T w = weight[at];
            if (w == 0) // a zero-weight neighbor must not turn an Inf into NaN
                continue;
            const T *s = src + (b * in + taps.index[at]) * inner;
            for (std::int64_t j = 0; j < inner; ++j)
                d[j] += w * s[j];
        }
    }
}

/// Keys' cubic convolution weights for the four taps around a point `t` ∈ [0, 1) past the second
/// one (GridSample's bicubic mode uses them too).
std::array<double, 4> cubicWeights(double t, double a);

/// Helpers the Upsample kernel shares.
support::Expected<std::vector<double>> perAxis(KernelContext &ctx, const Tensor &t, std::size_t rank, const char *what);
support::Expected<Shape> scaledShape(KernelContext &ctx, const Shape &in, const std::vector<double> &scales);
support::Expected<Mode> parseMode(KernelContext &ctx, const std::string &mode);

} // namespace portolan::runtime::kernels
