// Signal kernels (DFT, STFT, Hann/Hamming/Blackman windows, MelWeightMatrix), computed in double, and the
// random generators (Bernoulli, RandomUniform, RandomNormal and their *Like forms), seeded by their seed attribute.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/DataMovement.h"
#include "runtime/reference/kernels/TensorOps.h"

#include "ir/Type.h"

#include <bit>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>

namespace portolan::runtime::kernels {

namespace {

using Complex = std::complex<double>;

// A DFT of one length: radix-2 when the length is a power of two, else the direct sum. Twiddles are
// computed directly (not by recurrence) so every one is accurate to an ulp.
class Dft {
public:
    Dft(std::int64_t n, bool inverse) : m_n(n), m_inverse(inverse), m_twiddles(static_cast<std::size_t>(n)), m_work(m_twiddles.size())
    {
        const double sign = inverse ? 1.0 : -1.0;
        for (std::int64_t k = 0; k < n; ++k) {
            const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
            m_twiddles[static_cast<std::size_t>(k)] = Complex(std::cos(angle), std::sin(angle));
        }
    }

    /// Transforms `data` (m_n values) in place; the inverse is scaled by 1/n.
    void run(std::vector<Complex> &data)
    {
        const auto n = static_cast<std::size_t>(m_n);
        if (n > 1 && std::has_single_bit(n))
            radix2(data);
        else
            direct(data);
        if (m_inverse)
            for (Complex &v : data)
                v /= static_cast<double>(n);
    }

private:
    void direct(std::vector<Complex> &data)
    {
        const auto n = static_cast<std::size_t>(m_n);
        for (std::size_t k = 0; k < n; ++k) {
            Complex sum = 0;
            std::size_t index = 0; // (j * k) mod n, kept without overflow
            for (std::size_t j = 0; j < n; ++j) {
                sum += data[j] * m_twiddles[index];
                index += k;
                if (index >= n)
                    index -= n;
            }
            m_work[k] = sum;
        }
        data.swap(m_work);
    }

    void radix2(std::vector<Complex> &data) const
    {
        const auto n = static_cast<std::size_t>(m_n);
        for (std::size_t i = 1, j = 0; i < n; ++i) {
            std::size_t bit = n >> 1;
            for (; j & bit; bit >>= 1)
                j ^= bit;
            j ^= bit;
            if (i < j)
                std::swap(data[i], data[j]);
        }
        for (std::size_t len = 2; len <= n; len <<= 1) {
            const std::size_t stride = n / len;
            for (std::size_t start = 0; start < n; start += len)
                for (std::size_t k = 0; k < len / 2; ++k) {
                    const Complex u = data[start + k];
                    const Complex v = data[start + k + len / 2] * m_twiddles[k * stride];
                    data[start + k] = u + v;
                    data[start + k + len / 2] = u - v;
                }
        }
    }

