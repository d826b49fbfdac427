"""Conformance variants of the transformer ops of opsets 23-25 (Attention with masks of every rank and type,
causal with offsets, GQA, past/present, softcap, scale, every qk_matmul_output mode, 3-D inputs, V of its own
head size, nonpad_kv_seqlen, fully-masked rows, float16, the sliding windows of version 25), RMSNormalization,
GroupNormalization, RotaryEmbedding and TensorScatter. Called from cases_upstream_variants.add_cases, first.
"""

import itertools
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import narrow
from variant_support import *  # noqa: F401,F403 (element types, single)


def attention_reference(feeds, is_causal=0, scale=None, softcap=0.0, q_num_heads=None, kv_num_heads=None,
                        left_window_size=-1, right_window_size=-1, qk_matmul_output_mode=0, **_):
    """Attention by the spec's words, in double: {Y, present_key, present_value, qk_matmul_output}."""
    q, k, v = (feeds[n].astype(np.float64) for n in ("Q", "K", "V"))
    three_d = q.ndim == 3

    def heads(x, n):  # (B, S, n * size) -> (B, n, S, size)
        return x.reshape(x.shape[0], x.shape[1], n, x.shape[2] // n).transpose(0, 2, 1, 3)
    if three_d:
        q, k, v = heads(q, q_num_heads), heads(k, kv_num_heads), heads(v, kv_num_heads)
    past = feeds.get("past_key")
    past_length = 0 if past is None else past.shape[2]
    if past is not None:
        k = np.concatenate([past.astype(np.float64), k], axis=2)
        v = np.concatenate([feeds["past_value"].astype(np.float64), v], axis=2)
    batch, q_heads, q_length, head_size = q.shape
    total = k.shape[2]
    group = q_heads // k.shape[1]
    kk, vv = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = 1 / math.sqrt(head_size) if scale is None else scale
    raw = np.einsum("bhqd,bhkd->bhqk", q, kk) * s
    capped = softcap * np.tanh(raw / softcap) if softcap else raw
    bias = np.zeros(raw.shape)
    mask = feeds.get("attn_mask")
    if mask is not None:
        m = np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64)
        if m.shape[-1] < total:  # opset 24: a shorter key axis is padded with -inf
            m = np.concatenate([m, np.full(m.shape[:-1] + (total - m.shape[-1],), -np.inf)], axis=-1)
        bias = bias + m
    nonpad = feeds.get("nonpad_kv_seqlen")
    i, j = np.arange(q_length)[:, None], np.arange(total)[None, :]
    for b in range(batch):
        offset = past_length if past is not None else (int(nonpad[b]) - q_length if nonpad is not None else 0)
        allowed = np.ones((q_length, total), bool)
        if nonpad is not None:
            allowed &= j < nonpad[b]
        if is_causal:
            allowed &= j <= i + offset
        if left_window_size >= 0:
            allowed &= j >= i + offset - left_window_size
        if right_window_size >= 0:
            allowed &= j <= i + offset + right_window_size
        bias[b] += np.where(allowed, 0.0, -np.inf)
    scores = capped + bias
    top = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isfinite(top), top, 0.0))
    sums = e.sum(axis=-1, keepdims=True)
    probs = np.where(sums > 0, e / np.where(sums > 0, sums, 1.0), 0.0)  # a fully masked row gives zeros
    y = np.einsum("bhqk,bhkd->bhqd", probs, vv)
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(batch, q_length, -1)
    qk = [raw, capped, scores, probs][qk_matmul_output_mode]
    return {"Y": y, "present_key": k, "present_value": v, "qk_matmul_output": qk}


SLOTS = ("Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen")
OUT_SLOTS = ("Y", "present_key", "present_value", "qk_matmul_output")


