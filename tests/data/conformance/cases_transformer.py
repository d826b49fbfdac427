"""Conformance cases of the standard transformer ops: Attention (23, 24), RotaryEmbedding (23) and
TensorScatter (24), for generate.py's suite.

ONNX Runtime 1.30 refuses, so no case covers: Attention-25's left_window_size/right_window_size (its
schema lacks them), an attn_mask whose key dim is shorter than the keys (opset 24 pads it with -inf)
or of rank 1, scale <= 0, and empty sequences. In qk_matmul_output_mode 2 it writes masked scores as
-FLT_MAX where the spec's bias gives -inf, so the mode-2 case masks with finite float values only.
"""

import numpy as np
from onnx import TensorProto, helper

F = TensorProto.FLOAT


def _attention(case, opset, name, inputs, outputs, initializers=(), **attributes):
    """inputs: [(slot name, name, array)] with slot among q k v mask past_key past_value nonpad;
    outputs: [(slot name, name)] with slot among y present_key present_value qk."""
    slots = ["q", "k", "v", "mask", "past_key", "past_value", "nonpad"]
    named = {slot: n for slot, n, _ in inputs}
    named.update({slot: n for slot, n, _ in initializers})
    last = max(slots.index(slot) for slot in named)
    node_inputs = [named.get(slot, "") for slot in slots[:last + 1]]
    out_slots = ["y", "present_key", "present_value", "qk"]
    out_named = dict(outputs)
    last_out = max(out_slots.index(slot) for slot in out_named)
    node_outputs = [out_named.get(slot, "") for slot in out_slots[:last_out + 1]]
    node = helper.make_node("Attention", node_inputs, node_outputs, **attributes)
    case(opset, name, [node], [(n, a) for _, n, a in inputs], [(n, F) for _, n in outputs],
         [(n, a) for _, n, a in initializers])


def _attention_cases(case, floats, rng):
    q, k, v = floats(2, 3, 4, 8), floats(2, 3, 6, 8), floats(2, 3, 6, 8)
    qkv = [("q", "q", q), ("k", "k", k), ("v", "v", v)]
    _attention(case, 23, "attention_4d", qkv, [("y", "y")])
    # 3-D inputs: (batch, sequence, heads·head_size), V with a head size of its own.
    _attention(case, 23, "attention_3d_heads",
               [("q", "q", floats(2, 4, 3 * 8)), ("k", "k", floats(2, 6, 3 * 8)), ("v", "v", floats(2, 6, 3 * 5))],
               [("y", "y")], q_num_heads=3, kv_num_heads=3)
    # Grouped-query: 4 query heads share 2 key/value heads (query heads 0-1 use kv head 0).
    _attention(case, 23, "attention_gqa",
               [("q", "q", floats(2, 4, 3, 8)), ("k", "k", floats(2, 2, 5, 8)), ("v", "v", floats(2, 2, 5, 6))],
               [("y", "y")])
    _attention(case, 23, "attention_3d_gqa_causal",
               [("q", "q", floats(1, 4, 6 * 4)), ("k", "k", floats(1, 4, 2 * 4)), ("v", "v", floats(1, 4, 2 * 4))],
               [("y", "y")], q_num_heads=6, kv_num_heads=2, is_causal=1)
    # The cache: present = past ++ current along the sequence; the causal frontier sits past_length to the right.
    _attention(case, 23, "attention_causal_past_present",
               [("q", "q", floats(2, 3, 2, 8)), ("k", "k", floats(2, 3, 2, 8)), ("v", "v", floats(2, 3, 2, 8)),
                ("past_key", "past_key", floats(2, 3, 4, 8)), ("past_value", "past_value", floats(2, 3, 4, 8))],
               [("y", "y"), ("present_key", "present_key"), ("present_value", "present_value")], is_causal=1)
    _attention(case, 23, "attention_3d_gqa_past_present",
               [("q", "q", floats(1, 2, 4 * 4)), ("k", "k", floats(1, 2, 2 * 4)), ("v", "v", floats(1, 2, 2 * 4)),
                ("past_key", "past_key", floats(1, 2, 3, 4)), ("past_value", "past_value", floats(1, 2, 3, 4))],
               [("y", "y"), ("present_key", "present_key"), ("present_value", "present_value")],
               q_num_heads=4, kv_num_heads=2, is_causal=1)
    # Boolean mask (True attends), with one query row masked entirely: the spec's errata makes it zeros.
    keep = rng.random((2, 1, 4, 6)) > 0.4
    keep[:, :, :, 0] = True
    keep[1, 0, 2, :] = False
    _attention(case, 23, "attention_bool_mask", qkv + [("mask", "mask", keep)], [("y", "y")])
    _attention(case, 23, "attention_float_mask", qkv + [("mask", "mask", floats(2, 3, 4, 6))], [("y", "y")])
    _attention(case, 23, "attention_float_mask_causal",
               [("q", "q", floats(2, 3, 4, 8)), ("k", "k", floats(2, 3, 4, 8)), ("v", "v", floats(2, 3, 4, 8)),
                ("mask", "mask", floats(3, 4, 4))], [("y", "y")], is_causal=1)
    _attention(case, 23, "attention_softcap", [("q", "q", q * 3)] + qkv[1:], [("y", "y")], softcap=2.0, scale=0.5)
    # qk_matmul_output at each stage: raw Q·Kᵀ·scale (softcap not applied), after softcap, after the
    # (finite) bias, and the softmax (the fully masked row is zeros there too).
    both = [("y", "y"), ("qk", "qk")]
    _attention(case, 23, "attention_qk_matmul_output_raw", [("q", "q", q * 3)] + qkv[1:], both,
               softcap=2.0, qk_matmul_output_mode=0)
    _attention(case, 23, "attention_qk_matmul_output_softcap", [("q", "q", q * 3)] + qkv[1:], both,
               softcap=2.0, qk_matmul_output_mode=1)
    _attention(case, 23, "attention_qk_matmul_output_bias", qkv + [("mask", "mask", floats(2, 1, 4, 6))], both,
               softcap=3.0, qk_matmul_output_mode=2)
    _attention(case, 23, "attention_qk_matmul_output_softmax", qkv + [("mask", "mask", keep)], both,
               qk_matmul_output_mode=3)
    # nonpad_kv_seqlen (24): K and V are a fixed-size cache with 5 and 7 real keys; the causal
    # frontier is offset by nonpad_kv_seqlen - q_sequence_length.
    lengths = np.array([5, 7], np.int64)
    cache = [("q", "q", floats(2, 2, 3, 4)), ("k", "k", floats(2, 2, 7, 4)), ("v", "v", floats(2, 2, 7, 4)),
             ("nonpad", "nonpad_kv_seqlen", lengths)]
    _attention(case, 24, "attention_nonpad_kv_seqlen", cache, [("y", "y")])
    _attention(case, 24, "attention_nonpad_kv_seqlen_causal", cache, [("y", "y")], is_causal=1)
    _attention(case, 25, "attention_opset25_gqa_causal",
               [("q", "q", floats(2, 4, 3, 8)), ("k", "k", floats(2, 2, 3, 8)), ("v", "v", floats(2, 2, 3, 8))],
               [("y", "y")], is_causal=1)


