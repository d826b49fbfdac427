// Attention of the standard domain (opsets 23, 24, 25): scaled dot-product attention over 3-D or
// 4-D Q/K/V with grouped-query heads, an optional key/value cache (past → present), a boolean or
// additive mask, causal and sliding-window masks, soft capping and the qk_matmul_output debug output.
//
// Precision: every stage the spec names (Q·Kᵀ·scale, softcap, + bias, softmax) is rounded to the
// type it lives in — T1's (float for float, float16 and bfloat16; double for double), and the softmax
// to softmax_precision's when given — while the arithmetic inside a stage (dot products, the softmax
// sum, probabilities·V) accumulates in double. Y, present_* and qk_matmul_output are rounded once to
// their output types.
//
// A query row whose combined bias (mask + causal + window + padding) is -inf for every key produces
// zeros in Y and in the mode-3 qk_matmul_output, as the spec's errata and ONNX's reference do.
#include "runtime/HalfFromDouble.h"
#include "runtime/KernelContext.h"
#include "runtime/Dispatch.h"
#include "runtime/reference/kernels/TensorOps.h"

#include "ir/Type.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace portolan::runtime::kernels {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// The type a stage's values are rounded to.
enum class Precision { Float, Double, Half, BFloat };

double roundTo(double v, Precision p)
{
    switch (p) {
    case Precision::Double: return v;
    case Precision::Float: return static_cast<double>(static_cast<float>(v));
    case Precision::Half: return float16FromDouble(v).toFloat();
    case Precision::BFloat: return bfloat16FromDouble(v).toFloat();
    }
    return v;
}

/// The logical sizes: Q (batch, qHeads, qSeq, headSize), K (batch, kvHeads, kvSeq, headSize),
/// V (batch, kvHeads, kvSeq, vHeadSize), the cache (batch, kvHeads, pastSeq, ·).
struct Sizes {
    bool threeD = false;
    std::int64_t batch = 0, qHeads = 0, kvHeads = 0, qSeq = 0, kvSeq = 0, pastSeq = 0, headSize = 0, vHeadSize = 0;
    std::int64_t total() const { return pastSeq + kvSeq; }
};

/// hidden / heads, or an error naming `what` when it does not divide.
support::Expected<std::int64_t> headWidth(const KernelContext &ctx, std::int64_t hidden, std::int64_t heads,
                                          const char *what)
{
    if (hidden % heads != 0)
        return ctx.error(std::string(what) + "'s hidden size " + std::to_string(hidden) +
                         " is not a multiple of its head count " + std::to_string(heads));
    return hidden / heads;
}