def _attention(case, opset, name, feeds, outs=("Y",), ort_refuses=None, **attributes):
    """feeds {slot: array}; every slot fed at run time, as ONNX's node tests do. With ort_refuses the
    expected outputs are attention_reference's."""
    last = max(SLOTS.index(s) for s in feeds)
    last_out = max(OUT_SLOTS.index(o) for o in outs)
    node = helper.make_node("Attention", [s if s in feeds else "" for s in SLOTS[:last + 1]],
                            [o if o in outs else "" for o in OUT_SLOTS[:last_out + 1]], **attributes)
    dtype = feeds["Q"].dtype
    exact = None
    if ort_refuses:
        exact = lambda f: {o: r.astype(dtype) for o, r in attention_reference(f, **attributes).items() if o in outs}
    case(opset, f"attention_{name}", [node], [(s, feeds[s]) for s in SLOTS if s in feeds],
         [(o, ELEM_OF[dtype]) for o in outs], exact=exact, ort_refuses=ort_refuses)


def _attention_cases(case, rng):
    def u(*shape, dtype=np.float32):
        return rng.random(shape).astype(dtype)

    def qkv(hq=3, hkv=3, sq=4, skv=6, d=8, dv=8, batch=2, dtype=np.float32):
        return {"Q": u(batch, hq, sq, d, dtype=dtype), "K": u(batch, hkv, skv, d, dtype=dtype),
                "V": u(batch, hkv, skv, dv, dtype=dtype)}

    def qkv3(hq=3, hkv=3, sq=4, skv=6, d=8, dv=8, batch=2):
        return {"Q": u(batch, sq, hq * d), "K": u(batch, skv, hkv * d), "V": u(batch, skv, hkv * dv)}

    def with_past(feeds, hkv, d, dv, length=12, dtype=np.float32):
        batch = feeds["Q"].shape[0]
        return dict(feeds, past_key=u(batch, hkv, length, d, dtype=dtype), past_value=u(batch, hkv, length, dv, dtype=dtype))

    def bool_mask(*shape):
        m = rng.random(shape) > 0.35
        m[..., 0] = True  # every query keeps a key
        return m

    everything = ("Y", "present_key", "present_value")
    a = lambda opset, name, feeds, outs=("Y",), why=None, **attrs: _attention(case, opset, name, feeds, outs, why, **attrs)
    # 4-D, opset 23: scale, GQA, V's own head size, causal with kv longer than q (top-left frontier)
    a(23, "4d_scaled", qkv(), scale=0.1)
    a(23, "4d_gqa_scaled", qkv(hq=9), scale=0.1)
    a(23, "4d_diff_head_sizes", qkv(dv=10))
    a(23, "4d_diff_head_sizes_scaled", qkv(dv=10), scale=0.1)
    a(23, "4d_causal", qkv(), is_causal=1)
    a(23, "4d_gqa_causal", qkv(hq=9), is_causal=1)
    a(23, "4d_diff_head_sizes_causal", qkv(dv=10), is_causal=1)
    a(23, "4d_gqa_softcap", qkv(hq=9), softcap=2.0)
    a(23, "4d_diff_head_sizes_softcap", qkv(dv=10), softcap=2.0)
    a(23, "4d_mqa", qkv(hq=4, hkv=1))
    # masks: float of rank 2, 3 (heads, q, kv), 4 with a batch of 1 and full; bool of rank 2 and 4
    a(23, "4d_mask_rank2", dict(qkv(), attn_mask=u(4, 6)))
    a(23, "4d_mask_rank3_heads", dict(qkv(), attn_mask=u(3, 4, 6)))
    a(23, "4d_mask_batch_causal", dict(qkv(), attn_mask=u(2, 1, 4, 6)), is_causal=1)
    a(23, "4d_mask_rank4_causal", dict(qkv(), attn_mask=u(2, 3, 4, 6)), is_causal=1)
    a(23, "4d_mask_broadcast_q", dict(qkv(), attn_mask=u(2, 1, 1, 6)), ("Y",),
      "ONNX Runtime 1.30 refuses an attn_mask whose query axis is broadcast (1 for 4 queries)")
    a(23, "4d_bool_mask_rank2", dict(qkv(), attn_mask=bool_mask(4, 6)))
    a(23, "4d_bool_mask_rank4", dict(qkv(), attn_mask=bool_mask(2, 3, 4, 6)))
    a(23, "4d_gqa_mask", dict(qkv(hq=9), attn_mask=u(4, 6)))
    a(23, "4d_diff_head_sizes_mask", dict(qkv(dv=10), attn_mask=u(4, 6)))
    # past and present (an internal cache of 12)
    a(23, "4d_past_present_mask", with_past(dict(qkv(), attn_mask=u(4, 18)), 3, 8, 8), everything)
    a(23, "4d_gqa_past_present", with_past(dict(qkv(hq=9), attn_mask=u(4, 18)), 3, 8, 8), everything)
    a(23, "4d_diff_head_sizes_past_present", with_past(dict(qkv(dv=10), attn_mask=u(4, 18)), 3, 8, 10), everything)
    a(23, "4d_diff_head_sizes_past_present_mask_batch",
      with_past(dict(qkv(dv=10), attn_mask=u(2, 1, 4, 18)), 3, 8, 10), everything)
    a(23, "4d_diff_head_sizes_past_present_mask_rank4",
      with_past(dict(qkv(dv=10), attn_mask=u(2, 3, 4, 18)), 3, 8, 10), everything)
    # qk_matmul_output: mode 0 by default, and the modes with a cache
    qk = everything + ("qk_matmul_output",)
    a(23, "4d_qk_matmul_default", qkv(), ("Y", "qk_matmul_output"))
    a(23, "4d_past_present_qk_matmul", with_past(dict(qkv(), attn_mask=u(4, 18)), 3, 8, 8), qk)
    a(23, "4d_past_present_qk_matmul_bias", with_past(dict(qkv(), attn_mask=u(4, 18)), 3, 8, 8), qk,
      qk_matmul_output_mode=2)
    a(23, "4d_past_present_qk_matmul_bias_mask_batch", with_past(dict(qkv(), attn_mask=u(2, 1, 4, 18)), 3, 8, 8), qk,
      qk_matmul_output_mode=2)
    a(23, "4d_past_present_qk_matmul_bias_mask_rank4", with_past(dict(qkv(), attn_mask=u(2, 3, 4, 18)), 3, 8, 8), qk,
      qk_matmul_output_mode=2)
    a(23, "4d_past_present_qk_matmul_softcap", with_past(dict(qkv(), attn_mask=u(4, 18)), 3, 8, 8), qk, softcap=1.5, qk_matmul_output_mode=1)
    a(23, "4d_past_present_qk_matmul_softmax_causal", with_past(qkv(), 3, 8, 8), qk, is_causal=1,
      qk_matmul_output_mode=3)
    # mode 2 with causal: the spec's bias is -inf where ONNX Runtime writes -FLT_MAX
    why_flt_max = "ONNX Runtime 1.30 writes -FLT_MAX in qk_matmul_output mode 2 where the spec's bias is -inf"
    a(23, "4d_past_present_qk_matmul_bias_causal", with_past(dict(qkv(), attn_mask=u(2, 1, 4, 18)), 3, 8, 8), qk,
      why_flt_max, is_causal=1, qk_matmul_output_mode=2)
    # 3-D inputs
    three = dict(q_num_heads=3, kv_num_heads=3)
    a(23, "3d", qkv3(), **three)
    a(23, "3d_gqa", qkv3(hq=9), q_num_heads=9, kv_num_heads=3)
    a(23, "3d_scaled", qkv3(), scale=0.2, **three)
    a(23, "3d_causal", qkv3(), is_causal=1, **three)
    a(23, "3d_gqa_causal_diff_head_sizes", qkv3(hq=6, dv=5), is_causal=1, q_num_heads=6, kv_num_heads=3)
    a(23, "3d_mask", dict(qkv3(), attn_mask=u(4, 6)), **three)
    a(23, "3d_softcap", qkv3(), softcap=2.5, **three)
    a(23, "3d_past_present", with_past(dict(qkv3(), attn_mask=u(4, 18)), 3, 8, 8), everything, **three)
    a(23, "3d_diff_head_sizes_past_present", with_past(dict(qkv3(dv=10), attn_mask=u(4, 18)), 3, 8, 10), everything,
      **three)
    for mode in range(4):
        a(23, f"3d_past_present_qk_matmul_mode{mode}", with_past(dict(qkv3(), attn_mask=u(2, 3, 4, 18)), 3, 8, 8), qk,
          softcap=2.0, qk_matmul_output_mode=mode, **three)
    structured = np.zeros((1, 2, 12), np.float32)
    for head in range(3):
        structured[0, :, head * 4:(head + 1) * 4] = head + 1
    a(23, "3d_transpose_verification", {"Q": structured, "K": np.full((1, 2, 12), 0.1, np.float32),
                                        "V": np.arange(24, dtype=np.float32).reshape(1, 2, 12) / 10}, **three)
    # -inf in a float mask after softcap, with poison values where it masks
    neg = np.zeros((4, 6), np.float32)
    neg[:, 4:] = -np.inf
    a(23, "4d_softcap_neginf_mask", dict(qkv(batch=1, hq=1, hkv=1), attn_mask=neg), softcap=0.5)
    poisoned = qkv(batch=1, hq=1, hkv=1)
    poisoned["V"][:, :, 4:, :] = 1000
    a(23, "4d_softcap_neginf_mask_poison", dict(poisoned, attn_mask=neg), softcap=0.5)
    # fully masked rows: zeros in Y and in the mode-3 output
    rows = np.array([[False, False], [True, True]])
    for opset in (23, 24):
        a(opset, f"{opset}_fully_masked_row_qk_softmax", dict(qkv(batch=1, hq=2, hkv=2, sq=2, skv=2), attn_mask=rows),
          ("Y", "qk_matmul_output"), qk_matmul_output_mode=3)
    # opset 24: the external cache (nonpad_kv_seqlen) and offset-aware causal frontier
    a(24, "24_gqa_causal_nonpad_decode", dict(qkv(hq=4, hkv=2, sq=1, skv=8), nonpad_kv_seqlen=np.array([8, 5])),
      is_causal=1)
    a(24, "24_causal_nonpad_continued_prefill",
      dict(qkv(batch=1, hq=2, hkv=2, sq=2, skv=4), nonpad_kv_seqlen=np.array([4])), is_causal=1)
    a(24, "24_causal_nonpad_batch_prefill", dict(qkv(batch=3, hq=2, hkv=2, sq=2, skv=6),
                                                 nonpad_kv_seqlen=np.array([4, 5, 6])), is_causal=1)
    a(24, "24_causal_past_present", with_past(qkv(), 3, 8, 8, length=3), everything, is_causal=1)
    a(24, "24_causal_bool_mask_fully_masked_row",
      dict(qkv(batch=1, hq=2, hkv=2, sq=2, skv=2), attn_mask=np.array([[True, False], [False, False]])), is_causal=1)
    composition = np.array([[[[1, 1, 1, 0, 0, 0], [1, 1, 1, 0, 0, 0], [1, 0, 1, 1, 0, 0]]],
                            [[[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 0, 0], [1, 1, 0, 1, 1, 0]]]], bool)
    a(24, "24_causal_nonpad_bool_mask_composition",
      dict(qkv(hq=2, hkv=2, sq=3, skv=6), attn_mask=composition, nonpad_kv_seqlen=np.array([4, 5])), is_causal=1)
    a(24, "24_nonpad_float_mask", dict(qkv(sq=3, skv=7), attn_mask=u(2, 3, 3, 7), nonpad_kv_seqlen=np.array([5, 7])))
    a(24, "24_causal_nonpad_negative_offset",
      dict(qkv(batch=1, hq=2, hkv=2, sq=4, skv=4), nonpad_kv_seqlen=np.array([2])), is_causal=1)
    a(24, "24_mask_shorter_than_kv_nonpad",
      dict(qkv(dv=10), attn_mask=u(2, 3, 4, 4), nonpad_kv_seqlen=np.array([3, 4])), ("Y",),
      "ONNX Runtime 1.30 refuses an attn_mask with fewer keys than K (the spec pads it with -inf)")
    # float16
    a(23, "4d_fp16", qkv(dtype=np.float16))
    a(23, "4d_gqa_past_present_fp16", with_past(dict(qkv(hq=9, dtype=np.float16), attn_mask=u(4, 18, dtype=np.float16)),
                                                3, 8, 8, dtype=np.float16), everything)
    a(24, "24_gqa_causal_nonpad_decode_fp16",
      dict(qkv(hq=4, hkv=2, sq=1, skv=8, dtype=np.float16), nonpad_kv_seqlen=np.array([8, 5])), is_causal=1)
    a(24, "24_qk_softmax_precision_fp16", dict(qkv(batch=1, hq=2, hkv=2, sq=2, skv=2, dtype=np.float16),
                                               attn_mask=rows), ("Y", "qk_matmul_output"),
      qk_matmul_output_mode=3, softmax_precision=TensorProto.FLOAT)
    # opset 25: sliding windows, composed with causal, caches and masks
    why_window = "ONNX Runtime 1.30's Attention has no left_window_size/right_window_size"
    a(25, "25_local_window", qkv(), ("Y",), why_window, is_causal=1, left_window_size=2)
    a(25, "25_bidirectional_window", {"Q": np.zeros((1, 1, 5, 1), np.float32), "K": np.zeros((1, 1, 5, 1), np.float32),
                                      "V": np.arange(5, dtype=np.float32).reshape(1, 1, 5, 1)},
      ("Y",), why_window, left_window_size=1, right_window_size=2)
    a(25, "25_bidirectional_window_random", qkv(sq=6), ("Y",), why_window, left_window_size=2, right_window_size=1)
    a(25, "25_window_unbounded", qkv(), ("Y",), why_window, left_window_size=-1, right_window_size=-1)
    a(25, "25_local_window_rank1_bool_mask", dict(qkv(), attn_mask=np.array([1, 1, 1, 1, 0, 0], bool)), ("Y",),
      why_window, is_causal=1, left_window_size=2)
    a(25, "25_local_window_past_present", with_past(qkv(skv=2), 3, 8, 8, length=8), everything, why_window,
      is_causal=1, left_window_size=2)
    a(25, "25_local_window_nonpad_mask_rank3",
      dict(qkv(skv=8), attn_mask=u(3, 4, 8), nonpad_kv_seqlen=np.array([6, 7])), ("Y",), why_window,
      is_causal=1, left_window_size=2)
    a(25, "25_local_window_nonpad_mask_batch",
      dict(qkv(skv=8), attn_mask=u(2, 1, 4, 8), nonpad_kv_seqlen=np.array([6, 7])), ("Y",), why_window,
      is_causal=1, left_window_size=2)
    a(25, "25_local_window_3d", qkv3(hq=4, hkv=2), ("Y",), why_window, is_causal=1, left_window_size=1,
      q_num_heads=4, kv_num_heads=2)
    a(25, "25_local_window_gqa_mask", dict(qkv(hq=6, hkv=2), attn_mask=u(2, 1, 4, 6)), ("Y",), why_window,
      is_causal=1, left_window_size=3)
    a(25, "25_rank1_bool_mask", dict(qkv(), attn_mask=np.array([1, 0, 1, 1, 1, 0], bool)), ("Y",),
      "ONNX Runtime 1.30 refuses an attn_mask of rank 1")


