// RNN, GRU and LSTM: one shared driver (directions, layouts, sequence_lens, initial states, activations,
// clip), every gate computed in double; each batch row is run through time on its own.
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/TensorOps.h"

#include "ir/Type.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace portolan::runtime::kernels {

namespace {

enum class Cell { Rnn, Gru, Lstm };

class Activation {
public:
    enum class Kind { Sigmoid, Tanh, Relu, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus, Affine };

    // Alphas and betas are consumed in order by the activations that take them; ONNX's defaults otherwise.
    static std::optional<Activation> parse(std::string name, const std::vector<float> &alphas, std::size_t &nextAlpha,
                                           const std::vector<float> &betas, std::size_t &nextBeta)
    {
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        struct Known { const char *name; Kind kind; bool alpha, beta; double defaultAlpha, defaultBeta; };
        static const Known known[] = {
            {"sigmoid", Kind::Sigmoid, false, false, 0, 0},       {"tanh", Kind::Tanh, false, false, 0, 0},
            {"relu", Kind::Relu, false, false, 0, 0},             {"leakyrelu", Kind::LeakyRelu, true, false, 0.01, 0},
            {"thresholdedrelu", Kind::ThresholdedRelu, true, false, 1, 0},
            {"scaledtanh", Kind::ScaledTanh, true, true, 1, 1},   {"hardsigmoid", Kind::HardSigmoid, true, true, 0.2, 0.5},
            {"elu", Kind::Elu, true, false, 1, 0},                {"softsign", Kind::Softsign, false, false, 0, 0},
            {"softplus", Kind::Softplus, false, false, 0, 0},     {"affine", Kind::Affine, true, true, 1, 0},
        };
        for (const Known &k : known) {
            if (name != k.name)
                continue;
            Activation a{k.kind, k.defaultAlpha, k.defaultBeta};
            if (k.alpha && nextAlpha < alphas.size())
                a.m_alpha = alphas[nextAlpha++];
            if (k.beta && nextBeta < betas.size())
                a.m_beta = betas[nextBeta++];
            return a;
        }
        return std::nullopt;
    }

