// Schemas of the standard transformer-block ops of opsets 23–27: Attention (23, 24, 25) here;
// RMSNormalization-23, RotaryEmbedding-23, TensorScatter-24 and LinearAttention-27 in
// StandardSchemasTransformer2.cpp, whose schemas transformerOpSchemas() below returns too.
//
// libonnx 1.12 gives an inference function no way to tell an omitted optional input (empty name)
// from a named input whose type is not known yet: both read as a null type. The functions of both
// files therefore treat an input as present only when it has a type, and as surely absent only when
// its index lies past the node's input list; in between, whatever depends on it is left unknown.
#include "opset/SchemaInference.h"
#include "opset/SchemaSupport.h"
#include "opset/StandardSchemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <string>
#include <utility>

namespace portolan::opset {

namespace {

/// a + b, keeping the other dim as it is when one is a static 0.
Dim sum(const Dim &a, const Dim &b)
{
    if (a.has_dim_value() && b.has_dim_value())
        return valueDim(a.dim_value() + b.dim_value());
    if (a.has_dim_value() && a.dim_value() == 0)
        return b;
    if (b.has_dim_value() && b.dim_value() == 0)
        return a;
    return Dim{};
}

// ---- Attention (23, 24, 25) ----------------------------------------------------------------------

void inferAttention(InferenceContext &ctx, int version)
{
    const char *op = "Attention";
    // Y and qk_matmul_output are T1 (Q's type), present_key T1, present_value T2 (V's type).
    elemTypeFrom(ctx, {0, 1, 4}, 0);
    elemTypeFrom(ctx, {0, 1, 4}, 1);
    elemTypeFrom(ctx, {2, 5}, 2);
    elemTypeFrom(ctx, {0, 1, 4}, 3);

    const std::int64_t mode = onnx::getAttribute(ctx, "qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3)
        fail_shape_inference(op, ": attribute qk_matmul_output_mode must be 0, 1, 2 or 3, got ", mode);
    checkFloatPrecision(ctx, "softmax_precision", op);
    if (version >= 25)
        for (const char *name : {"left_window_size", "right_window_size"})
            if (onnx::getAttribute(ctx, name, -1) < -1)
                fail_shape_inference(op, ": attribute ", name, " must be -1 or non-negative, got ",
                                     onnx::getAttribute(ctx, name, -1));
    if (version >= 24 && hasTypedInput(ctx, 6) && (hasTypedInput(ctx, 4) || hasTypedInput(ctx, 5)))
        fail_shape_inference(op, ": nonpad_kv_seqlen cannot be combined with past_key/past_value");
    const std::int64_t qHeadsAttr = headsAttr(ctx, "q_num_heads", op);
    const std::int64_t kvHeadsAttr = headsAttr(ctx, "kv_num_heads", op);

    const TensorShapeProto *q = shapeOf(ctx, 0), *k = shapeOf(ctx, 1), *v = shapeOf(ctx, 2);
    int rank = 0;
    for (const auto &[name, s] : {std::pair{"Q", q}, std::pair{"K", k}, std::pair{"V", v}}) {
        if (s == nullptr)
            continue;
        if (s->dim_size() != 3 && s->dim_size() != 4)
            fail_shape_inference(op, ": input ", name, " has rank ", s->dim_size(), ", expected 3 or 4");
        if (rank != 0 && s->dim_size() != rank)
            fail_shape_inference(op, ": Q, K and V must all be 3-D or all be 4-D");
        rank = s->dim_size();
    }
    if (rank == 3 && (qHeadsAttr == 0 || kvHeadsAttr == 0))
        fail_shape_inference(op, ": 3-D Q, K and V need the q_num_heads and kv_num_heads attributes");
    if (rank == 4 && version >= 25 && (qHeadsAttr != 0 || kvHeadsAttr != 0))
        fail_shape_inference(op, ": q_num_heads and kv_num_heads must not be set for 4-D Q, K and V");

    // The logical 4-D view: Q (batch, qHeads, qSeq, headSize), K (batch, kvHeads, kvSeq, headSize),
    // V (batch, kvHeads, kvSeq, vHeadSize).
    Dim batch, qHeads, qSeq, headSize, kvHeads, kvSeq, vHeadSize;
    if (qHeadsAttr != 0)
        qHeads = valueDim(qHeadsAttr);
    if (kvHeadsAttr != 0)
        kvHeads = valueDim(kvHeadsAttr);
    if (rank == 4) {
        if (q) {
            mergeDim(batch, q->dim(0), op, "batch sizes disagree");
            mergeDim(qHeads, q->dim(1), op, "Q's head count and q_num_heads disagree");
            qSeq = q->dim(2);
            headSize = q->dim(3);
        }
        for (const TensorShapeProto *s : {k, v}) {
            if (s == nullptr)
                continue;
            mergeDim(batch, s->dim(0), op, "batch sizes of Q, K and V disagree");
            mergeDim(kvHeads, s->dim(1), op, "head counts of K and V (and kv_num_heads) disagree");
            mergeDim(kvSeq, s->dim(2), op, "sequence lengths of K and V disagree");
        }
        if (k)
            mergeDim(headSize, k->dim(3), op, "head sizes of Q and K disagree");
        if (v)
            vHeadSize = v->dim(3);
    } else if (rank == 3) {
        if (q) {
            batch = q->dim(0);
            qSeq = q->dim(1);
            headSize = divided(q->dim(2), qHeadsAttr, op, "Q's hidden size");
        }
        for (const TensorShapeProto *s : {k, v}) {
            if (s == nullptr)
                continue;
            mergeDim(batch, s->dim(0), op, "batch sizes of Q, K and V disagree");
            mergeDim(kvSeq, s->dim(1), op, "sequence lengths of K and V disagree");
        }
        if (k)
            mergeDim(headSize, divided(k->dim(2), kvHeadsAttr, op, "K's hidden size"), op,
                  "head sizes of Q and K disagree");
        if (v)
            vHeadSize = divided(v->dim(2), kvHeadsAttr, op, "V's hidden size");
    }

    // The cache inputs are always 4-D: (batch, kvHeads, pastSeq, headSize or vHeadSize).
    const TensorShapeProto *pastKey = shapeOf(ctx, 4), *pastValue = shapeOf(ctx, 5);
    expectRank(pastKey, 4, op, "past_key");
    expectRank(pastValue, 4, op, "past_value");
    Dim pastSeq;
    for (const TensorShapeProto *s : {pastKey, pastValue}) {
        if (s == nullptr)
            continue;
        mergeDim(batch, s->dim(0), op, "batch sizes of the inputs and the past cache disagree");
        mergeDim(kvHeads, s->dim(1), op, "head counts of K/V and the past cache disagree");
        mergeDim(pastSeq, s->dim(2), op, "sequence lengths of past_key and past_value disagree");
    }
    if (pastKey)
        mergeDim(headSize, pastKey->dim(3), op, "head sizes of K and past_key disagree");
    if (pastValue)
        mergeDim(vHeadSize, pastValue->dim(3), op, "head sizes of V and past_value disagree");

    if (qHeads.has_dim_value() && kvHeads.has_dim_value() && qHeads.dim_value() % kvHeads.dim_value() != 0)
        fail_shape_inference(op, ": the query head count (", qHeads.dim_value(),
                             ") must be a multiple of the key/value head count (", kvHeads.dim_value(), ")");

    // Keys seen = past + current. With a past input named but of unknown shape (or an empty name
    // libonnx cannot tell apart from it), the total stays unknown.
    Dim totalSeq;
    if (!inputListed(ctx, 4) && !inputListed(ctx, 5))
        totalSeq = kvSeq;
    else if (pastKey || pastValue)
        totalSeq = sum(pastSeq, kvSeq);

    if (const TensorShapeProto *mask = shapeOf(ctx, 3)) {
        // Broadcast right-aligned against (batch, qHeads, qSeq, totalSeq); from opset 24 the last
        // dim may also be shorter than totalSeq (padded with -inf).
        const int maskRank = mask->dim_size();
        if (maskRank > 4)
            fail_shape_inference(op, ": attn_mask has rank ", maskRank, ", at most 4 allowed");
        const Dim *target[4] = {&batch, &qHeads, &qSeq, &totalSeq};
        const char *names[4] = {"attn_mask's batch dim", "attn_mask's head dim", "attn_mask's query dim",
                                "attn_mask's key dim"};
        for (int i = 0; i < maskRank; ++i) {
            const Dim &have = mask->dim(maskRank - 1 - i);
            const Dim &want = *target[3 - i];
            if (i == 0 && version >= 24 && have.has_dim_value() && want.has_dim_value()) {
                if (have.dim_value() > want.dim_value())
                    fail_shape_inference(op, ": attn_mask's key dim (", have.dim_value(),
                                         ") exceeds the total sequence length (", want.dim_value(), ")");
                continue;
            }
            expectDim(have, want, true, op, names[3 - i]);
        }
    }
    if (version >= 24)
        if (const TensorShapeProto *lengths = shapeOf(ctx, 6)) {
            expectRank(lengths, 1, op, "nonpad_kv_seqlen");
            mergeDim(batch, lengths->dim(0), op, "nonpad_kv_seqlen's length and the batch size disagree");
        }

    if (rank == 4) {
        setShape(ctx, 0, {batch, qHeads, qSeq, vHeadSize});
    } else if (rank == 3) {
        Dim hidden = times(vHeadSize, qHeadsAttr);
        if (!hidden.has_dim_value() && qHeadsAttr == kvHeadsAttr && v != nullptr)
            hidden = v->dim(2); // same head count: Y's hidden size is V's, symbolic or not
        setShape(ctx, 0, {batch, qSeq, hidden});
    }
    setShape(ctx, 1, {batch, kvHeads, totalSeq, headSize});
    setShape(ctx, 2, {batch, kvHeads, totalSeq, vHeadSize});
    setShape(ctx, 3, {batch, qHeads, qSeq, totalSeq});
}

OpSchema attention(int version)
{
    std::string doc =
        "Scaled dot-product attention: Y = softmax(Q·Kᵀ·scale + bias)·V, with optional soft capping of the "
        "scores (softcap·tanh(scores/softcap)) before the bias. Q, K and V are either all 4-D, "
        "(batch, heads, sequence, head_size), or all 3-D, (batch, sequence, heads·head_size), in which case "
        "q_num_heads and kv_num_heads give the head counts. K and V may have fewer heads than Q (grouped-query "
        "and multi-query attention): the query head count must be a multiple of theirs, and each key/value head "
        "serves a group of query heads. V's head size may differ from Q's; Y has Q's batch, heads and sequence "
        "with V's head size (3-D: q_num_heads·v_head_size). The bias sums attn_mask (a boolean mask where True "
        "keeps a key, or an additive float mask) and, with is_causal, a causal mask aligned to the bottom right "
        "(query i sees key j when j ≤ i + offset, offset being the number of cached keys before the block). A "
        "query row with every key masked gives zeros. past_key/past_value, when given, are concatenated before "
        "K/V along the sequence axis; present_key/present_value return the result, of sequence length "
        "past + current. qk_matmul_output is (batch, q_heads, q_sequence, total_sequence).";
    if (version >= 24)
        doc += "\n\nFrom opset 24 the key/value cache may instead be kept outside the op (e.g. updated by "
               "TensorScatter): K and V are then the whole cache and nonpad_kv_seqlen (batch,) says how many leading "
               "keys of each sample are real; the causal offset becomes nonpad_kv_seqlen − q_sequence. It must not be "
               "combined with the past/present inputs and outputs. attn_mask's key dim may be shorter than the total "
               "sequence length; the missing keys are masked out.";
    if (version >= 25)
        doc += "\n\nOpset 25 adds a sliding window: a query at absolute position p sees only keys j with "
               "p − left_window_size ≤ j ≤ p + right_window_size, each bound ignored when −1. The window combines "
               "with is_causal and attn_mask.";

    OpSchema s;
    s.SetName("Attention").SetDomain("").SinceVersion(version).SetLocation(__FILE__, __LINE__).SetDoc(doc);
    s.Attr("is_causal", "1: add the bottom-right aligned causal mask", AttributeProto::INT,
           static_cast<std::int64_t>(0))
        .Attr("kv_num_heads", "head count of K and V; required with 3-D inputs", AttributeProto::INT, false)
        .Attr("q_num_heads", "head count of Q; required with 3-D inputs", AttributeProto::INT, false)
        .Attr("qk_matmul_output_mode",
              "what qk_matmul_output holds: 0 the raw scores Q·Kᵀ·scale, 1 after softcap, 2 after softcap and bias, "
              "3 the softmax probabilities",
              AttributeProto::INT, static_cast<std::int64_t>(0))
        .Attr("scale", "factor on Q·Kᵀ (default 1/sqrt(head_size))", AttributeProto::FLOAT, false)
        .Attr("softcap", "soft cap of the scores; 0 means none", AttributeProto::FLOAT, 0.0f)
        .Attr("softmax_precision", "element type (TensorProto code: 1, 10, 11 or 16) the softmax is computed in; "
              "default the inputs' type",
              AttributeProto::INT, false);
    if (version >= 25)
        s.Attr("left_window_size", "keys visible to the left of the query's position; -1 unbounded",
               AttributeProto::INT, static_cast<std::int64_t>(-1))
            .Attr("right_window_size", "keys visible to the right of the query's position; -1 unbounded",
                  AttributeProto::INT, static_cast<std::int64_t>(-1));
    s.Input(0, "Q", "queries: (batch, q_heads, q_sequence, head_size) or (batch, q_sequence, q_heads·head_size)",
            "T1")
        .Input(1, "K", "keys: (batch, kv_heads, kv_sequence, head_size) or (batch, kv_sequence, kv_heads·head_size)",
               "T1")
        .Input(2, "V",
               "values: (batch, kv_heads, kv_sequence, v_head_size) or (batch, kv_sequence, kv_heads·v_head_size)",
               "T2")
        .Input(3, "attn_mask", "boolean (True keeps) or additive mask, broadcastable to (batch, q_heads, q_sequence, "
               "total_sequence)",
               "U", OpSchema::Optional)
        .Input(4, "past_key", "cached keys (batch, kv_heads, past_sequence, head_size); given with past_value", "T1",
               OpSchema::Optional)
        .Input(5, "past_value", "cached values (batch, kv_heads, past_sequence, v_head_size); given with past_key",
               "T2", OpSchema::Optional);
    if (version >= 24)
        s.Input(6, "nonpad_kv_seqlen",
                "(batch,): count of valid leading keys per sample, for a cache kept outside the op", "tensor(int64)",
                OpSchema::Optional);
    s.Output(0, "Y", "(batch, q_heads, q_sequence, v_head_size) or (batch, q_sequence, q_heads·v_head_size)", "T1")
        .Output(1, "present_key", "past_key and K concatenated: (batch, kv_heads, total_sequence, head_size)", "T1",
                OpSchema::Optional)
        .Output(2, "present_value", "past_value and V concatenated: (batch, kv_heads, total_sequence, v_head_size)",
                "T2", OpSchema::Optional)
        .Output(3, "qk_matmul_output", "the scores at the stage qk_matmul_output_mode picks: (batch, q_heads, "
                "q_sequence, total_sequence)",
                "T1", OpSchema::Optional)
        .TypeConstraint("T1", floatTypes(), "Q, K, Y and the key cache: floating-point tensors")
        .TypeConstraint("T2", floatTypes(), "V and the value cache: floating-point tensors")
        .TypeConstraint("U",
                        {"tensor(uint8)", "tensor(uint16)", "tensor(uint32)", "tensor(uint64)", "tensor(int8)",
                         "tensor(int16)", "tensor(int32)", "tensor(int64)", "tensor(bfloat16)", "tensor(float16)",
                         "tensor(float)", "tensor(double)", "tensor(bool)"},
                        "attn_mask: bool or a numeric type")
        .TypeAndShapeInferenceFunction([version](InferenceContext &ctx) { inferAttention(ctx, version); });
    return s;
}

} // namespace

std::vector<onnx::OpSchema> transformerOpSchemas()
{
    std::vector<onnx::OpSchema> schemas;
    for (int version : {23, 24, 25})
        schemas.push_back(attention(version));
    for (onnx::OpSchema &schema : transformerOpSchemas2())
        schemas.push_back(std::move(schema));
    return schemas;
}

} // namespace portolan::opset