def _normalization_cases(case, floats, rng):
    x4 = floats(2, 3, 4, 5)
    for axis in (0, 1, 2, 3, -1, -2, -3, -4):
        scale = floats(*x4.shape[axis:])
        tag = f"axis{axis}" if axis >= 0 else f"axis_negative_{-axis}"
        single(case, 23, f"rms_normalization_4d_{tag}", "RMSNormalization", [("X", x4), ("W", scale)], [("Y", F)],
               axis=axis)
    x2 = floats(3, 4)
    for axis in (0, 1, -2):
        tag = f"axis{axis}" if axis >= 0 else f"axis_negative_{-axis}"
        single(case, 23, f"rms_normalization_2d_{tag}", "RMSNormalization", [("X", x2), ("W", floats(*x2.shape[axis:]))],
               [("Y", F)], axis=axis)
    x3 = floats(2, 3, 5)
    for axis in (0, 1, -1):
        tag = f"axis{axis}" if axis >= 0 else f"axis_negative_{-axis}"
        single(case, 23, f"rms_normalization_3d_{tag}_epsilon", "RMSNormalization",
               [("X", x3), ("W", floats(*x3.shape[axis:]))], [("Y", F)], axis=axis, epsilon=0.1)
    single(case, 23, "rms_normalization_default_axis", "RMSNormalization", [("X", x4), ("W", floats(5))], [("Y", F)])
    # a scale that broadcasts onto the normalized shape (4, 5)
    single(case, 23, "rms_normalization_scale_broadcast", "RMSNormalization", [("X", x4), ("W", floats(1, 5))],
           [("Y", F)], axis=2)
    single(case, 23, "rms_normalization_double", "RMSNormalization",
           [("X", rng.standard_normal((3, 2, 6))), ("W", rng.standard_normal(6))], [("Y", D)])
    single(case, 23, "rms_normalization_float16_stash_float", "RMSNormalization",
           [("X", floats(2, 3, 8).astype(np.float16)), ("W", floats(8).astype(np.float16))], [("Y", F16)],
           stash_type=TensorProto.FLOAT)
    # GroupNormalization-21 (scale and bias per channel) and -18 (per group)
    single(case, 21, "group_normalization_21_epsilon", "GroupNormalization",
           [("x", floats(3, 4, 2, 2)), ("scale", floats(4)), ("bias", floats(4))], [("y", F)], num_groups=2, epsilon=1e-2)
    single(case, 21, "group_normalization_21_one_group_per_channel", "GroupNormalization",
           [("x", floats(2, 6, 3)), ("scale", floats(6)), ("bias", floats(6))], [("y", F)], num_groups=6)
    single(case, 21, "group_normalization_21_single_group_5d", "GroupNormalization",
           [("x", floats(2, 4, 2, 3, 2)), ("scale", floats(4)), ("bias", floats(4))], [("y", F)], num_groups=1)
    single(case, 18, "group_normalization_18_epsilon", "GroupNormalization",
           [("x", floats(3, 4, 2, 2)), ("scale", floats(2)), ("bias", floats(2))], [("y", F)], num_groups=2, epsilon=1e-2)