    std::int64_t m_n;
    bool m_inverse;
    std::vector<Complex> m_twiddles;
    std::vector<Complex> m_work;
};

support::Expected<std::int64_t> positiveScalar(KernelContext &ctx, std::size_t input, const char *what)
{
    auto v = scalarInteger(ctx, ctx.input(input), what);
    if (v && *v <= 0)
        return ctx.error(std::string(what) + " must be positive, got " + std::to_string(*v));
    return v;
}

bool isFloatTensor(const Tensor &t)
{
    return visitFloat(toComputeType(t).dataType(), []<typename T>() {});
}

} // namespace

// DFT (opset 17): input [..., n, ..., 1 or 2] (real or complex as a trailing dim), axis counts from the
// front (negative from the back, the complex dim excluded), dft_length pads with zeros or truncates.
support::Status dft(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &x = ctx.input(0);
    if (!isFloatTensor(x))
        return ctx.error("needs a floating-point input, got " + ir::dataTypeName(x.dataType()));
    const auto rank = static_cast<std::int64_t>(x.rank());
    if (rank < 2 || (x.dim(x.rank() - 1) != 1 && x.dim(x.rank() - 1) != 2))
        return ctx.error("the input's last dim must be 1 (real) or 2 (complex)");
    // DFT-20 takes the axis as an optional scalar input (default -2), DFT-17 as an attribute
    std::int64_t axis = ctx.opset() >= 20 ? -2 : ctx.attrInt("axis", 1);
    if (ctx.opset() >= 20 && ctx.hasInput(2)) {
        const Tensor &a = ctx.input(2);
        if (a.size() != 1 || !visitInteger(a.dataType(), [&]<typename T>() { axis = static_cast<std::int64_t>(a.data<T>()[0]); }))
            return ctx.error("axis must be an integer scalar");
    }
    if (axis < -rank || axis > rank - 2 || (axis < 0 && axis + rank == rank - 1))
        return ctx.error("axis " + std::to_string(axis) + " is out of range for a rank-" + std::to_string(rank) +
                         " input (the last dim holds the complex parts)");
    axis = axis < 0 ? axis + rank : axis;
    const bool inverse = ctx.attrInt("inverse", 0) != 0;
    const bool onesided = ctx.attrInt("onesided", 0) != 0;
    const bool complexInput = x.dim(x.rank() - 1) == 2;
    // onesided: forward, a real signal's half spectrum (RFFT); inverse (DFT-20), a half spectrum's real
    // signal (IRFFT), the other half being the conjugate mirror.
    const bool irfft = onesided && inverse;
    if (irfft && (ctx.opset() < 20 || !complexInput))
        return ctx.error(ctx.opset() < 20 ? "onesided with inverse (IRFFT) is defined from DFT-20 on"
                                          : "onesided with inverse (IRFFT) needs a complex (one-sided) input");
    if (onesided && !inverse && complexInput)
        return ctx.error("onesided forward output (RFFT) needs a real input");
    const std::int64_t length = x.dim(static_cast<std::size_t>(axis));
    std::int64_t n = irfft ? 2 * (length - 1) : length;
    if (ctx.hasInput(1)) {
        auto given = positiveScalar(ctx, 1, "dft_length");
        if (!given)
            return given.takeError();
        n = *given;
    }
    if (n <= 0)
        return ctx.error("an IRFFT of " + std::to_string(length) + " bins needs dft_length (the default 2 * (bins - 1) is 0)");
    const std::int64_t bins = irfft ? n : onesided ? n / 2 + 1 : n;
    Shape shape = x.shape();
    shape[static_cast<std::size_t>(axis)] = bins;
    shape.back() = irfft ? 1 : 2;
    auto out = ctx.allocate(TensorProto::DOUBLE, shape);
    if (!out)
        return out.takeError();
    auto in = toDouble(ctx, x);
    if (!in)
        return in.takeError();

    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < axis; ++d)
        outer *= x.dim(static_cast<std::size_t>(d));
    for (std::int64_t d = axis + 1; d < rank - 1; ++d)
        inner *= x.dim(static_cast<std::size_t>(d));
    const std::int64_t parts = complexInput ? 2 : 1;
    const double *src = in->data<double>();
    double *dst = out->mutableData<double>();
    Dft transform(n, inverse);
    std::vector<Complex> line(static_cast<std::size_t>(n));
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
            const std::int64_t given = irfft ? std::min(length, n / 2 + 1) : std::min(length, n);
            for (std::int64_t k = 0; k < n; ++k) {
                const double *v = src + ((o * length + k) * inner + i) * parts;
                line[static_cast<std::size_t>(k)] = k < given ? Complex(v[0], complexInput ? v[1] : 0.0) : Complex(0);
            }
            if (irfft) // bins past n/2 mirror the first half: Y[n - k] = conj(Y[k])
                for (std::int64_t k = 1; k < given && n - k > n / 2; ++k)
                    line[static_cast<std::size_t>(n - k)] = std::conj(line[static_cast<std::size_t>(k)]);
            transform.run(line);
            const std::int64_t width = irfft ? 1 : 2;
            for (std::int64_t k = 0; k < bins; ++k) {
                double *w = dst + ((o * bins + k) * inner + i) * width;
                w[0] = line[static_cast<std::size_t>(k)].real();
                if (!irfft)
                    w[1] = line[static_cast<std::size_t>(k)].imag();
            }
        }
    return emit(ctx, fromDouble(ctx, *out, x.dataType()));
}