/// Reads and checks the shapes of Q, K, V and the cache, and the head-count attributes.
support::Expected<Sizes> readSizes(const KernelContext &ctx, int version)
{
    const Tensor &q = ctx.input(0), &k = ctx.input(1), &v = ctx.input(2);
    if (q.rank() != k.rank() || q.rank() != v.rank() || (q.rank() != 3 && q.rank() != 4))
        return ctx.error("Q, K and V must all be 3-D or all be 4-D");
    // Read both attributes in every case, so that neither can go unheeded.
    const ir::Attribute *qAttr = ctx.attribute("q_num_heads"), *kvAttr = ctx.attribute("kv_num_heads");
    Sizes s;
    s.threeD = q.rank() == 3;
    s.batch = q.dim(0);
    if (k.dim(0) != s.batch || v.dim(0) != s.batch)
        return ctx.error("Q, K and V must have the same batch size");
    if (s.threeD) {
        if (!qAttr || !kvAttr)
            return ctx.error("3-D Q, K and V need the q_num_heads and kv_num_heads attributes");
        s.qHeads = qAttr->proto.i();
        s.kvHeads = kvAttr->proto.i();
        if (s.qHeads <= 0 || s.kvHeads <= 0)
            return ctx.error("q_num_heads (" + std::to_string(s.qHeads) + ") and kv_num_heads (" +
                             std::to_string(s.kvHeads) + ") must be positive");
        s.qSeq = q.dim(1);
        s.kvSeq = k.dim(1);
        if (v.dim(1) != s.kvSeq)
            return ctx.error("K and V must have the same sequence length");
        auto qWidth = headWidth(ctx, q.dim(2), s.qHeads, "Q");
        if (!qWidth)
            return qWidth.takeError();
        auto kWidth = headWidth(ctx, k.dim(2), s.kvHeads, "K");
        if (!kWidth)
            return kWidth.takeError();
        auto vWidth = headWidth(ctx, v.dim(2), s.kvHeads, "V");
        if (!vWidth)
            return vWidth.takeError();
        s.headSize = *qWidth;
        if (*kWidth != s.headSize)
            return ctx.error("the head sizes of Q (" + std::to_string(s.headSize) + ") and K (" +
                             std::to_string(*kWidth) + ") differ");
        s.vHeadSize = *vWidth;
    } else {
        s.qHeads = q.dim(1);
        s.kvHeads = k.dim(1);
        s.qSeq = q.dim(2);
        s.kvSeq = k.dim(2);
        s.headSize = q.dim(3);
        s.vHeadSize = v.dim(3);
        if (v.dim(1) != s.kvHeads || v.dim(2) != s.kvSeq)
            return ctx.error("K and V must have the same head count and sequence length");
        if (k.dim(3) != s.headSize)
            return ctx.error("the head sizes of Q (" + std::to_string(s.headSize) + ") and K (" +
                             std::to_string(k.dim(3)) + ") differ");
        // Opset 25 forbids the head attributes with 4-D inputs; before it they must at least agree.
        if (version >= 25 && (qAttr || kvAttr))
            return ctx.error("q_num_heads and kv_num_heads must not be set for 4-D Q, K and V (opset 25)");
        if ((qAttr && qAttr->proto.i() != s.qHeads) || (kvAttr && kvAttr->proto.i() != s.kvHeads))
            return ctx.error("q_num_heads/kv_num_heads disagree with the head dims of the 4-D Q, K and V");
    }
    if (s.kvHeads == 0 ? s.qHeads != 0 : s.qHeads % s.kvHeads != 0)
        return ctx.error("the query head count (" + std::to_string(s.qHeads) +
                         ") must be a multiple of the key/value head count (" + std::to_string(s.kvHeads) + ")");

    const bool pastKey = ctx.hasInput(4), pastValue = ctx.hasInput(5);
    if (pastKey != pastValue)
        return ctx.error("past_key and past_value must be given together");
    if (pastKey) {
        const Tensor &pk = ctx.input(4), &pv = ctx.input(5);
        if (pk.rank() != 4 || pv.rank() != 4)
            return ctx.error("past_key and past_value must be 4-D");
        s.pastSeq = pk.dim(2);
        if (pk.shape() != Shape{s.batch, s.kvHeads, s.pastSeq, s.headSize})
            return ctx.error("past_key " + shapeString(pk.shape()) + " must be " +
                             shapeString({s.batch, s.kvHeads, s.pastSeq, s.headSize}));
        if (pv.shape() != Shape{s.batch, s.kvHeads, s.pastSeq, s.vHeadSize})
            return ctx.error("past_value " + shapeString(pv.shape()) + " must be " +
                             shapeString({s.batch, s.kvHeads, s.pastSeq, s.vHeadSize}));
    }
    return s;
}

/// Copies a 3-D (batch, seq, heads·width) or 4-D (batch, heads, seq, width) double tensor into the
/// sequence positions [at, at + seq) of `into`, (batch, heads, intoSeq, width).
void gatherHeads(const Tensor &from, bool threeD, std::int64_t heads, std::int64_t width, Tensor &into,
                 std::int64_t at)
{
    const std::int64_t batch = into.dim(0), intoSeq = into.dim(2);
    const std::int64_t seq = threeD ? from.dim(1) : from.dim(2);
    const double *src = from.data<double>();
    double *dst = into.mutableData<double>();
    for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t h = 0; h < heads; ++h)
            for (std::int64_t s = 0; s < seq; ++s) {
                const std::int64_t in = threeD ? ((b * seq + s) * heads + h) * width : ((b * heads + h) * seq + s) * width;
                std::copy(src + in, src + in + width, dst + ((b * heads + h) * intoSeq + at + s) * width);
            }
}