def _rotary_and_scatter_cases(case, floats, rng):
    def rope(name, x, caches_shape, positions, **attributes):
        feeds = [("input", x), ("cos_cache", rng.random(caches_shape).astype(x.dtype)),
                 ("sin_cache", rng.random(caches_shape).astype(x.dtype))]
        if positions is not None:
            feeds.append(("position_ids", positions))
        single(case, 23, f"rotary_embedding_{name}", "RotaryEmbedding", feeds, [("output", ELEM_OF[x.dtype])], **attributes)

    positions = rng.integers(0, 50, (2, 3)).astype(np.int64)
    rope("cache_50_positions", rng.random((2, 4, 3, 8)).astype(np.float32), (50, 4), positions)
    rope("3d_input_interleaved", rng.random((2, 3, 32)).astype(np.float32), (50, 4), positions, num_heads=4,
         interleaved=1)
    rope("3d_input_rotary_dim", rng.random((2, 3, 32)).astype(np.float32), (50, 2), positions, num_heads=4,
         rotary_embedding_dim=4)
    rope("no_position_ids_interleaved", rng.random((2, 4, 3, 8)).astype(np.float32), (2, 3, 4), None, interleaved=1)
    rope("no_position_ids_rotary_dim", rng.random((2, 4, 3, 8)).astype(np.float32), (2, 3, 2), None,
         rotary_embedding_dim=4)
    rope("float16", rng.random((1, 2, 3, 8)).astype(np.float16), (10, 4), rng.integers(0, 10, (1, 3)).astype(np.int64))

    def scatter(name, past, update, indices, **attributes):
        feeds = [("past_cache", past), ("update", update)] + ([("write_indices", indices)] if indices is not None else [])
        single(case, 24, f"tensorscatter_{name}", "TensorScatter", feeds, [("present_cache", ELEM_OF[past.dtype])],
               **attributes)

    scatter("3d_default_axis", floats(3, 5, 4), floats(3, 2, 4), np.array([1, 2, 0], np.int64))
    scatter("circular_no_indices", floats(2, 2, 4, 3), floats(2, 2, 3, 3), None, mode="circular")
    scatter("circular_wraps_axis_negative", floats(2, 5, 2, 3), floats(2, 3, 2, 3), np.array([3, 4], np.int64),
            mode="circular", axis=-3)
    scatter("float16", floats(1, 2, 6, 4).astype(np.float16), floats(1, 2, 1, 4).astype(np.float16),
            np.array([5], np.int64))
