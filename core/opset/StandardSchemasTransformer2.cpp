// Schemas of RMSNormalization-23, RotaryEmbedding-23, TensorScatter-24 and LinearAttention-27: the
// second half of StandardSchemasTransformer.cpp, whose transformerOpSchemas() includes them and
// whose opening note on omitted inputs holds here too.
#include "opset/SchemaInference.h"
#include "opset/SchemaSupport.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace portolan::opset {

namespace {

// ---- RMSNormalization-23 -------------------------------------------------------------------------

void inferRmsNormalization(InferenceContext &ctx)
{
    const char *op = "RMSNormalization";
    // Y is V, scale's type (the function body multiplies by scale last); X's when scale's is unknown.
    elemTypeFrom(ctx, {1, 0}, 0);
    checkFloatPrecision(ctx, "stash_type", op);
    const TensorShapeProto *x = shapeOf(ctx, 0);
    if (x == nullptr)
        return;
    onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
    const int rank = x->dim_size();
    const std::int64_t axis = onnx::getAttribute(ctx, "axis", -1);
    if (axis < -rank || axis >= rank)
        fail_shape_inference(op, ": attribute axis (", axis, ") is out of range for X of rank ", rank);
    if (const TensorShapeProto *scale = shapeOf(ctx, 1)) {
        // scale broadcasts one way onto X, so Y keeps X's shape.
        if (scale->dim_size() > rank)
            fail_shape_inference(op, ": scale has rank ", scale->dim_size(), ", more than X's ", rank);
        for (int i = 1; i <= scale->dim_size(); ++i)
            expectDim(scale->dim(scale->dim_size() - i), x->dim(rank - i), true, op, "a scale dim");
    }
}

OpSchema rmsNormalization()
{
    OpSchema s;
    s.SetName("RMSNormalization")
        .SetDomain("")
        .SinceVersion(23)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Root-mean-square normalization: over the axes from `axis` to the last, "
                "Y = X / sqrt(mean(X²) + epsilon) · scale. The mean and the division are computed in the type "
                "stash_type names, the result is cast back to X's type, then multiplied by scale, which must "
                "broadcast (one way) onto X. No mean is subtracted. Y has X's shape.")
        .Attr("axis", "first normalized axis; negative counts from the back", AttributeProto::INT,
              static_cast<std::int64_t>(-1))
        .Attr("epsilon", "added to the mean square before the square root", AttributeProto::FLOAT, 1e-5f)
        .Attr("stash_type", "element type (TensorProto code) of the statistics; 1 is float", AttributeProto::INT,
              static_cast<std::int64_t>(onnx::TensorProto::FLOAT))
        .Input(0, "X", "tensor to normalize", "T")
        .Input(1, "scale", "scale, broadcastable to the normalized dims", "V")
        .Output(0, "Y", "normalized and scaled X, of X's shape", "V")
        .TypeConstraint("T", floatTypes(), "X: floating-point tensors")
        .TypeConstraint("V", floatTypes(), "scale and Y: floating-point tensors")
        .TypeAndShapeInferenceFunction(inferRmsNormalization);
    return s;
}

// ---- RotaryEmbedding-23 --------------------------------------------------------------------------

