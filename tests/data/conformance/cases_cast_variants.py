"""Conformance variants of Cast and CastLike into and out of the narrow types (float8 with saturate,
float8e8m0, int4/uint4, int2/uint2, float4e2m1, bfloat16) and QuantizeLinear/DequantizeLinear 19-25.
Called from cases_upstream_variants.add_cases.
"""

import itertools
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import narrow
from variant_support import *  # noqa: F401,F403 (element types, single)


SPECIALS = np.array([0.47892547, 0.48033667, 0.49968487, 0.81910545, 0.47031248, 0.7229038, 1e6, 1e-7, np.nan,
                     np.inf, -np.inf, -1e-7, 1e-7, -1e6, -0.0], np.float32)
NAMES = {narrow.FLOAT8E4M3FN: "FLOAT8E4M3FN", narrow.FLOAT8E4M3FNUZ: "FLOAT8E4M3FNUZ", narrow.FLOAT8E5M2: "FLOAT8E5M2",
         narrow.FLOAT8E5M2FNUZ: "FLOAT8E5M2FNUZ", narrow.UINT4: "UINT4", narrow.INT4: "INT4",
         narrow.FLOAT4E2M1: "FLOAT4E2M1", narrow.FLOAT8E8M0: "FLOAT8E8M0", narrow.UINT2: "UINT2", narrow.INT2: "INT2",
         narrow.BFLOAT16: "BFLOAT16", F: "FLOAT", F16: "FLOAT16", D: "DOUBLE", I8: "INT8", U8: "UINT8"}
FLOAT8S = (narrow.FLOAT8E4M3FN, narrow.FLOAT8E4M3FNUZ, narrow.FLOAT8E5M2, narrow.FLOAT8E5M2FNUZ)