def _rope_caches(rows, half):
    """cos/sin tables of `rows` positions with RoPE's usual frequencies."""
    angles = np.arange(rows)[:, None] * (10000.0 ** (-np.arange(half) / half))[None, :]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def _rotary_cases(case, floats, rng):
    def rotary(name, x, cos, sin, positions, **attributes):
        ins = ["x", "cos_cache", "sin_cache"] + (["position_ids"] if positions is not None else [])
        inputs = [("x", x)] + ([("position_ids", positions)] if positions is not None else [])
        case(23, name, [helper.make_node("RotaryEmbedding", ins, ["y"], **attributes)], inputs, [("y", F)],
             [("cos_cache", cos), ("sin_cache", sin)])

    cos, sin = _rope_caches(16, 4)
    positions = rng.integers(0, 16, (2, 5)).astype(np.int64)
    rotary("rotary_embedding_4d", floats(2, 3, 5, 8), cos, sin, positions)
    rotary("rotary_embedding_3d", floats(2, 5, 3 * 8), cos, sin, positions, num_heads=3)
    rotary("rotary_embedding_interleaved", floats(2, 3, 5, 8), cos, sin, positions, interleaved=1)
    half_cos, half_sin = _rope_caches(16, 2)
    rotary("rotary_embedding_partial", floats(2, 5, 2 * 8), half_cos, half_sin, positions, num_heads=2,
           rotary_embedding_dim=4)
    rotary("rotary_embedding_partial_interleaved", floats(2, 3, 5, 8), half_cos, half_sin, positions,
           rotary_embedding_dim=4, interleaved=1)
    # Without position_ids the caches are (batch, sequence, half) already.
    table_cos, table_sin = _rope_caches(16, 4)
    rows = rng.integers(0, 16, (2, 5))
    rotary("rotary_embedding_no_position_ids", floats(2, 3, 5, 8), table_cos[rows], table_sin[rows], None)


def _tensor_scatter_cases(case, floats, rng):
    def scatter(name, past, update, indices, **attributes):
        ins = ["past_cache", "update"] + (["write_indices"] if indices is not None else [])
        inputs = [("past_cache", past), ("update", update)] + ([("write_indices", indices)] if indices is not None else [])
        case(24, name, [helper.make_node("TensorScatter", ins, ["present_cache"], **attributes)], inputs,
             [("present_cache", F)])

    scatter("tensor_scatter_linear", floats(2, 3, 8, 4), floats(2, 3, 3, 4), np.array([1, 5], np.int64))
    scatter("tensor_scatter_linear_no_indices", floats(2, 3, 8, 4), floats(2, 3, 2, 4), None, mode="linear")
    # Sample 0 writes positions 7, 0, 1 and sample 1 positions 6, 7, 0.
    scatter("tensor_scatter_circular", floats(2, 3, 8, 4), floats(2, 3, 3, 4), np.array([7, 6], np.int64),
            mode="circular")
    scatter("tensor_scatter_axis1", floats(2, 6, 3), floats(2, 2, 3), np.array([4, 0], np.int64), axis=1)


def add_cases(case, floats, rng):
    _attention_cases(case, floats, rng)
    _rotary_cases(case, floats, rng)
    _tensor_scatter_cases(case, floats, rng)