// STFT (opset 17): signal [batch, length, 1 or 2], frame_step, optional window and frame_length →
// [batch, frames, bins, 2] with frames = 1 + (length - frame_length) / frame_step.
support::Status stft(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(2); !st)
        return st;
    const Tensor &signal = ctx.input(0);
    if (!isFloatTensor(signal))
        return ctx.error("needs a floating-point signal, got " + ir::dataTypeName(signal.dataType()));
    if (signal.rank() != 3 || (signal.dim(2) != 1 && signal.dim(2) != 2))
        return ctx.error("the signal must be [batch, length, 1 or 2]");
    const bool complexInput = signal.dim(2) == 2;
    auto step = positiveScalar(ctx, 1, "frame_step");
    if (!step)
        return step.takeError();
    std::int64_t frameLength = 0;
    if (ctx.hasInput(2)) {
        if (ctx.input(2).rank() != 1 || !isFloatTensor(ctx.input(2)))
            return ctx.error("the window must be a 1-D floating-point tensor");
        frameLength = ctx.input(2).dim(0);
    }
    if (ctx.hasInput(3)) {
        auto given = positiveScalar(ctx, 3, "frame_length");
        if (!given)
            return given.takeError();
        if (frameLength && *given != frameLength)
            return ctx.error("frame_length " + std::to_string(*given) + " differs from the window's length " +
                             std::to_string(frameLength));
        frameLength = *given;
    }
    if (frameLength <= 0)
        return ctx.error("needs a window or a frame_length");
    const std::int64_t length = signal.dim(1);
    if (frameLength > length)
        return ctx.error("the frame length " + std::to_string(frameLength) + " exceeds the signal length " +
                         std::to_string(length));
    const bool onesided = ctx.attrInt("onesided", 1) != 0;
    if (onesided && complexInput)
        return ctx.error("onesided output needs a real signal (set onesided=0 for a complex one)");
    const std::int64_t frames = 1 + (length - frameLength) / *step;
    const std::int64_t bins = onesided ? frameLength / 2 + 1 : frameLength;
    const std::int64_t batch = signal.dim(0);
    auto out = ctx.allocate(TensorProto::DOUBLE, {batch, frames, bins, 2});
    if (!out)
        return out.takeError();
    auto in = toDouble(ctx, signal);
    if (!in)
        return in.takeError();
    Tensor window;
    if (ctx.hasInput(2)) {
        auto w = toDouble(ctx, ctx.input(2));
        if (!w)
            return w.takeError();
        window = std::move(*w);
    }
    const std::int64_t parts = complexInput ? 2 : 1;
    const double *src = in->data<double>();
    double *dst = out->mutableData<double>();
    Dft transform(frameLength, false);
    std::vector<Complex> line(static_cast<std::size_t>(frameLength));
    for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t f = 0; f < frames; ++f) {
            for (std::int64_t k = 0; k < frameLength; ++k) {
                const double *v = src + (b * length + f * *step + k) * parts;
                const double scale = window.defined() ? window.data<double>()[k] : 1.0;
                line[static_cast<std::size_t>(k)] = Complex(v[0], complexInput ? v[1] : 0.0) * scale;
            }
            transform.run(line);
            for (std::int64_t k = 0; k < bins; ++k) {
                double *w = dst + ((b * frames + f) * bins + k) * 2;
                w[0] = line[static_cast<std::size_t>(k)].real();
                w[1] = line[static_cast<std::size_t>(k)].imag();
            }
        }
    return emit(ctx, fromDouble(ctx, *out, signal.dataType()));
}