/// A (batch, heads, seq, width) double tensor from an input (3-D or 4-D), optionally after a cache.
support::Expected<Tensor> logicalHeads(KernelContext &ctx, const Tensor &input, bool threeD, std::int64_t heads,
                                       std::int64_t width, const Tensor *cache)
{
    const std::int64_t batch = input.dim(0), seq = threeD ? input.dim(1) : input.dim(2);
    const std::int64_t cached = cache ? cache->dim(2) : 0;
    auto out = ctx.allocateUninitialized(TensorProto::DOUBLE, {batch, heads, cached + seq, width});
    if (!out)
        return out.takeError();
    if (cache) {
        auto c = toDouble(ctx, *cache);
        if (!c)
            return c.takeError();
        gatherHeads(*c, false, heads, width, *out, 0);
    }
    auto d = toDouble(ctx, input);
    if (!d)
        return d.takeError();
    gatherHeads(*d, threeD, heads, width, *out, cached);
    return out;
}

/// attn_mask as an additive bias (bool: 0 where True, -inf where False; other types: their value),
/// read right-aligned against (batch, qHeads, qSeq, total). A key dim of 1 broadcasts; past a shorter
/// key dim (opset 24+) the keys are -inf.
struct MaskBias {
    Tensor values; // double, the mask's own shape
    std::array<std::int64_t, 4> strides{};
    std::int64_t keys = 0; // the mask's key dim

    double at(std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t j) const
    {
        if (j >= keys && strides[3] != 0)
            return kNegInf;
        return values.data<double>()[b * strides[0] + h * strides[1] + i * strides[2] + j * strides[3]];
    }
};

support::Expected<MaskBias> readMask(KernelContext &ctx, const Sizes &s, int version)
{
    const Tensor &mask = ctx.input(3);
    if (mask.rank() > 4)
        return ctx.error("attn_mask has rank " + std::to_string(mask.rank()) + ", at most 4 allowed");
    const std::array<std::int64_t, 4> target{s.batch, s.qHeads, s.qSeq, s.total()};
    Shape dims(4 - mask.rank(), 1);
    dims.insert(dims.end(), mask.shape().begin(), mask.shape().end());
    MaskBias bias;
    std::int64_t stride = 1;
    for (std::size_t a = 4; a-- > 0;) {
        // The key dim broadcasts from 1 and, from opset 24, may be shorter than the total (padded).
        const bool shorter = a == 3 && version >= 24 && dims[a] < target[a];
        if (dims[a] != 1 && dims[a] != target[a] && !shorter)
            return ctx.error("attn_mask " + shapeString(mask.shape()) + " does not broadcast to " +
                             shapeString({target.begin(), target.end()}) +
                             (a == 3 && version < 24 ? " (a shorter key dim needs opset 24)" : ""));
        bias.strides[a] = dims[a] == 1 ? 0 : stride;
        stride *= dims[a];
    }
    bias.keys = dims[3];
    auto values = ctx.allocateUninitialized(TensorProto::DOUBLE, mask.shape());
    if (!values)
        return values.takeError();
    double *dst = values->mutableData<double>();
    if (mask.dataType() == TensorProto::BOOL) {
        const std::uint8_t *src = mask.data<std::uint8_t>();
        for (std::int64_t i = 0; i < mask.size(); ++i)
            dst[i] = src[i] ? 0.0 : kNegInf;
    } else {
        auto numbers = toDouble(ctx, mask);
        if (!numbers)
            return ctx.error("attn_mask must be bool or numeric, not " + ir::dataTypeName(mask.dataType()));
        std::copy(numbers->data<double>(), numbers->data<double>() + mask.size(), dst);
    }
    bias.values = std::move(*values);
    return bias;
}

/// The attributes that shape the computation.
struct Settings {
    double scale = 1.0;
    double softcap = 0.0;
    std::int64_t mode = 0;
    bool causal = false;
    std::int64_t left = -1, right = -1;
    Precision stage = Precision::Float;   // T1's compute type
    Precision softmax = Precision::Float; // softmax_precision's
};