void inferRotaryEmbedding(InferenceContext &ctx)
{
    const char *op = "RotaryEmbedding";
    elemTypeFrom(ctx, {0}, 0);
    const std::int64_t numHeads = headsAttr(ctx, "num_heads", op);
    const std::int64_t rotaryDim = onnx::getAttribute(ctx, "rotary_embedding_dim", 0);
    if (rotaryDim < 0 || rotaryDim % 2 != 0)
        fail_shape_inference(op, ": attribute rotary_embedding_dim must be even and non-negative, got ", rotaryDim);

    const TensorShapeProto *x = shapeOf(ctx, 0);
    Dim batch, seq, headSize;
    if (x) {
        onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        const int rank = x->dim_size();
        if (rank != 3 && rank != 4)
            fail_shape_inference(op, ": input X has rank ", rank, ", expected 3 or 4");
        batch = x->dim(0);
        if (rank == 4) { // (batch, heads, sequence, head_size); num_heads is not read
            seq = x->dim(2);
            headSize = x->dim(3);
        } else {
            if (numHeads == 0)
                fail_shape_inference(op, ": 3-D X needs the num_heads attribute");
            seq = x->dim(1);
            headSize = divided(x->dim(2), numHeads, op, "X's hidden size");
        }
    }
    // Each rotated pair needs a cosine and a sine of half the rotated width.
    Dim half;
    if (headSize.has_dim_value()) {
        if (rotaryDim > headSize.dim_value())
            fail_shape_inference(op, ": rotary_embedding_dim (", rotaryDim, ") exceeds the head size (",
                                 headSize.dim_value(), ")");
        if (rotaryDim == 0 && headSize.dim_value() % 2 != 0)
            fail_shape_inference(op, ": the head size (", headSize.dim_value(), ") must be even");
    }
    if (rotaryDim > 0)
        half = valueDim(rotaryDim / 2);
    else if (headSize.has_dim_value())
        half = valueDim(headSize.dim_value() / 2);

    // With position_ids the caches are tables (positions, half); without, (batch, sequence, half).
    const bool withPositions = hasTypedInput(ctx, 3);
    const bool surelyWithout = !inputListed(ctx, 3);
    const TensorShapeProto *cosCache = shapeOf(ctx, 1), *sinCache = shapeOf(ctx, 2);
    if (cosCache && sinCache) {
        if (cosCache->dim_size() != sinCache->dim_size())
            fail_shape_inference(op, ": cos_cache and sin_cache must have the same shape");
        for (int i = 0; i < cosCache->dim_size(); ++i) {
            Dim d = cosCache->dim(i);
            mergeDim(d, sinCache->dim(i), op, "dims of cos_cache and sin_cache disagree");
        }
    }
    for (const auto &[name, c] : {std::pair{"cos_cache", cosCache}, std::pair{"sin_cache", sinCache}}) {
        if (c == nullptr)
            continue;
        const int rank = c->dim_size();
        if ((withPositions && rank != 2) || (surelyWithout && rank != 3) || (rank != 2 && rank != 3))
            fail_shape_inference(op, ": ", name, " has rank ", rank, "; expected 2 with position_ids, 3 without");
        expectDim(c->dim(rank - 1), half, false, op, "the caches' last dim (half the rotated width)");
        if (rank == 3) {
            expectDim(c->dim(0), batch, true, op, "the caches' batch dim");
            expectDim(c->dim(1), seq, true, op, "the caches' sequence dim");
        }
    }
    if (const TensorShapeProto *positions = shapeOf(ctx, 3)) {
        expectRank(positions, 2, op, "position_ids");
        expectDim(positions->dim(0), batch, true, op, "position_ids' batch dim");
        expectDim(positions->dim(1), seq, true, op, "position_ids' sequence dim");
    }
}

OpSchema rotaryEmbedding()
{
    OpSchema s;
    s.SetName("RotaryEmbedding")
        .SetDomain("")
        .SinceVersion(23)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Rotary position embedding (RoPE). The first rotary_embedding_dim values of each head (all of "
                "it when 0) are taken as pairs — the two halves, or neighbouring values when interleaved — and "
                "each pair (a, b) becomes (a·cos − b·sin, a·sin + b·cos) with the cosine and sine of its token's "
                "position; the remaining values pass through. X is (batch, heads, sequence, head_size) or "
                "(batch, sequence, heads·head_size) with num_heads given. The caches hold half the rotated width "
                "per token: tables (positions, half) indexed by position_ids (batch, sequence), or, without "
                "position_ids, (batch, sequence, half) directly. Y has X's shape and type.")
        .Attr("interleaved", "1: pair neighbouring values instead of the two halves", AttributeProto::INT,
              static_cast<std::int64_t>(0))
        .Attr("num_heads", "head count; required when X is 3-D", AttributeProto::INT, false)
        .Attr("rotary_embedding_dim", "width rotated per head (even); 0 rotates the whole head", AttributeProto::INT,
              static_cast<std::int64_t>(0))
        .Input(0, "X", "(batch, heads, sequence, head_size) or (batch, sequence, heads·head_size)", "T")
        .Input(1, "cos_cache", "cosines: (positions, half) with position_ids, else (batch, sequence, half)", "T")
        .Input(2, "sin_cache", "sines, of cos_cache's shape", "T")
        .Input(3, "position_ids", "(batch, sequence) rows of the caches to use", "M", OpSchema::Optional)
        .Output(0, "Y", "X rotated, of X's shape", "T")
        .TypeConstraint("T", {"tensor(float)", "tensor(float16)", "tensor(bfloat16)"}, "X, the caches and Y")
        .TypeConstraint("M", {"tensor(int64)"}, "position indices")
        .TypeAndShapeInferenceFunction(inferRotaryEmbedding);
    return s;
}