// Hann, Hamming and Blackman windows: sums of cosines a0 - a1 cos(2πn/N) + a2 cos(4πn/N), N = size when
// periodic, size - 1 when symmetric.
support::Status window(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    auto size = scalarInteger(ctx, ctx.input(0), "size");
    if (!size)
        return size.takeError();
    if (*size < 0)
        return ctx.error("size must not be negative, got " + std::to_string(*size));
    const std::string &op = ctx.node().opType;
    const double a0 = op == "HannWindow" ? 0.5 : op == "HammingWindow" ? 25.0 / 46.0 : 0.42;
    const double a1 = 1.0 - a0 - (op == "BlackmanWindow" ? 0.08 : 0.0);
    const double a2 = op == "BlackmanWindow" ? 0.08 : 0.0;
    const bool periodic = ctx.attrInt("periodic", 1) != 0;
    auto out = ctx.allocate(TensorProto::DOUBLE, {*size});
    if (!out)
        return out.takeError();
    double *w = out->mutableData<double>();
    const double denominator = static_cast<double>(periodic ? *size : *size - 1);
    for (std::int64_t i = 0; i < *size; ++i) {
        // a one-point symmetric window is [1], as in numpy
        const double angle = denominator > 0 ? 2.0 * std::numbers::pi * static_cast<double>(i) / denominator : 0.0;
        w[i] = denominator > 0 ? a0 - a1 * std::cos(angle) + a2 * std::cos(2.0 * angle) : 1.0;
    }
    return emit(ctx, fromDouble(ctx, *out, static_cast<int>(ctx.attrInt("output_datatype", TensorProto::FLOAT))));
}

// Triangular filters on the mel scale (mel = 2595 log10(1 + hz / 700)), edges snapped to DFT bins as in
// ONNX's reference: num_mel_bins + 2 edges spaced (high - low) / (num_mel_bins + 2) mels apart.
support::Status melWeightMatrix(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(5); !st)
        return st;
    auto mels = positiveScalar(ctx, 0, "num_mel_bins");
    auto dftLength = positiveScalar(ctx, 1, "dft_length");
    auto sampleRate = positiveScalar(ctx, 2, "sample_rate");
    auto lower = scalarNumber(ctx, ctx.input(3), "lower_edge_hertz");
    auto upper = scalarNumber(ctx, ctx.input(4), "upper_edge_hertz");
    if (!mels)
        return mels.takeError();
    if (!dftLength)
        return dftLength.takeError();
    if (!sampleRate)
        return sampleRate.takeError();
    if (!lower)
        return lower.takeError();
    if (!upper)
        return upper.takeError();
    if (!(*lower >= 0 && *lower < *upper && *upper <= static_cast<double>(*sampleRate) / 2))
        return ctx.error("needs 0 <= lower_edge_hertz < upper_edge_hertz <= sample_rate / 2");
    const std::int64_t spectrogramBins = *dftLength / 2 + 1;
    auto out = ctx.allocate(TensorProto::DOUBLE, {spectrogramBins, *mels});
    if (!out)
        return out.takeError();
    auto toMel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
    const double lowMel = toMel(*lower);
    const double melStep = (toMel(*upper) - lowMel) / static_cast<double>(*mels + 2);
    std::vector<std::int64_t> edges;
    for (std::int64_t i = 0; i < *mels + 2; ++i) {
        const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * melStep + lowMel) / 2595.0) - 1.0);
        edges.push_back(static_cast<std::int64_t>(std::floor(static_cast<double>(*dftLength + 1) * hz /
                                                             static_cast<double>(*sampleRate))));
    }
    double *w = out->mutableData<double>();
    auto set = [&](std::int64_t bin, std::int64_t mel, double v) {
        if (bin >= 0 && bin < spectrogramBins)
            w[bin * *mels + mel] = v;
    };
    for (std::int64_t m = 0; m < *mels; ++m) {
        const std::int64_t left = edges[m], center = edges[m + 1], right = edges[m + 2];
        if (center == left)
            set(center, m, 1.0);
        for (std::int64_t j = left; center > left && j <= center; ++j)
            set(j, m, static_cast<double>(j - left) / static_cast<double>(center - left));
        for (std::int64_t j = center; j < right; ++j)
            set(j, m, static_cast<double>(right - j) / static_cast<double>(right - center));
    }
    return emit(ctx, fromDouble(ctx, *out, static_cast<int>(ctx.attrInt("output_datatype", TensorProto::FLOAT))));
}