support::Expected<Settings> readSettings(const KernelContext &ctx, const Sizes &s, int version)
{
    Settings set;
    const int qType = ctx.input(0).dataType();
    set.stage = qType == TensorProto::DOUBLE ? Precision::Double : Precision::Float;
    set.softmax = set.stage;
    const ir::Attribute *scale = ctx.attribute("scale");
    // With head_size 0 every score is 0 whatever the scale: 1 stands in for 1/sqrt(0).
    set.scale = scale ? scale->proto.f() : s.headSize > 0 ? 1.0 / std::sqrt(static_cast<double>(s.headSize)) : 1.0;
    // The spec scales Q and K by sqrt(scale) each, so a negative scale has no defined result.
    if (!std::isfinite(set.scale) || set.scale < 0)
        return ctx.error("scale must be finite and non-negative, got " + std::to_string(set.scale));
    set.softcap = ctx.attrFloat("softcap", 0.0f);
    if (!(set.softcap >= 0.0) || std::isinf(set.softcap)) // negative has no defined meaning; NaN fails too
        return ctx.error("softcap must be 0 (none) or a positive finite value, got " + std::to_string(set.softcap));
    set.mode = ctx.attrInt("qk_matmul_output_mode", 0);
    if (set.mode < 0 || set.mode > 3)
        return ctx.error("qk_matmul_output_mode must be 0, 1, 2 or 3, got " + std::to_string(set.mode));
    const std::int64_t causal = ctx.attrInt("is_causal", 0);
    if (causal != 0 && causal != 1)
        return ctx.error("is_causal must be 0 or 1, got " + std::to_string(causal));
    set.causal = causal == 1;
    if (const ir::Attribute *p = ctx.attribute("softmax_precision")) {
        switch (p->proto.i()) {
        case TensorProto::FLOAT: set.softmax = Precision::Float; break;
        case TensorProto::DOUBLE: set.softmax = Precision::Double; break;
        case TensorProto::FLOAT16: set.softmax = Precision::Half; break;
        case TensorProto::BFLOAT16: set.softmax = Precision::BFloat; break;
        default:
            return ctx.error("softmax_precision must be 1 (float), 10 (float16), 11 (double) or 16 (bfloat16), got " +
                             std::to_string(p->proto.i()));
        }
    }
    if (version >= 25) {
        set.left = ctx.attrInt("left_window_size", -1);
        set.right = ctx.attrInt("right_window_size", -1);
        if (set.left < -1 || set.right < -1)
            return ctx.error("left_window_size and right_window_size must be -1 or non-negative, got " +
                             std::to_string(set.left) + " and " + std::to_string(set.right));
    }
    return set;
}

/// Checks the element types: Q, K and past_key share T1, V and past_value share T2, both floating.
support::Status checkTypes(const KernelContext &ctx)
{
    const int t1 = ctx.input(0).dataType(), t2 = ctx.input(2).dataType();
    if (!isFloatingType(t1) || !isFloatingType(t2))
        return ctx.error("Q, K and V must be floating-point tensors");
    if (ctx.input(1).dataType() != t1 || (ctx.hasInput(4) && ctx.input(4).dataType() != t1))
        return ctx.error("K and past_key must have Q's element type " + ir::dataTypeName(t1));
    if (ctx.hasInput(5) && ctx.input(5).dataType() != t2)
        return ctx.error("past_value must have V's element type " + ir::dataTypeName(t2));
    if (ctx.hasInput(6) && ctx.input(6).dataType() != TensorProto::INT64)
        return ctx.error("nonpad_kv_seqlen must be int64");
    return support::Status::ok();
}

/// nonpad_kv_seqlen (opset 24+): per batch sample, the count of leading keys that are real.
support::Expected<std::vector<std::int64_t>> readValidLengths(KernelContext &ctx, const Sizes &s)
{
    const Tensor &lengths = ctx.input(6);
    if (ctx.hasInput(4))
        return ctx.error("nonpad_kv_seqlen cannot be combined with past_key/past_value");
    if (lengths.shape() != Shape{s.batch})
        return ctx.error("nonpad_kv_seqlen must have shape (batch) = " + shapeString({s.batch}));
    std::vector<std::int64_t> out(lengths.data<std::int64_t>(), lengths.data<std::int64_t>() + lengths.size());
    for (const std::int64_t n : out)
        if (n < 0 || n > s.kvSeq)
            return ctx.error("nonpad_kv_seqlen value " + std::to_string(n) + " is outside [0, " +
                             std::to_string(s.kvSeq) + "] (the key sequence length)");
    return out;
}

} // namespace