// ---- TensorScatter-24 ----------------------------------------------------------------------------

void inferTensorScatter(InferenceContext &ctx)
{
    const char *op = "TensorScatter";
    elemTypeFrom(ctx, {0, 1}, 0);
    const std::string mode = onnx::getAttribute(ctx, "mode", std::string("linear"));
    if (mode != "linear" && mode != "circular")
        fail_shape_inference(op, ": attribute mode must be \"linear\" or \"circular\", got \"", mode, "\"");

    const TensorShapeProto *past = shapeOf(ctx, 0), *update = shapeOf(ctx, 1);
    if (past && update && past->dim_size() != update->dim_size())
        fail_shape_inference(op, ": past_cache (rank ", past->dim_size(), ") and update (rank ", update->dim_size(),
                             ") must have the same rank");
    const TensorShapeProto *known = past ? past : update;
    if (known == nullptr)
        return;
    const int rank = known->dim_size();
    std::int64_t axis = onnx::getAttribute(ctx, "axis", -2);
    if (axis < -rank || axis >= rank)
        fail_shape_inference(op, ": attribute axis (", axis, ") is out of range for rank ", rank);
    if (axis < 0)
        axis += rank;
    if (axis == 0)
        fail_shape_inference(op, ": attribute axis must not be the batch dim (0)");

    // present_cache is past_cache's shape; update agrees with it off the sequence axis.
    TensorShapeProto out = *known;
    if (past == nullptr)
        out.mutable_dim(static_cast<int>(axis))->Clear(); // the cache's sequence length is not update's
    if (past && update) {
        for (int i = 0; i < rank; ++i)
            if (i != axis)
                mergeDim(*out.mutable_dim(i), update->dim(i), op,
                         "dims of past_cache and update off the axis disagree");
        const Dim &maxLength = past->dim(static_cast<int>(axis)), &length = update->dim(static_cast<int>(axis));
        if (maxLength.has_dim_value() && length.has_dim_value() && length.dim_value() > maxLength.dim_value())
            fail_shape_inference(op, ": update's sequence length (", length.dim_value(),
                                 ") exceeds the cache's (", maxLength.dim_value(), ")");
    }
    if (const TensorShapeProto *indices = shapeOf(ctx, 2)) {
        expectRank(indices, 1, op, "write_indices");
        mergeDim(*out.mutable_dim(0), indices->dim(0), op, "write_indices' length and the batch size disagree");
    }
    if (ctx.getNumOutputs() > 0)
        onnx::updateOutputShape(ctx, 0, out);
}

OpSchema tensorScatter()
{
    OpSchema s;
    s.SetName("TensorScatter")
        .SetDomain("")
        .SinceVersion(24)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Writes `update` into a copy of a fixed-size cache, the functional form of an in-place key/value "
                "cache update. For every batch sample b (and every index of the dims between batch and `axis`), "
                "the update's sequence_length slices along `axis` land at positions write_indices[b], "
                "write_indices[b]+1, … of the cache (0 when write_indices is absent); in \"circular\" mode the "
                "positions wrap modulo the cache's length, in \"linear\" mode they must fit. update has the cache's "
                "shape except along `axis`, where it may be shorter. present_cache has past_cache's shape and type.")
        .Attr("axis", "the sequence axis of past_cache and update; not 0 (batch)", AttributeProto::INT,
              static_cast<std::int64_t>(-2))
        .Attr("mode", "\"linear\" or \"circular\" (write positions wrap around)", AttributeProto::STRING,
              std::string("linear"))
        .Input(0, "past_cache", "the cache (batch, D1, …, max_sequence, …, Dn)", "T", OpSchema::Single, true, 1,
               OpSchema::Differentiable)
        .Input(1, "update", "new entries (batch, D1, …, sequence, …, Dn)", "T", OpSchema::Single, true, 1,
               OpSchema::Differentiable)
        .Input(2, "write_indices", "(batch,): where each sample's update starts; zeros when absent", "tensor(int64)",
               OpSchema::Optional, true, 1, OpSchema::NonDifferentiable)
        .Output(0, "present_cache", "the updated cache, of past_cache's shape", "T", OpSchema::Single, true, 1,
                OpSchema::Differentiable)
        // The spec also lists float8*, int4, uint4, float4e2m1 and float8e8m0, which libonnx 1.12 cannot name.
        .TypeConstraint("T", allTensorTypes(), "any tensor type")
        .TypeAndShapeInferenceFunction(inferTensorScatter);
    return s;
}