namespace {

// Seeded by the seed attribute (its float bits, so 1.5 and 1 differ); without one, nondeterministic.
std::mt19937_64 generator(KernelContext &ctx)
{
    if (ctx.hasAttribute("seed"))
        return std::mt19937_64(std::bit_cast<std::uint32_t>(ctx.attrFloat("seed", 0)));
    return std::mt19937_64(std::random_device{}());
}

// Fills a tensor of `shape` from `draw` and stores it as `dataType`.
template <typename Draw>
support::Status emitRandom(KernelContext &ctx, const Shape &shape, int dataType, Draw &&draw)
{
    if (!visitFloat(isHalfType(dataType) ? static_cast<int>(TensorProto::FLOAT) : dataType, []<typename T>() {}))
        return ctx.error("dtype must be a floating-point type, got " + ir::dataTypeName(dataType));
    auto out = ctx.allocate(TensorProto::DOUBLE, shape);
    if (!out)
        return out.takeError();
    double *v = out->mutableData<double>();
    for (std::int64_t i = 0; i < out->size(); ++i)
        v[i] = draw();
    return emit(ctx, fromDouble(ctx, *out, dataType));
}

} // namespace

// RandomUniform, RandomNormal (shape attribute) and RandomUniformLike, RandomNormalLike (shape and default
// dtype of their input).
support::Status randomTensor(KernelContext &ctx)
{
    const std::string &op = ctx.node().opType;
    const bool like = op.ends_with("Like");
    Shape shape;
    int dataType = static_cast<int>(ctx.attrInt("dtype", TensorProto::FLOAT));
    if (like) {
        if (auto st = ctx.requireInputs(1); !st)
            return st;
        shape = ctx.input(0).shape();
        dataType = static_cast<int>(ctx.attrInt("dtype", ctx.input(0).dataType()));
    } else {
        if (!ctx.hasAttribute("shape"))
            return ctx.error("the shape attribute is required");
        shape = ctx.attrInts("shape");
    }
    std::mt19937_64 rng = generator(ctx);
    if (op.starts_with("RandomUniform")) {
        const double low = ctx.attrFloat("low", 0.0f), high = ctx.attrFloat("high", 1.0f);
        if (!(low <= high && std::isfinite(high - low)))
            return ctx.error("needs finite low <= high");
        std::uniform_real_distribution<double> uniform(low, high);
        return emitRandom(ctx, shape, dataType, [&] { return uniform(rng); });
    }
    const double mean = ctx.attrFloat("mean", 0.0f), scale = ctx.attrFloat("scale", 1.0f);
    if (!(scale >= 0 && std::isfinite(scale) && std::isfinite(mean)))
        return ctx.error("needs a finite mean and a finite, non-negative scale");
    std::normal_distribution<double> normal(mean, scale > 0 ? scale : 1.0); // its stddev must be positive
    return emitRandom(ctx, shape, dataType, [&] { return scale > 0 ? normal(rng) : mean; });
}

// Bernoulli: 1 with probability input[i] (which must lie in [0, 1]), as dtype (default the input's type).
support::Status bernoulli(KernelContext &ctx)
{
    if (auto st = ctx.requireInputs(1); !st)
        return st;
    const Tensor &p = ctx.input(0);
    if (!isFloatTensor(p))
        return ctx.error("needs floating-point probabilities, got " + ir::dataTypeName(p.dataType()));
    auto probabilities = toDouble(ctx, p);
    if (!probabilities)
        return probabilities.takeError();
    const double *q = probabilities->data<double>();
    for (std::int64_t i = 0; i < p.size(); ++i)
        if (!(q[i] >= 0.0 && q[i] <= 1.0))
            return ctx.error("probabilities must lie in [0, 1], element " + std::to_string(i) + " is " + std::to_string(q[i]));
    std::mt19937_64 rng = generator(ctx);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    auto out = ctx.allocate(TensorProto::DOUBLE, p.shape());
    if (!out)
        return out.takeError();
    double *v = out->mutableData<double>();
    for (std::int64_t i = 0; i < p.size(); ++i)
        v[i] = uniform(rng) < q[i] ? 1.0 : 0.0;
    return emit(ctx, fromDouble(ctx, *out, static_cast<int>(ctx.attrInt("dtype", p.dataType()))));
}

} // namespace portolan::runtime::kernels