    void apply(double *v, std::int64_t n) const
    {
        const double a = m_alpha, b = m_beta;
        auto each = [&](auto f) { for (std::int64_t i = 0; i < n; ++i) v[i] = f(v[i]); };
        switch (m_kind) {
        case Kind::Sigmoid: each([](double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }); break;
        case Kind::Tanh: each([](double x) { return std::tanh(x); }); break;
        case Kind::Relu: each([](double x) { return x > 0 ? x : 0.0; }); break;
        case Kind::LeakyRelu: each([a](double x) { return x >= 0 ? x : a * x; }); break;
        case Kind::ThresholdedRelu: each([a](double x) { return x > a ? x : 0.0; }); break;
        case Kind::ScaledTanh: each([a, b](double x) { return a * std::tanh(b * x); }); break;
        case Kind::HardSigmoid: each([a, b](double x) { return std::clamp(a * x + b, 0.0, 1.0); }); break;
        case Kind::Elu: each([a](double x) { return x >= 0 ? x : a * (std::exp(x) - 1); }); break;
        case Kind::Softsign: each([](double x) { return x / (1 + std::fabs(x)); }); break;
        case Kind::Softplus: each([](double x) { return x > 30 ? x : std::log1p(std::exp(x)); }); break;
        case Kind::Affine: each([a, b](double x) { return a * x + b; }); break;
        }
    }

private:
    Activation(Kind kind, double alpha, double beta) : m_kind(kind), m_alpha(alpha), m_beta(beta) {}
    Kind m_kind;
    double m_alpha, m_beta;
};

double dot(const double *a, const double *b, std::int64_t n)
{
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

// Checks an optional input's shape; `name` for errors.
support::Status expectShape(KernelContext &ctx, std::size_t input, const Shape &shape, const char *name)
{
    if (ctx.hasInput(input) && ctx.input(input).shape() != shape)
        return ctx.error(std::string(name) + " must have shape " + shapeString(shape) + ", got " +
                         shapeString(ctx.input(input).shape()));
    return support::Status::ok();
}

support::Status runRecurrent(KernelContext &ctx, Cell cell)
{
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    const Tensor &xIn = ctx.input(0);
    if (!visitFloat(toComputeType(xIn).dataType(), []<typename T>() {}))
        return ctx.error("needs floating-point inputs, got " + ir::dataTypeName(xIn.dataType()));
    const std::int64_t gates = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
    const std::int64_t layout = ctx.opset() >= 14 ? ctx.attrInt("layout", 0) : 0;
    if (layout != 0 && layout != 1)
        return ctx.error("layout must be 0 or 1");
    const std::string direction = ctx.attrString("direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
        return ctx.error("direction must be forward, reverse or bidirectional, got '" + direction + "'");
    const std::int64_t D = direction == "bidirectional" ? 2 : 1;
    if (xIn.rank() != 3 || ctx.input(1).rank() != 3 || ctx.input(2).rank() != 3)
        return ctx.error("X, W and R must be 3-D");
    const std::int64_t T = xIn.dim(layout ? 1 : 0), B = xIn.dim(layout ? 0 : 1), I = xIn.dim(2);
    const std::int64_t H = ctx.input(2).dim(2);
    if (ctx.hasAttribute("hidden_size") && ctx.attrInt("hidden_size", 0) != H)
        return ctx.error("hidden_size is " + std::to_string(ctx.attrInt("hidden_size", 0)) + " but R has " +
                         std::to_string(H) + " columns");
    const std::int64_t GH = gates * H;
    const Shape stateShape = layout ? Shape{B, D, H} : Shape{D, B, H};
    for (auto st : {expectShape(ctx, 1, {D, GH, I}, "W"), expectShape(ctx, 2, {D, GH, H}, "R"),
                    expectShape(ctx, 3, {D, 2 * GH}, "B"), expectShape(ctx, 4, {B}, "sequence_lens"),
                    expectShape(ctx, 5, stateShape, "initial_h"),
                    cell == Cell::Lstm ? expectShape(ctx, 6, stateShape, "initial_c") : support::Status::ok(),
                    cell == Cell::Lstm ? expectShape(ctx, 7, {D, 3 * H}, "P") : support::Status::ok()})
        if (!st)
            return st;

    // activations: per direction, f (all), g (GRU, LSTM), h (LSTM)
    const std::size_t perDirection = static_cast<std::size_t>(cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 2 : 3);
    std::vector<std::string> names = ctx.attrStrings("activations");
    if (names.empty()) {
        const std::vector<std::string> defaults = cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
                                                  : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                      : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
        for (std::int64_t d = 0; d < D; ++d)
            names.insert(names.end(), defaults.begin(), defaults.end());
    } else if (names.size() == perDirection && D == 2) {
        names.insert(names.end(), names.begin(), names.end());
    }
    if (names.size() != perDirection * static_cast<std::size_t>(D))
        return ctx.error("expects " + std::to_string(perDirection * static_cast<std::size_t>(D)) + " activations, got " +
                         std::to_string(names.size()));
    std::vector<Activation> act;
    std::size_t nextAlpha = 0, nextBeta = 0;
    for (const std::string &name : names) {
        auto a = Activation::parse(name, ctx.attrFloats("activation_alpha"), nextAlpha, ctx.attrFloats("activation_beta"),
                                   nextBeta);
        if (!a)
            return ctx.error("unknown activation '" + name + "'");
        act.push_back(*a);
    }
    const bool clip = ctx.hasAttribute("clip");
    const double clipValue = ctx.attrFloat("clip", 0);
    const bool linearBeforeReset = cell == Cell::Gru && ctx.attrInt("linear_before_reset", 0) != 0;
    const bool inputForget = cell == Cell::Lstm && ctx.attrInt("input_forget", 0) != 0;

    std::vector<std::int64_t> lengths(static_cast<std::size_t>(B), T);
    if (ctx.hasInput(4)) {
        const Tensor lens = convertTensor(ctx.input(4), TensorProto::INT64);
        for (std::int64_t b = 0; b < B; ++b) {
            lengths[static_cast<std::size_t>(b)] = lens.data<std::int64_t>()[b];
            if (lens.data<std::int64_t>()[b] < 0 || lens.data<std::int64_t>()[b] > T)
                return ctx.error("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(lens.data<std::int64_t>()[b]) +
                                 " is out of [0, " + std::to_string(T) + "]");
        }
    }

    // double copies of every operand (absent ones stay undefined)
    std::vector<Tensor> in(8);
    for (std::size_t i = 0; i < 8; ++i)
        if (i != 4 && ctx.hasInput(i)) {
            auto t = toDouble(ctx, ctx.input(i));
            if (!t)
                return t.takeError();
            in[i] = std::move(*t);
        }
    const double *X = in[0].data<double>(), *W = in[1].data<double>(), *R = in[2].data<double>();
    const double *bias = in[3].defined() ? in[3].data<double>() : nullptr;
    const double *h0 = in[5].defined() ? in[5].data<double>() : nullptr;
    const double *c0 = in[6].defined() ? in[6].data<double>() : nullptr;
    const double *peephole = in[7].defined() ? in[7].data<double>() : nullptr;

    const Shape yShape = layout ? Shape{B, T, D, H} : Shape{T, D, B, H};
    auto Y = ctx.allocate(TensorProto::DOUBLE, ctx.wantsOutput(0) ? yShape : Shape{0});
    auto Yh = ctx.allocate(TensorProto::DOUBLE, stateShape);
    auto Yc = ctx.allocate(TensorProto::DOUBLE, cell == Cell::Lstm ? stateShape : Shape{0});
    for (auto *e : {&Y, &Yh, &Yc})
        if (!*e)
            return e->takeError();
    double *y = Y->mutableData<double>(), *yh = Yh->mutableData<double>(), *yc = Yc->mutableData<double>();

    std::vector<double> h(static_cast<std::size_t>(H)), c(static_cast<std::size_t>(H)), xg(static_cast<std::size_t>(GH)),
        hg(static_cast<std::size_t>(GH)), scratch(static_cast<std::size_t>(H));
    auto clipped = [&](double *v, std::int64_t n) {
        if (clip)
            for (std::int64_t i = 0; i < n; ++i)
                v[i] = std::clamp(v[i], -clipValue, clipValue);
    };
    for (std::int64_t d = 0; d < D; ++d) {
        const bool reverse = direction == "reverse" || d == 1;
        const double *w = W + d * GH * I, *r = R + d * GH * H;
        const double *wb = bias ? bias + d * 2 * GH : nullptr, *rb = bias ? bias + d * 2 * GH + GH : nullptr;
        const Activation *f = &act[static_cast<std::size_t>(d) * perDirection];
        for (std::int64_t b = 0; b < B; ++b) {
            const std::int64_t stateAt = (layout ? b * D + d : d * B + b) * H;
            for (std::int64_t k = 0; k < H; ++k) {
                h[k] = h0 ? h0[stateAt + k] : 0.0;
                c[k] = c0 ? c0[stateAt + k] : 0.0;
            }
            const std::int64_t length = lengths[static_cast<std::size_t>(b)];
            for (std::int64_t s = 0; s < length; ++s) {
                const std::int64_t t = reverse ? length - 1 - s : s;
                const double *x = X + (layout ? b * T + t : t * B + b) * I;
                for (std::int64_t g = 0; g < GH; ++g) {
                    xg[g] = dot(w + g * I, x, I) + (wb ? wb[g] : 0.0);
                    hg[g] = dot(r + g * H, h.data(), H) + (rb ? rb[g] : 0.0);
                }
                if (cell == Cell::Rnn) {
                    for (std::int64_t k = 0; k < H; ++k)
                        h[k] = xg[k] + hg[k];
                    clipped(h.data(), H);
                    f[0].apply(h.data(), H);
                } else if (cell == Cell::Gru) {
                    // gates z, r, h; xg now holds the pre-activations
                    for (std::int64_t k = 0; k < 2 * H; ++k)
                        xg[k] += hg[k];
                    clipped(xg.data(), 2 * H);
                    f[0].apply(xg.data(), 2 * H);
                    const double *z = xg.data(), *reset = xg.data() + H;
                    double *candidate = xg.data() + 2 * H;
                    if (linearBeforeReset) {
                        for (std::int64_t k = 0; k < H; ++k)
                            candidate[k] += reset[k] * hg[2 * H + k];
                    } else {
                        for (std::int64_t k = 0; k < H; ++k)
                            scratch[k] = reset[k] * h[k];
                        for (std::int64_t k = 0; k < H; ++k)
                            candidate[k] += dot(r + (2 * H + k) * H, scratch.data(), H) + (rb ? rb[2 * H + k] : 0.0);
                    }
                    clipped(candidate, H);
                    f[1].apply(candidate, H);
                    for (std::int64_t k = 0; k < H; ++k)
                        h[k] = (1 - z[k]) * candidate[k] + z[k] * h[k];
                } else {
                    // gates i, o, f, c; peepholes P are ordered i, o, f
                    for (std::int64_t g = 0; g < GH; ++g)
                        xg[g] += hg[g];
                    double *ig = xg.data(), *og = xg.data() + H, *fg = xg.data() + 2 * H, *cg = xg.data() + 3 * H;
                    const double *p = peephole ? peephole + d * 3 * H : nullptr;
                    for (std::int64_t k = 0; k < H && p; ++k) {
                        ig[k] += p[k] * c[k];
                        fg[k] += p[2 * H + k] * c[k];
                    }
                    clipped(ig, H);
                    clipped(fg, H);
                    clipped(cg, H);
                    f[0].apply(ig, H);
                    f[0].apply(fg, H);
                    f[1].apply(cg, H);
                    for (std::int64_t k = 0; k < H; ++k)
                        c[k] = (inputForget ? 1 - ig[k] : fg[k]) * c[k] + ig[k] * cg[k];
                    for (std::int64_t k = 0; k < H && p; ++k)
                        og[k] += p[H + k] * c[k];
                    clipped(og, H);
                    f[0].apply(og, H);
                    std::copy(c.begin(), c.end(), scratch.begin());
                    f[2].apply(scratch.data(), H);
                    for (std::int64_t k = 0; k < H; ++k)
                        h[k] = og[k] * scratch[k];
                }
                if (ctx.wantsOutput(0))
                    std::copy(h.begin(), h.end(), y + (layout ? (b * T + t) * D + d : (t * D + d) * B + b) * H);
            }
            std::copy(h.begin(), h.end(), yh + stateAt);
            if (cell == Cell::Lstm)
                std::copy(c.begin(), c.end(), yc + stateAt);
        }
    }
    const Tensor *outputs[] = {&*Y, &*Yh, &*Yc};
    for (std::size_t i = 0; i < ctx.outputCount() && i < 3; ++i)
        if (ctx.wantsOutput(i)) {
            auto out = fromDouble(ctx, *outputs[i], xIn.dataType());
            if (!out)
                return out.takeError();
            ctx.setOutput(i, std::move(*out));
        }
    return support::Status::ok();
}

} // namespace

support::Status rnn(KernelContext &ctx) { return runRecurrent(ctx, Cell::Rnn); }
support::Status gru(KernelContext &ctx) { return runRecurrent(ctx, Cell::Gru); }
support::Status lstm(KernelContext &ctx) { return runRecurrent(ctx, Cell::Lstm); }

} // namespace portolan::runtime::kernels