// ---- LinearAttention-27 --------------------------------------------------------------------------

void inferLinearAttention(InferenceContext &ctx)
{
    const char *op = "LinearAttention";
    const std::int64_t qHeads = headsAttr(ctx, "q_num_heads", op);
    const std::int64_t kvHeads = headsAttr(ctx, "kv_num_heads", op);
    if (qHeads == 0 || kvHeads == 0)
        fail_shape_inference(op, ": attributes q_num_heads and kv_num_heads are required");
    if (qHeads % kvHeads != 0)
        fail_shape_inference(op, ": q_num_heads (", qHeads, ") must be a multiple of kv_num_heads (", kvHeads, ")");

    // Which of decay (4) and beta (5) each rule reads; the others must be left out.
    const std::string rule = onnx::getAttribute(ctx, "update_rule", std::string("gated_delta"));
    bool wantsDecay = false, wantsBeta = false;
    if (rule == "gated" || rule == "gated_delta")
        wantsDecay = true;
    if (rule == "delta" || rule == "gated_delta")
        wantsBeta = true;
    if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
        fail_shape_inference(op, ": attribute update_rule must be linear, gated, delta or gated_delta, got ", rule);
    for (const auto &[index, name, wanted] : {std::tuple{4, "decay", wantsDecay}, std::tuple{5, "beta", wantsBeta}}) {
        if (wanted && !inputListed(ctx, index))
            fail_shape_inference(op, ": update_rule ", rule, " needs the ", name, " input");
        if (!wanted && hasTypedInput(ctx, index))
            fail_shape_inference(op, ": update_rule ", rule, " takes no ", name, " input");
    }

    // output is T (query's type); present_state is S, past_state's type, else query's (the state
    // starts as zeros of the activations' type).
    elemTypeFrom(ctx, {0, 1, 2}, 0);
    elemTypeFrom(ctx, {3, 0, 1, 2}, 1);

    // Packed 3-D activations (B, T, heads·size); the state is (B, kv_heads, d_k, d_v).
    const TensorShapeProto *q = shapeOf(ctx, 0), *k = shapeOf(ctx, 1), *v = shapeOf(ctx, 2);
    const TensorShapeProto *past = shapeOf(ctx, 3), *decay = shapeOf(ctx, 4), *beta = shapeOf(ctx, 5);
    Dim batch, time, dk, dv;
    const Dim kvHeadsDim = valueDim(kvHeads);
    for (const auto &[name, s] : {std::pair{"query", q}, std::pair{"key", k}, std::pair{"value", v},
                                  std::pair{"decay", decay}, std::pair{"beta", beta}}) {
        expectRank(s, 3, op, name);
        if (s == nullptr)
            continue;
        mergeDim(batch, s->dim(0), op, "batch sizes of the inputs disagree");
        mergeDim(time, s->dim(1), op, "sequence lengths of the inputs disagree");
    }
    if (q)
        dk = divided(q->dim(2), qHeads, op, "query's packed size");
    if (k)
        mergeDim(dk, divided(k->dim(2), kvHeads, op, "key's packed size"), op,
              "key head sizes of query and key disagree");
    if (v)
        dv = divided(v->dim(2), kvHeads, op, "value's packed size");
    if (past) {
        expectRank(past, 4, op, "past_state");
        mergeDim(batch, past->dim(0), op, "batch sizes of the inputs and past_state disagree");
        expectDim(past->dim(1), kvHeadsDim, false, op, "past_state's head dim");
        mergeDim(dk, past->dim(2), op, "key head sizes of the inputs and past_state disagree");
        mergeDim(dv, past->dim(3), op, "value head sizes of value and past_state disagree");
    }
    if (decay && decay->dim(2).has_dim_value()) {
        // One decay per head, or one per key dim of each head.
        const std::int64_t last = decay->dim(2).dim_value();
        const bool fits = last == kvHeads ||
                          (dk.has_dim_value() ? last == kvHeads * dk.dim_value() : last % kvHeads == 0);
        if (!fits)
            fail_shape_inference(op, ": decay's last dim (", last, ") must be kv_num_heads or kv_num_heads·d_k");
    }
    if (beta && beta->dim(2).has_dim_value() && beta->dim(2).dim_value() != 1 && beta->dim(2).dim_value() != kvHeads)
        fail_shape_inference(op, ": beta's last dim (", beta->dim(2).dim_value(), ") must be 1 or kv_num_heads");

    Dim hidden = times(dv, qHeads);
    if (!hidden.has_dim_value() && qHeads == kvHeads && v != nullptr)
        hidden = v->dim(2);
    setShape(ctx, 0, {batch, time, hidden});
    setShape(ctx, 1, {batch, kvHeadsDim, dk, dv});
}