def _cast_cases(case, floats, rng):
    def random_codes(elem_type, shape):
        """Codes of a narrow type, NaN codes included where it has them."""
        return narrow.from_codes("input", elem_type, rng.integers(0, 1 << narrow.BITS[elem_type], int(np.prod(shape))), shape)

    def cast(opset, source, to, x, like=False, **attributes):
        tag = "no_saturate_" if attributes.get("saturate") == 0 else ""
        name = f"{'castlike' if like else 'cast'}_{opset}_{tag}{NAMES[source]}_to_{NAMES[to]}"
        if like:
            target = narrow.from_codes("like", to, [0], [1]) if to in narrow.BITS else np.zeros(1, narrow_np(to))
            single(case, opset, name, "CastLike", [("input", x), ("like", target)], [("output", to)], **attributes)
        else:
            single(case, opset, name, "Cast", [("input", x)], [("output", to)], to=to, **attributes)

    # Cast 19 to 23 turn ±inf into NaN for the FNUZ types even when saturating, where ONNX Runtime 1.30
    # gives ±max (Cast-24's rule): at 19 those inputs have no infinity; at 25 every type takes them all.
    finite = np.where(np.isinf(SPECIALS), np.float32(3e4) * np.sign(SPECIALS), SPECIALS)
    finite16 = np.where(np.abs(finite) > 6e4, np.float32(3e4) * np.sign(finite), finite).astype(np.float16)
    for t in FLOAT8S:
        fnuz = t in (narrow.FLOAT8E4M3FNUZ, narrow.FLOAT8E5M2FNUZ)
        with np.errstate(over="ignore"):
            cast(19, F, t, (finite if fnuz else SPECIALS).reshape(3, 5))
            cast(19, F16, t, (finite16 if fnuz else SPECIALS.astype(np.float16)).reshape(3, 5))
        cast(19, t, F, random_codes(t, (3, 5)))
        cast(19, F, t, SPECIALS.reshape(3, 5), saturate=0)
        cast(25, F, t, SPECIALS.reshape(3, 5))
    infinities = np.array([np.inf, -np.inf, 1.0, np.nan, -0.5, 0.0], np.float32)
    for t in (narrow.FLOAT8E4M3FNUZ, narrow.FLOAT8E5M2FNUZ):
        single(case, 19, f"cast_19_infinity_to_{NAMES[t]}_is_nan", "Cast", [("input", infinities)], [("output", t)], to=t,
               exact=lambda f, t=t: {"output": narrow.encode("output", t, np.where(np.isinf(f["input"]), np.nan, f["input"]))},
               ort_refuses="ONNX Runtime 1.30 saturates ±inf to ±max here; Cast-19 to -23 make it NaN for the FNUZ types")
    cast(19, narrow.FLOAT8E4M3FN, F16, random_codes(narrow.FLOAT8E4M3FN, (4, 4)))
    cast(19, narrow.FLOAT8E5M2, F16, random_codes(narrow.FLOAT8E5M2, (4, 4)))
    bf = np.array([0.47892547, 0.48033667, 0.49968487, 0.81910545, 3.3e38, -1e-40, np.nan, np.inf, -np.inf, 1.00390625,
                   1.01171875, -2.5], np.float32).reshape(3, 4)
    cast(19, F, narrow.BFLOAT16, bf)
    cast(19, narrow.BFLOAT16, F, random_codes(narrow.BFLOAT16, (3, 4)))
    int_values = np.arange(-9, 16).astype(np.float32).reshape(5, 5)
    cast(21, F, narrow.UINT4, int_values)
    cast(21, F, narrow.INT4, int_values)
    cast(21, F16, narrow.INT4, int_values.astype(np.float16))
    cast(21, narrow.UINT4, F, random_codes(narrow.UINT4, (5, 5)))
    cast(21, narrow.INT4, F, random_codes(narrow.INT4, (5, 5)))
    cast(21, narrow.UINT4, U8, random_codes(narrow.UINT4, (3, 3)))
    cast(21, narrow.INT4, I8, random_codes(narrow.INT4, (3, 3)))
    # FLOAT4E2M1 (ONNX Runtime 1.30 has no kernel): values inside its range only, where the spec's rounding
    # to nearest, ties to the even code, is the whole story (it names no NaN, infinity or overflow rule for it)
    fp4 = np.array([0.48, 0.25, 1.05, -3.5, 2.5, 5.0, 0.75, 1e-7, -4, 0.01, -0.0, 2.75, 5.9, -1.3, 0.3],
                   np.float32).reshape(3, 5)
    why_fp4 = "ONNX Runtime 1.30 has no FLOAT4E2M1 kernel for Cast, QuantizeLinear or DequantizeLinear"
    single(case, 23, "cast_23_FLOAT_to_FLOAT4E2M1", "Cast", [("input", fp4)], [("output", narrow.FLOAT4E2M1)],
           to=narrow.FLOAT4E2M1, exact=lambda f: {"output": fp4_tensor("output", f["input"])}, ort_refuses=why_fp4)
    for to, dtype in ((F, np.float32), (F16, np.float16)):
        single(case, 23, f"cast_23_FLOAT4E2M1_to_{NAMES[to]}", "Cast", [("input", random_codes(narrow.FLOAT4E2M1, (3, 5)))],
               [("output", to)], to=to, exact=lambda f, dtype=dtype: {"output": narrow.decode(f["input"]).astype(dtype)},
               ort_refuses=why_fp4)
    small = np.arange(-3, 4).astype(np.float32).reshape(7, 1)
    cast(25, F, narrow.UINT2, small)
    cast(25, F, narrow.INT2, small)
    cast(25, narrow.INT2, F, random_codes(narrow.INT2, (7, 1)))
    cast(25, narrow.UINT2, U8, random_codes(narrow.UINT2, (7, 1)))
    cast(24, F, narrow.FLOAT8E8M0, np.array([0.1, 1.0, 1.5, 3.0, 6.0, 1e30, 2 ** -120, 0.75], np.float32))
    cast(24, narrow.FLOAT8E8M0, F, narrow.from_codes("input", narrow.FLOAT8E8M0, rng.integers(60, 190, 8), [8]))
    # CastLike: the target's type from a second input
    cast(19, F, narrow.FLOAT8E4M3FN, SPECIALS.reshape(3, 5), like=True)
    cast(19, F, narrow.FLOAT8E5M2, SPECIALS.reshape(3, 5), like=True, saturate=0)
    cast(19, narrow.FLOAT8E4M3FNUZ, F, random_codes(narrow.FLOAT8E4M3FNUZ, (3, 5)), like=True)
    cast(21, F, narrow.INT4, int_values, like=True)
    cast(19, F, narrow.BFLOAT16, bf, like=True)
    cast(19, F16, D, floats(3, 4).astype(np.float16), like=True)

    # QuantizeLinear / DequantizeLinear
    def q(opset, name, x, scale, zero_point, out, **attributes):
        feeds = [("x", x), ("y_scale", scale)] + ([("y_zero_point", zero_point)] if zero_point is not None else [])
        single(case, opset, f"quantizelinear_{opset}_{name}", "QuantizeLinear", feeds, [("y", out)], **attributes)

    def dq(opset, name, x, scale, zero_point, out=F, **attributes):
        feeds = [("x", x), ("x_scale", scale)] + ([("x_zero_point", zero_point)] if zero_point is not None else [])
        single(case, opset, f"dequantizelinear_{opset}_{name}", "DequantizeLinear", feeds, [("y", out)], **attributes)

    x34 = (floats(1, 3, 3, 2) * 200).astype(np.float32)
    q(21, "axis", x34, np.array([2, 4, 5], np.float32), np.array([84, 24, 196], np.uint8), U8, axis=1)
    dq(21, "axis", rng.integers(0, 256, (1, 3, 3, 2)).astype(np.uint8), np.array([2, 4, 5], np.float32),
       np.array([84, 24, 196], np.uint8), axis=1)
    x5 = np.array([0.0, 1.0, 2.0, 100000.0, 200.0, -3.3, 0.017], np.float32)
    for t in (narrow.FLOAT8E4M3FN, narrow.FLOAT8E5M2):
        q(19, NAMES[t].lower(), x5, np.array(2, np.float32), narrow.from_codes("y_zero_point", t, [0], [1]), t)
        dq(19, NAMES[t].lower(), random_codes(t, (7,)), np.array(2, np.float32), None)
    q(21, "e4m3fn_no_saturate_fnuz", x5, np.array(2, np.float32),
      narrow.from_codes("y_zero_point", narrow.FLOAT8E4M3FNUZ, [0], [1]), narrow.FLOAT8E4M3FNUZ, saturate=0)
    dq(19, "e4m3fn_float16", random_codes(narrow.FLOAT8E4M3FN, (5,)), np.array(2, np.float16), None, F16)
    dq(19, "e4m3fn_zero_point", random_codes(narrow.FLOAT8E4M3FN, (5,)), np.array(2, np.float32),
       narrow.from_codes("x_zero_point", narrow.FLOAT8E4M3FN, [0], [1]))
    wide = (floats(3, 4) * 3000).astype(np.float32)
    q(21, "uint16", wide, np.array(2.0, np.float32), np.array(32767, np.uint16), TensorProto.UINT16)
    q(21, "int16", wide, np.array(2.0, np.float32), np.array(-1024, np.int16), TensorProto.INT16)
    dq(21, "uint16", rng.integers(0, 65536, (4,)).astype(np.uint16), np.array(2.0, np.float32), np.array(32767, np.uint16))
    dq(21, "int16", rng.integers(-32768, 32768, (4,)).astype(np.int16), np.array(2.0, np.float32), np.array(-1024, np.int16))
    x43 = (floats(3, 4) * 8).astype(np.float32)
    for t, zero in ((narrow.UINT4, 1), (narrow.INT4, 1), (narrow.UINT2, 1), (narrow.INT2, 0)):
        opset = 25 if narrow.BITS[t] == 2 else 21
        scale = np.array([2.0, 3.0, 4.0], np.float32)
        q(opset, NAMES[t].lower(), x43, scale, narrow.from_codes("y_zero_point", t, [zero] * 3, [3]), t, axis=0)
        dq(opset, NAMES[t].lower(), random_codes(t, (5,)), np.array(2.0, np.float32),
           narrow.from_codes("x_zero_point", t, [zero], [1]), axis=0)
    fp4_scale = np.array([2.0, 3.0, 4.0], np.float32)
    single(case, 23, "quantizelinear_23_float4e2m1", "QuantizeLinear",
           [("x", (fp4.reshape(3, 5) * fp4_scale[:, None]).astype(np.float32)), ("y_scale", fp4_scale),
            ("y_zero_point", narrow.from_codes("y_zero_point", narrow.FLOAT4E2M1, [0] * 3, [3]))],
           [("y", narrow.FLOAT4E2M1)], axis=0, ort_refuses=why_fp4,
           exact=lambda f: {"y": fp4_tensor("y", f["x"].astype(np.float64) / f["y_scale"][:, None])})
    single(case, 23, "dequantizelinear_23_float4e2m1", "DequantizeLinear",
           [("x", random_codes(narrow.FLOAT4E2M1, (5,))), ("x_scale", np.array(2.0, np.float32)),
            ("x_zero_point", narrow.from_codes("x_zero_point", narrow.FLOAT4E2M1, [0], [1]))], [("y", F)], axis=0,
           ort_refuses=why_fp4, exact=lambda f: {"y": (narrow.decode(f["x"]) * 2.0).astype(np.float32)})
    # blocked: scale (and zero point) per block of 2 along axis 1
    xb = (floats(3, 4) * 20).astype(np.float32)
    q(21, "blocked_asymmetric", xb, np.abs(floats(3, 2)) + 0.5, rng.integers(0, 256, (3, 2)).astype(np.uint8), U8,
      axis=1, block_size=2)
    q(21, "blocked_symmetric_output_dtype_int16", xb * 50, np.abs(floats(3, 2)) + 0.5, None, TensorProto.INT16,
      axis=1, block_size=2, output_dtype=TensorProto.INT16)
    dq(21, "blocked", rng.integers(0, 256, (3, 4)).astype(np.uint8), np.abs(floats(3, 2)) + 0.5,
       rng.integers(0, 256, (3, 2)).astype(np.uint8), axis=1, block_size=2)
    dq(21, "blocked_int4_axis0", random_codes(narrow.INT4, (6, 3)), np.abs(floats(2, 3)) + 0.5,
       narrow.from_codes("x_zero_point", narrow.INT4, rng.integers(0, 16, 6), [2, 3]), axis=0, block_size=3)
    q(21, "output_dtype_uint8_no_zero_point", xb, np.array(0.25, np.float32), None, U8, output_dtype=U8)
    q(24, "per_axis_negative_axis_int8", x34, np.array([0.5, 1.0], np.float32), np.array([-3, 4], np.int8), I8, axis=-1)
    dq(24, "float16_scale_int8", rng.integers(-128, 128, (2, 3)).astype(np.int8), np.array(0.125, np.float16),
       np.array(5, np.int8), F16)


def fp4_tensor(name, values):
    """values (inside FLOAT4E2M1's range) rounded to its nearest value, ties to the even code."""
    table = np.array([narrow._code_value(narrow.FLOAT4E2M1, c) for c in range(16)])
    codes = []
    for v in np.asarray(values, np.float64).reshape(-1):
        distance = np.abs(table - v)
        best = [c for c in range(16) if distance[c] == distance.min() and np.signbit(table[c]) == np.signbit(v)]
        ties = [c for c in best if c % 2 == 0]
        codes.append((ties or best)[0])
    return narrow.from_codes(name, narrow.FLOAT4E2M1, codes, np.shape(values))


def narrow_np(elem):
    return {F: np.float32, F16: np.float16, D: np.float64, I8: np.int8, U8: np.uint8}[elem]