support::Status standardAttention(KernelContext &ctx)
{
    const int version = ctx.opset() >= 25 ? 25 : ctx.opset() >= 24 ? 24 : 23;
    const std::size_t maxInputs = version >= 24 ? 7 : 6;
    if (auto st = ctx.requireInputs(3); !st)
        return st;
    for (std::size_t i = maxInputs; i < ctx.inputCount(); ++i)
        if (ctx.inputValue(i) != nullptr) // present, not omitted with ""
            return ctx.error("takes at most " + std::to_string(maxInputs) + " inputs at opset " +
                             std::to_string(version) + (version == 23 ? " (nonpad_kv_seqlen needs opset 24)" : ""));
    if (ctx.outputCount() > 4)
        return ctx.error("has at most 4 outputs");
    if (auto st = checkTypes(ctx); !st)
        return st;
    auto sizes = readSizes(ctx, version);
    if (!sizes)
        return sizes.takeError();
    const Sizes &s = *sizes;
    auto settings = readSettings(ctx, s, version);
    if (!settings)
        return settings.takeError();
    const Settings &set = *settings;

    MaskBias mask;
    const bool masked = ctx.hasInput(3);
    if (masked) {
        auto m = readMask(ctx, s, version);
        if (!m)
            return m.takeError();
        mask = std::move(*m);
    }
    std::vector<std::int64_t> validLengths;
    const bool padded = ctx.hasInput(6);
    if (padded) {
        auto v = readValidLengths(ctx, s);
        if (!v)
            return v.takeError();
        validLengths = std::move(*v);
    }

    const bool cached = ctx.hasInput(4);
    auto query = logicalHeads(ctx, ctx.input(0), s.threeD, s.qHeads, s.headSize, nullptr);
    if (!query)
        return query.takeError();
    auto keys = logicalHeads(ctx, ctx.input(1), s.threeD, s.kvHeads, s.headSize, cached ? &ctx.input(4) : nullptr);
    if (!keys)
        return keys.takeError();
    auto values = logicalHeads(ctx, ctx.input(2), s.threeD, s.kvHeads, s.vHeadSize, cached ? &ctx.input(5) : nullptr);
    if (!values)
        return values.takeError();

    const std::int64_t total = s.total(), group = s.kvHeads == 0 ? 1 : s.qHeads / s.kvHeads;
    const Shape yShape = s.threeD ? Shape{s.batch, s.qSeq, s.qHeads * s.vHeadSize}
                                  : Shape{s.batch, s.qHeads, s.qSeq, s.vHeadSize};
    auto y = ctx.allocateUninitialized(TensorProto::DOUBLE, yShape);
    if (!y)
        return y.takeError();
    const bool wantScores = ctx.wantsOutput(3);
    auto scores = ctx.allocateUninitialized(TensorProto::DOUBLE,
                                            wantScores ? Shape{s.batch, s.qHeads, s.qSeq, total} : Shape{0});
    if (!scores)
        return scores.takeError();
    // One query row at a time: its scores, then its probabilities.
    auto row = ctx.allocateUninitialized(TensorProto::DOUBLE, {total});
    if (!row)
        return row.takeError();
    double *probs = row->mutableData<double>();

    const double *pq = query->data<double>(), *pk = keys->data<double>(), *pv = values->data<double>();
    double *py = y->mutableData<double>();
    double *pscores = wantScores ? scores->mutableData<double>() : nullptr;
    for (std::int64_t b = 0; b < s.batch; ++b) {
        // offset: the count of real keys before the query block, so query i sits at position offset + i.
        const std::int64_t offset = cached ? s.pastSeq : padded ? validLengths[b] - s.qSeq : 0;
        const std::int64_t realKeys = padded ? validLengths[b] : total;
        for (std::int64_t h = 0; h < s.qHeads; ++h) {
            const std::int64_t kvHead = h / group; // kv head g serves query heads g·group … g·group + group − 1
            const double *kHead = pk + (b * s.kvHeads + kvHead) * total * s.headSize;
            const double *vHead = pv + (b * s.kvHeads + kvHead) * total * s.vHeadSize;
            for (std::int64_t i = 0; i < s.qSeq; ++i) {
                const double *qRow = pq + ((b * s.qHeads + h) * s.qSeq + i) * s.headSize;
                double *scoreRow = pscores ? pscores + ((b * s.qHeads + h) * s.qSeq + i) * total : nullptr;
                const std::int64_t position = offset + i;
                bool anyKey = false; // some key's bias is not -inf
                double top = kNegInf;
                bool anyNaN = false;
                for (std::int64_t j = 0; j < total; ++j) {
                    double dot = 0;
                    for (std::int64_t c = 0; c < s.headSize; ++c)
                        dot += qRow[c] * kHead[j * s.headSize + c];
                    const double raw = roundTo(dot * set.scale, set.stage);
                    // Soft capping comes before the bias, so masked keys stay at -inf.
                    const double soft =
                        set.softcap > 0 ? roundTo(set.softcap * std::tanh(raw / set.softcap), set.stage) : raw;
                    const bool outside = (set.causal && j > position) || j >= realKeys ||
                                         (set.left >= 0 && position - j > set.left) ||
                                         (set.right >= 0 && j - position > set.right);
                    double keyBias = masked ? mask.at(b, h, i, j) : 0.0;
                    if (outside)
                        keyBias += kNegInf; // additive, like the spec's bias: +inf in a float mask gives NaN
                    anyKey = anyKey || keyBias != kNegInf;
                    const double biased = roundTo(soft + keyBias, set.stage);
                    if (scoreRow)
                        scoreRow[j] = set.mode == 0 ? raw : set.mode == 1 ? soft : biased;
                    probs[j] = roundTo(biased, set.softmax);
                    anyNaN = anyNaN || std::isnan(probs[j]);
                    top = std::max(top, probs[j]);
                }
                // Softmax in softmax_precision: a NaN anywhere poisons the row (as max() does in ONNX's
                // reference); a row of -inf scores gives zeros.
                if (anyNaN) {
                    std::fill(probs, probs + total, std::numeric_limits<double>::quiet_NaN());
                } else if (top == kNegInf) {
                    std::fill(probs, probs + total, 0.0);
                } else {
                    double sum = 0;
                    for (std::int64_t j = 0; j < total; ++j) {
                        probs[j] = roundTo(std::exp(probs[j] - top), set.softmax);
                        sum += probs[j];
                    }
                    for (std::int64_t j = 0; j < total; ++j)
                        probs[j] = roundTo(probs[j] / sum, set.softmax);
                }
                if (!anyKey) // the fully-masked-row guard: decided on the bias, not the scores
                    std::fill(probs, probs + total, 0.0);
                if (scoreRow && set.mode == 3)
                    std::copy(probs, probs + total, scoreRow);
                for (std::int64_t c = 0; c < s.vHeadSize; ++c) {
                    double acc = 0;
                    for (std::int64_t j = 0; j < total; ++j)
                        acc += probs[j] * vHead[j * s.vHeadSize + c];
                    const std::int64_t at = s.threeD ? ((b * s.qSeq + i) * s.qHeads + h) * s.vHeadSize + c
                                                     : ((b * s.qHeads + h) * s.qSeq + i) * s.vHeadSize + c;
                    py[at] = acc;
                }
            }
        }
    }

    const int t1 = ctx.input(0).dataType(), t2 = ctx.input(2).dataType();
    auto emit = [&](std::size_t output, const Tensor &values, int type) -> support::Status {
        if (!ctx.wantsOutput(output))
            return support::Status::ok();
        auto t = fromDouble(ctx, values, type);
        if (!t)
            return t.takeError();
        ctx.setOutput(output, std::move(*t));
        return support::Status::ok();
    };
    if (auto st = emit(0, *y, t1); !st)
        return st;
    if (auto st = emit(1, *keys, t1); !st) // present_key: past_key and K, 4-D
        return st;
    if (auto st = emit(2, *values, t2); !st)
        return st;
    return emit(3, *scores, t1);
}

} // namespace portolan::runtime::kernels