OpSchema linearAttention()
{
    OpSchema s;
    s.SetName("LinearAttention")
        .SetDomain("")
        .SinceVersion(27)
        .SetLocation(__FILE__, __LINE__)
        .SetDoc("Linear (recurrent-state) attention for prefill and token-by-token decoding. Per key/value head a "
                "state matrix S (d_k × d_v) is updated token by token and read by the queries: o_t = scale·q_tᵀ·S_t. "
                "update_rule picks the recurrence: \"linear\" adds k_t⊗v_t; \"gated\" first decays S by exp(g_t) "
                "(g = decay, in log space); \"delta\" adds β_t·k_t⊗(v_t − S_{t−1}ᵀk_t) (β = beta); \"gated_delta\" "
                "combines both. Activations are packed 3-D, (B, T, heads·size); q_num_heads must be a multiple of "
                "kv_num_heads, each key/value head (and its state) serving a group of query heads. output is "
                "(B, T, q_num_heads·d_v); present_state, the final state, is (B, kv_num_heads, d_k, d_v). The "
                "result equals the sequential recurrence; chunked evaluation is allowed.")
        .Attr("chunk_size", "chunk length for chunk-parallel prefill; a hint that does not change the result",
              AttributeProto::INT, static_cast<std::int64_t>(64))
        .Attr("kv_num_heads", "key/value head count", AttributeProto::INT)
        .Attr("q_num_heads", "query head count", AttributeProto::INT)
        .Attr("scale", "output scale; 0 means 1/sqrt(d_k)", AttributeProto::FLOAT, 0.0f)
        .Attr("update_rule", "\"linear\", \"gated\", \"delta\" or \"gated_delta\"", AttributeProto::STRING,
              std::string("gated_delta"))
        .Input(0, "query", "(B, T, q_heads·d_k)", "T", OpSchema::Single, true, 1, OpSchema::Differentiable)
        .Input(1, "key", "(B, T, kv_heads·d_k); L2-normalized for the delta rules", "T", OpSchema::Single, true, 1,
               OpSchema::Differentiable)
        .Input(2, "value", "(B, T, kv_heads·d_v)", "T", OpSchema::Single, true, 1, OpSchema::Differentiable)
        .Input(3, "past_state", "state before the first token (B, kv_heads, d_k, d_v); zeros when absent", "S",
               OpSchema::Optional, true, 1, OpSchema::NonDifferentiable)
        .Input(4, "decay", "log-space decay, (B, T, kv_heads·d_k) or (B, T, kv_heads); for the gated rules", "T",
               OpSchema::Optional, true, 1, OpSchema::Differentiable)
        .Input(5, "beta", "update rate, (B, T, kv_heads) or (B, T, 1); for the delta rules", "T", OpSchema::Optional,
               true, 1, OpSchema::Differentiable)
        .Output(0, "output", "(B, T, q_heads·d_v)", "T", OpSchema::Single, true, 1, OpSchema::Differentiable)
        .Output(1, "present_state", "state after the last token (B, kv_heads, d_k, d_v)", "S", OpSchema::Single, true,
                1, OpSchema::NonDifferentiable)
        .TypeConstraint("T", {"tensor(float16)", "tensor(bfloat16)", "tensor(float)"}, "activations")
        .TypeConstraint("S", {"tensor(float16)", "tensor(bfloat16)", "tensor(float)"}, "the recurrent state")
        .TypeAndShapeInferenceFunction(inferLinearAttention);
    return s;
}

} // namespace

std::vector<onnx::OpSchema> transformerOpSchemas2()
{
    return {rmsNormalization(), rotaryEmbedding(), tensorScatter(), linearAttention()};
}

} // namespace portolan::opset
