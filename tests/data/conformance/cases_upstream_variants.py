"""Conformance cases for the variants that ONNX's own node tests exercise for the op versions of opsets
18 to 26, where the older families here do not cover them yet: Attention (masks of every rank and type,
causal with offsets, GQA, past/present, softcap, scale, every qk_matmul_output mode, 3-D inputs, V of its
own head size, nonpad_kv_seqlen, fully-masked rows, float16, the sliding windows of version 25),
RMSNormalization, RotaryEmbedding, TensorScatter, Resize-18/19, the Reduce ops' edge cases, Split-18,
Pad-19+, ScatterND/ScatterElements reductions, AveragePool-19, LpPool-18, Col2Im, GroupNormalization,
CenterCropPad, DFT-20, GridSample in 2-D, DeformConv-22, the Bitwise ops, BitCast, CumProd, Cast and
CastLike into and out of the narrow types, QuantizeLinear/DequantizeLinear 19-25, QLinearMatMul-21,
TopK-24, ConstantOfShape, the Optional ops on tensors, Shape/Size, Equal-19 on strings, IsInf/IsNaN-20
and the ops re-versioned at 22.

generate.py calls add_cases(case, floats, rng) last, so the data drawn here leaves the older cases' data
alone. Inputs of types numpy lacks (float8, int4, ...) are TensorProtos made by narrow.py; generate.py
feeds them to ONNX Runtime as initializers. Expected outputs are ONNX Runtime's, except where `exact`
carries a numpy reference because ONNX Runtime 1.30 refuses the case or departs from the spec there; each
such case names why in ort_refuses.
"""

import itertools
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import narrow
from cases_attention_variants import _attention_cases, _normalization_cases, _rotary_and_scatter_cases
from cases_cast_variants import _cast_cases
from cases_tensor import col2im_reference, deform_conv_reference
from variant_support import *  # noqa: F401,F403 (element types, single)


def _resize_cases(case, floats, rng):
    def resize(opset, name, x, roi=None, scales=None, sizes=None, out=F, **attributes):
        inputs = [("X", x), ("roi", roi) if roi is not None else ("", None)]
        if scales is not None:
            inputs.append(("scales", np.array(scales, np.float32)))
        else:
            inputs += [("", None), ("sizes", np.array(sizes, np.int64))]
        while inputs[-1][0] == "":
            inputs.pop()
        single(case, opset, f"resize_{opset}_{name}", "Resize", inputs, [("Y", out)], **attributes)

    x44, x24, x22 = floats(1, 1, 4, 4), floats(1, 1, 2, 4), floats(1, 1, 2, 2)
    resize(19, "upsample_scales_nearest", x22, scales=[1, 1, 2, 3], mode="nearest")
    resize(19, "downsample_scales_nearest", x24, scales=[1, 1, 0.6, 0.6], mode="nearest")
    resize(19, "upsample_sizes_nearest", x22, sizes=[1, 1, 7, 8], mode="nearest")
    resize(19, "downsample_sizes_nearest", x24, sizes=[1, 1, 1, 3], mode="nearest")
    resize(19, "upsample_scales_linear", x22, scales=[1, 1, 2, 2], mode="linear")
    resize(19, "upsample_scales_linear_align_corners", x22, scales=[1, 1, 2, 2], mode="linear",
           coordinate_transformation_mode="align_corners")
    resize(19, "downsample_scales_linear", x24, scales=[1, 1, 0.6, 0.6], mode="linear")
    single(case, 19, "resize_19_downsample_scales_linear_align_corners", "Resize",
           [("X", x24), ("", None), ("scales", np.array([1, 1, 0.6, 0.6], np.float32))], [("Y", F)], mode="linear",
           coordinate_transformation_mode="align_corners",
           exact=lambda f: {"Y": linear_align_corners(f["X"], f["scales"])},
           ort_refuses="ONNX Runtime 1.30 divides by the integer output length less 1; ONNX's reference (and its node "
                       "test of this name) by output_width less 1, the length times the scale")
    resize(19, "upsample_scales_cubic", x44, scales=[1, 1, 2, 2], mode="cubic")
    resize(19, "upsample_scales_cubic_align_corners", x44, scales=[1, 1, 2, 2], mode="cubic",
           coordinate_transformation_mode="align_corners")
    resize(19, "downsample_scales_cubic", x44, scales=[1, 1, 0.8, 0.8], mode="cubic")
    resize(19, "upsample_sizes_cubic", x44, sizes=[1, 1, 9, 10], mode="cubic")
    resize(19, "downsample_sizes_cubic", x44, sizes=[1, 1, 3, 3], mode="cubic")
    resize(19, "upsample_scales_cubic_A_n0p5_exclude_outside", x44, scales=[1, 1, 2, 2], mode="cubic",
           cubic_coeff_a=-0.5, exclude_outside=1)
    resize(19, "downsample_scales_cubic_A_n0p5_exclude_outside", x44, scales=[1, 1, 0.8, 0.8], mode="cubic",
           cubic_coeff_a=-0.5, exclude_outside=1)
    resize(19, "upsample_scales_cubic_asymmetric", x44, scales=[1, 1, 2, 2], mode="cubic",
           coordinate_transformation_mode="asymmetric")
    resize(19, "tf_crop_and_resize", x44, roi=np.array([0, 0, 0.4, 0.6, 1, 1, 0.6, 0.8], np.float32),
           sizes=[1, 1, 3, 3], mode="linear", coordinate_transformation_mode="tf_crop_and_resize")
    resize(19, "tf_crop_and_resize_extrapolation_value", x44,
           roi=np.array([0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7], np.float32), sizes=[1, 1, 3, 3], mode="linear",
           coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=10.0)
    single(case, 19, "resize_19_tf_crop_and_resize_nearest_extrapolation", "Resize",
           [("X", x44), ("roi", np.array([0, 0, -0.3, 0.2, 1, 1, 0.9, 1.4], np.float32)), ("", None),
            ("sizes", np.array([1, 1, 4, 3], np.int64))], [("Y", F)], mode="nearest",
           coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-2.0,
           exact=lambda f: {"Y": nearest_crop_and_resize(f["X"], f["roi"], f["sizes"], -2.0)},
           ort_refuses="ONNX Runtime 1.30 does not place nearest samples of tf_crop_and_resize where the spec's "
                       "x_original formula does when the roi starts below 0")
    resize(19, "downsample_sizes_linear_pytorch_half_pixel", x44, sizes=[1, 1, 3, 1], mode="linear",
           coordinate_transformation_mode="pytorch_half_pixel")
    resize(19, "upsample_sizes_nearest_floor_align_corners", x44, sizes=[1, 1, 8, 8], mode="nearest",
           coordinate_transformation_mode="align_corners", nearest_mode="floor")
    resize(19, "upsample_sizes_nearest_round_prefer_ceil_asymmetric", x44, sizes=[1, 1, 8, 8], mode="nearest",
           coordinate_transformation_mode="asymmetric", nearest_mode="round_prefer_ceil")
    resize(19, "upsample_sizes_nearest_ceil_half_pixel", x44, sizes=[1, 1, 8, 8], mode="nearest",
           coordinate_transformation_mode="half_pixel", nearest_mode="ceil")
    resize(19, "downsample_scales_linear_half_pixel_symmetric", np.array([[[[1, 2, 3, 4]]]], np.float32),
           scales=[1, 1, 1, 0.6], mode="linear", coordinate_transformation_mode="half_pixel_symmetric")
    resize(19, "upsample_scales_linear_half_pixel_symmetric", np.array([[[[1, 2], [3, 4]]]], np.float32),
           scales=[1, 1, 2.3, 2.94], mode="linear", coordinate_transformation_mode="half_pixel_symmetric")
    resize(19, "nearest_half_pixel_symmetric_sizes", floats(1, 2, 3, 5), sizes=[1, 2, 5, 3], mode="nearest",
           coordinate_transformation_mode="half_pixel_symmetric")
    resize(19, "trilinear_5d_scales", floats(1, 2, 2, 3, 4), scales=[1, 1, 2, 1.5, 0.5], mode="linear")
    resize(19, "nearest_uint8", rng.integers(0, 256, (1, 2, 3, 3)).astype(np.uint8), scales=[1, 1, 1.5, 2.0],
           out=U8, mode="nearest")
    # 18: antialias, axes, keep_aspect_ratio_policy
    x55 = floats(1, 1, 5, 5)
    resize(18, "downsample_scales_linear_antialias", x44, scales=[1, 1, 0.6, 0.6], mode="linear", antialias=1)
    resize(18, "downsample_sizes_linear_antialias", x44, sizes=[1, 1, 3, 3], mode="linear", antialias=1)
    resize(18, "downsample_scales_cubic_antialias", x44, scales=[1, 1, 0.6, 0.6], mode="cubic", antialias=1)
    resize(18, "downsample_sizes_cubic_antialias", x55, sizes=[1, 1, 3, 2], mode="cubic", antialias=1)
    resize(18, "upsample_scales_linear_antialias", x22, scales=[1, 1, 2, 1.5], mode="linear", antialias=1)
    resize(18, "upsample_scales_nearest_axes_2_3", x22, scales=[2, 3], mode="nearest", axes=[2, 3])
    resize(18, "upsample_scales_nearest_axes_3_2", x22, scales=[3, 2], mode="nearest", axes=[3, 2])
    resize(18, "upsample_sizes_nearest_axes_2_3", x22, sizes=[7, 8], mode="nearest", axes=[2, 3])
    resize(18, "upsample_sizes_nearest_axes_3_2", x22, sizes=[8, 7], mode="nearest", axes=[3, 2])
    resize(18, "tf_crop_and_resize_axes_2_3", x44, roi=np.array([0.4, 0.6, 0.6, 0.8], np.float32), sizes=[3, 3],
           mode="linear", coordinate_transformation_mode="tf_crop_and_resize", axes=[2, 3])
    resize(18, "tf_crop_and_resize_axes_3_2", x44, roi=np.array([0.6, 0.4, 0.8, 0.6], np.float32), sizes=[3, 3],
           mode="linear", coordinate_transformation_mode="tf_crop_and_resize", axes=[3, 2])
    resize(18, "upsample_sizes_nearest_not_larger", x22, sizes=[7, 8], mode="nearest", axes=[2, 3],
           keep_aspect_ratio_policy="not_larger")
    resize(18, "upsample_sizes_nearest_not_smaller", x22, sizes=[7, 8], mode="nearest", axes=[2, 3],
           keep_aspect_ratio_policy="not_smaller")
    resize(18, "downsample_sizes_nearest_not_larger", x24, sizes=[1, 3], mode="nearest", axes=[2, 3],
           keep_aspect_ratio_policy="not_larger")
    resize(18, "downsample_sizes_nearest_not_smaller", x24, sizes=[1, 3], mode="nearest", axes=[2, 3],
           keep_aspect_ratio_policy="not_smaller")
    resize(18, "sizes_linear_not_smaller_axes", floats(1, 2, 3, 4), sizes=[5, 5], mode="linear", axes=[2, 3],
           keep_aspect_ratio_policy="not_smaller")
    resize(18, "axes_negative_scales_cubic", floats(1, 2, 4, 5), scales=[1.5, 0.75], mode="cubic", axes=[-2, -1])


def _tensor_op_cases(case, floats, rng):
    empty = np.zeros((2, 0, 4), np.float32)
    ops = {"ReduceSum": 13, "ReduceSumSquare": 18, "ReduceL1": 18, "ReduceL2": 18, "ReduceLogSum": 18,
           "ReduceLogSumExp": 18, "ReduceProd": 18, "ReduceMin": 20, "ReduceMax": 20}
    for op in ops:
        tag = "_".join(w.lower() for w in __import__("re").findall("[A-Z][a-z0-9]*", op[6:]))
        single(case, max(ops[op], 18), f"reduce_{tag}_empty_set", op, [("data", empty), ("axes", np.array([1], np.int64))],
               [("reduced", F)], keepdims=1)
    single(case, 18, "reduce_sum_empty_set_non_reduced_axis_zero", "ReduceSum",
           [("data", empty), ("axes", np.array([2], np.int64))], [("reduced", F)], keepdims=1)
    single(case, 20, "reduce_max_empty_set_bool", "ReduceMax",
           [("data", np.zeros((2, 0, 3), bool)), ("axes", np.array([1], np.int64))], [("reduced", BOOL)], keepdims=0,
           exact=lambda f: {"reduced": np.zeros((2, 3), bool)},  # the smallest bool, as for any type without -inf
           ort_refuses="ONNX Runtime 1.30: 'ReduceMax is not defined for empty set with bool type'")
    flags = rng.random((4, 3)) > 0.5
    for op in ("ReduceMax", "ReduceMin"):
        single(case, 20, f"reduce_{op[6:].lower()}_bool_inputs", op, [("data", flags), ("axes", np.array([1], np.int64))],
               [("reduced", BOOL)], keepdims=1)
    x = floats(3, 2, 2)
    single(case, 18, "reduce_sum_square_empty_axes_reduces_all", "ReduceSumSquare",
           [("data", x), ("axes", np.array([], np.int64))], [("reduced", F)], keepdims=1)
    single(case, 18, "reduce_prod_default_axes_keepdims", "ReduceProd", [("data", x)], [("reduced", F)], keepdims=1)
    # noop_with_empty_axes: no reduction, but the composite ops still apply their elementwise steps
    for op in ("ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"):
        tag = "_".join(w.lower() for w in __import__("re").findall("[A-Z][a-z0-9]*", op[6:]))
        data = np.abs(x) + 0.1 if op == "ReduceLogSum" else x
        single(case, 18, f"reduce_{tag}_empty_axes_input_noop", op, [("data", data), ("axes", np.array([], np.int64))],
               [("reduced", F)], keepdims=1, noop_with_empty_axes=1)
    single(case, 18, "reduce_log_sum_desc_axes", "ReduceLogSum",
           [("data", np.abs(floats(3, 4, 5)) + 0.1), ("axes", np.array([2, 1], np.int64))], [("reduced", F)], keepdims=0)
    single(case, 18, "reduce_log_sum_exp_negative_axes_do_not_keepdims", "ReduceLogSumExp",
           [("data", floats(3, 2, 2).astype(np.float64)), ("axes", np.array([-2], np.int64))], [("reduced", D)],
           keepdims=0)
    single(case, 18, "reduce_mean_int32_axes_pair", "ReduceMean",
           [("data", rng.integers(-20, 20, (2, 3, 4)).astype(np.int32)), ("axes", np.array([0, 2], np.int64))],
           [("reduced", I32)], keepdims=1)
    single(case, 20, "reduce_min_uint8_keepdims", "ReduceMin",
           [("data", rng.integers(0, 256, (3, 4)).astype(np.uint8)), ("axes", np.array([-1], np.int64))],
           [("reduced", U8)], keepdims=1)

    # Split-18: num_outputs (even and uneven) and split sizes fed at run time
    v6 = floats(6)
    single(case, 18, "split_18_equal_parts_1d", "Split", [("input", v6)], [(f"o{i}", F) for i in range(3)],
           axis=0, num_outputs=3)
    single(case, 18, "split_18_variable_parts_1d", "Split", [("input", v6), ("split", np.array([2, 4], np.int64))],
           [("o0", F), ("o1", F)], axis=0)
    m26 = floats(2, 6)
    single(case, 18, "split_18_equal_parts_2d", "Split", [("input", m26)], [("o0", F), ("o1", F)], axis=1, num_outputs=2)
    single(case, 18, "split_18_variable_parts_2d", "Split", [("input", m26), ("split", np.array([2, 4], np.int64))],
           [("o0", F), ("o1", F)], axis=1)
    single(case, 18, "split_18_default_axis_num_outputs", "Split", [("input", floats(4, 3))], [("o0", F), ("o1", F)],
           num_outputs=2)
    single(case, 18, "split_18_zero_size_splits", "Split",
           [("input", np.zeros(0, np.float32)), ("split", np.array([0, 0, 0], np.int64))], [(f"o{i}", F) for i in range(3)])
    single(case, 18, "split_18_1d_uneven", "Split", [("input", floats(7))], [(f"o{i}", F) for i in range(4)],
           num_outputs=4)
    single(case, 18, "split_18_2d_uneven", "Split", [("input", floats(2, 8))], [(f"o{i}", F) for i in range(3)],
           axis=1, num_outputs=3)
    single(case, 18, "split_18_negative_axis_int64", "Split", [("input", rng.integers(0, 9, (2, 3, 5)).astype(np.int64))],
           [(f"o{i}", I64) for i in range(2)], axis=-1, num_outputs=2)

    # Pad-19+: everything fed at run time
    x = floats(1, 3, 4, 5)
    ints = rng.integers(-9, 10, (1, 3, 4, 5)).astype(np.int32)
    single(case, 19, "pad_19_constant_value_fed", "Pad",
           [("x", x), ("pads", np.array([0, 0, 1, 3, 0, 0, 2, 4], np.int64)), ("value", np.array(1.2, np.float32))],
           [("y", F)], mode="constant")
    for mode in ("edge", "reflect", "wrap"):
        single(case, 19, f"pad_19_{mode}_int32", "Pad", [("x", ints), ("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))],
               [("y", I32)], mode=mode)
    single(case, 19, "pad_19_constant_axes_fed", "Pad",
           [("x", x), ("pads", np.array([0, 3, 0, 4], np.int64)), ("value", np.array(1.2, np.float32)),
            ("axes", np.array([1, 3], np.int64))], [("y", F)], mode="constant")
    single(case, 19, "pad_19_constant_negative_axes", "Pad",
           [("x", x), ("pads", np.array([0, 3, 0, 4], np.int64)), ("value", np.array(1.2, np.float32)),
            ("axes", np.array([-3, -1], np.int64))], [("y", F)], mode="constant")
    single(case, 19, "pad_19_negative_pads_crop", "Pad",
           [("x", x), ("pads", np.array([0, -1, 2, -2, 0, 0, -1, 1], np.int64))], [("y", F)], mode="constant")
    single(case, 19, "pad_19_wrap_larger_than_axis", "Pad", [("x", floats(2, 3)), ("pads", np.array([1, 4, 2, 5], np.int64))],
           [("y", F)], mode="wrap", exact=lambda f: {"y": np.pad(f["x"], [(1, 2), (4, 5)], mode="wrap")},
           ort_refuses="ONNX Runtime 1.30 writes zeros where a wrap pad is longer than the axis (numpy's wrap, "
                       "which ONNX's reference uses, repeats the axis)")
    single(case, 19, "pad_19_reflect_negative_pads", "Pad", [("x", floats(3, 5)), ("pads", np.array([-1, 2, 1, -2], np.int64))],
           [("y", F)], mode="reflect")
    single(case, 25, "pad_25_edge_axes_int8", "Pad",
           [("x", rng.integers(-100, 100, (2, 3, 4)).astype(np.int8)), ("pads", np.array([2, 1, 0, 3], np.int64)),
            ("", None), ("axes", np.array([0, 2], np.int64))], [("y", I8)], mode="edge")

    # ScatterND / ScatterElements reductions, duplicates included
    data = floats(4, 4, 4)
    upd = floats(2, 4, 4)
    for reduction in ("add", "mul", "max", "min"):
        single(case, 18, f"scatternd_18_{reduction}_duplicate_indices", "ScatterND",
               [("data", data), ("indices", np.array([[0], [0]], np.int64)), ("updates", upd)], [("y", F)],
               reduction=reduction)
    for reduction in ("max", "min"):
        single(case, 18, f"scatternd_18_{reduction}_element_indices", "ScatterND",
               [("data", floats(3, 3)), ("indices", np.array([[0, 0], [1, 2], [0, 0], [2, 1]], np.int64)),
                ("updates", floats(4))], [("y", F)], reduction=reduction)
    for reduction in ("mul", "max", "min", "add"):
        single(case, 18, f"scatter_elements_18_{reduction}_duplicates", "ScatterElements",
               [("data", floats(3, 5)), ("indices", np.array([[1, 1, 3], [0, 4, 4], [2, 2, 2]], np.int64)),
                ("updates", floats(3, 3))], [("y", F)], axis=1, reduction=reduction)
    single(case, 18, "scatter_elements_18_negative_indices_axis0", "ScatterElements",
           [("data", floats(3, 3)), ("indices", np.array([[-1, 0, -3]], np.int64)), ("updates", floats(1, 3))],
           [("y", F)], axis=0)
    single(case, 18, "scatter_elements_18_max_int32", "ScatterElements",
           [("data", rng.integers(-9, 9, (2, 4)).astype(np.int32)), ("indices", np.array([[3, 3], [0, 1]], np.int64)),
            ("updates", rng.integers(-9, 9, (2, 2)).astype(np.int32))], [("y", I32)], axis=-1, reduction="max")


def _spatial_cases(case, floats, rng):
    def pool(opset, name, op, x, **attributes):
        single(case, opset, name, op, [("x", x)], [("y", F)], **attributes)

    pool(19, "averagepool_19_2d_ceil_last_window_starts_on_pad", "AveragePool", floats(1, 3, 2, 2),
         kernel_shape=[3, 3], strides=[3, 3], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1)
    pool(19, "averagepool_19_2d_dilations_ceil", "AveragePool", floats(1, 1, 4, 4), kernel_shape=[2, 2],
         strides=[1, 1], dilations=[2, 2], ceil_mode=1)
    pool(19, "averagepool_19_3d_dilations_small", "AveragePool", floats(1, 1, 4, 4, 4), kernel_shape=[2, 2, 2],
         strides=[1, 1, 1], dilations=[2, 2, 2])
    pool(19, "averagepool_19_3d_dilations_large_count_include_pad", "AveragePool", floats(1, 1, 5, 5, 5),
         kernel_shape=[2, 2, 2], strides=[2, 2, 2], dilations=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1], count_include_pad=1,
         ceil_mode=1)
    pool(19, "averagepool_19_1d_dilations_pads", "AveragePool", floats(1, 2, 9), kernel_shape=[3], dilations=[2],
         pads=[2, 1], strides=[2])
    pool(22, "averagepool_22_same_lower", "AveragePool", floats(1, 2, 5, 5), kernel_shape=[2, 3], auto_pad="SAME_LOWER")
    pool(18, "lppool_18_2d_dilations", "LpPool", floats(1, 1, 4, 4), kernel_shape=[2, 2], strides=[1, 1],
         dilations=[2, 2], p=2)
    pool(18, "lppool_18_2d_same_upper", "LpPool", floats(1, 3, 5, 5), kernel_shape=[2, 2], auto_pad="SAME_UPPER", p=2)
    pool(18, "lppool_18_2d_same_lower", "LpPool", floats(1, 3, 5, 5), kernel_shape=[2, 2], auto_pad="SAME_LOWER", p=2)
    pool(18, "lppool_18_2d_pads_p3", "LpPool", floats(1, 3, 6, 6), kernel_shape=[3, 3], pads=[2, 2, 2, 2], p=3)
    pool(18, "lppool_18_2d_strides", "LpPool", floats(1, 3, 8, 8), kernel_shape=[5, 5], strides=[3, 3], p=2)
    pool(18, "lppool_18_3d_default", "LpPool", floats(1, 3, 4, 4, 4), kernel_shape=[2, 2, 2])
    pool(18, "lppool_18_1d_p1", "LpPool", floats(1, 3, 8), kernel_shape=[2], p=1)
    pool(22, "lppool_22_ceil_mode", "LpPool", floats(1, 1, 5, 5), kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1, p=2)

    # Col2Im-18 (sums can land near 0: numpy's double is the reference, ONNX Runtime must agree)
    for name, n, c, image, block, attributes in [
            ("col2im_basic", 1, 1, [5, 5], [1, 5], {}),
            ("col2im_strides", 1, 1, [5, 5], [3, 3], {"strides": [2, 2]}),
            ("col2im_pads", 1, 1, [5, 5], [1, 5], {"pads": [0, 1, 0, 1]}),
            ("col2im_dilations", 1, 1, [6, 6], [2, 2], {"dilations": [1, 5]}),
            ("col2im_3d_two_channels", 1, 2, [3, 4, 5], [1, 2, 2], {})]:
        dilations = attributes.get("dilations", [1] * len(image))
        pads = attributes.get("pads", [0] * 2 * len(image))
        strides = attributes.get("strides", [1] * len(image))
        counts = [(image[a] + pads[a] + pads[a + len(image)] - dilations[a] * (block[a] - 1) - 1) // strides[a] + 1
                  for a in range(len(image))]
        cols = floats(n, c * int(np.prod(block)), int(np.prod(counts)))
        single(case, 18, name, "Col2Im", [("input", cols), ("image_shape", np.array(image, np.int64)),
                                           ("block_shape", np.array(block, np.int64))], [("output", F)],
               exact=lambda f, i=image, b=block, d=dilations, p=pads, s=strides:
                   {"output": col2im_reference(f["input"], i, b, d, p, s)}, **attributes)

    # CenterCropPad-18
    def crop(name, x, shape, out=F, **attributes):
        single(case, 18, f"center_crop_pad_{name}", "CenterCropPad", [("input_data", x), ("shape", np.array(shape, np.int64))],
               [("y", out)], **attributes)
    crop("crop_only", floats(20, 10, 3), [10, 7, 3])
    crop("pad_only", floats(10, 7, 3), [20, 10, 3])
    crop("crop_and_pad_mixed", floats(20, 8, 3), [10, 10, 3])
    crop("crop_axes_hwc", floats(20, 8, 3), [10, 9], axes=[0, 1])
    crop("crop_negative_axes_hwc", floats(20, 8, 3), [10, 9], axes=[-3, -2])
    crop("crop_axes_chw", floats(3, 20, 8), [10, 9], axes=[1, 2])
    crop("odd_pad_int32", rng.integers(-5, 5, (3, 4)).astype(np.int32), [6, 7], out=I32)

    # DFT-20 (numpy's double FFT; ONNX Runtime must agree)
    def fft_out(y):
        return np.stack([y.real, y.imag], axis=-1).astype(np.float32)
    grid = floats(1, 10, 10, 1)
    real = floats(2, 6, 5, 1)
    comp = floats(2, 6, 5, 2)
    as_complex = lambda a: a[..., 0].astype(np.float64) + 1j * a[..., 1].astype(np.float64)
    dft_cases = [
        ("dft_20_axis1", grid, [("", None), ("axis", np.array(1, np.int64))], {},
         lambda f: fft_out(np.fft.fft(f["input"][..., 0].astype(np.float64), axis=1))),
        ("dft_20_axis2", grid, [("", None), ("axis", np.array(2, np.int64))], {},
         lambda f: fft_out(np.fft.fft(f["input"][..., 0].astype(np.float64), axis=2))),
        ("dft_20_default_axis", comp, [], {}, lambda f: fft_out(np.fft.fft(as_complex(f["input"]), axis=-1))),
        ("dft_20_inverse_complex", comp, [("", None), ("axis", np.array(1, np.int64))], {"inverse": 1},
         lambda f: fft_out(np.fft.ifft(as_complex(f["input"]), axis=1))),
        ("dft_20_rfft", real, [("", None), ("axis", np.array(1, np.int64))], {"onesided": 1},
         lambda f: fft_out(np.fft.rfft(f["input"][..., 0].astype(np.float64), axis=1))),
        ("dft_20_length_zero_pad", real, [("dft_length", np.array(8, np.int64)), ("axis", np.array(2, np.int64))], {},
         lambda f: fft_out(np.fft.fft(f["input"][..., 0].astype(np.float64), n=8, axis=2))),
        ("dft_20_length_truncate_negative_axis", comp, [("dft_length", np.array(4, np.int64)), ("axis", np.array(-3, np.int64))],
         {}, lambda f: fft_out(np.fft.fft(as_complex(f["input"]), n=4, axis=1))),
        ("dft_20_rfft_length_odd", real, [("dft_length", np.array(5, np.int32)), ("axis", np.array(1, np.int64))],
         {"onesided": 1}, lambda f: fft_out(np.fft.rfft(f["input"][..., 0].astype(np.float64), n=5, axis=1))),
    ]
    for name, x, extra, attributes, reference in dft_cases:
        single(case, 20, name, "DFT", [("input", x)] + extra, [("output", F)],
               exact=lambda f, r=reference: {"output": r(f)}, **attributes)
    # IRFFT: one-sided complex in, real out of length 2 * (bins - 1)
    half = np.fft.rfft(floats(10, 10).astype(np.float64), axis=0)
    half = np.stack([half.real, half.imag], axis=-1).astype(np.float32)[None]  # (1, 6, 10, 2)
    single(case, 20, "dft_20_irfft", "DFT", [("input", half), ("", None), ("axis", np.array(1, np.int64))],
           [("output", F)], onesided=1, inverse=1,
           exact=lambda f: {"output": np.fft.irfft(as_complex(f["input"]), n=10, axis=1)[..., None].astype(np.float32)})

    # GridSample in 2-D (16's modes renamed at 20; 22 adds types)
    x = floats(1, 2, 4, 5)
    for opset, mode, padding, align in [(20, "nearest", "zeros", 0), (20, "nearest", "border", 1),
                                        (20, "linear", "reflection", 0), (20, "linear", "zeros", 1),
                                        (20, "cubic", "zeros", 0), (20, "cubic", "border", 1),
                                        (22, "cubic", "reflection", 1), (22, "nearest", "reflection", 1),
                                        (22, "linear", "border", 0)]:
        g = rng.uniform(-1.25, 1.25, (1, 3, 4, 2)).astype(np.float32)
        single(case, opset, f"gridsample_2d_{mode}_{padding}_align_corners{align}_opset{opset}", "GridSample",
               [("X", x), ("Grid", g)], [("Y", F)], mode=mode, padding_mode=padding, align_corners=align)
    single(case, 22, "gridsample_2d_default_double", "GridSample",
           [("X", rng.standard_normal((2, 1, 3, 3))), ("Grid", rng.uniform(-1, 1, (2, 2, 2, 2)))], [("Y", D)])

    # DeformConv-22 (numpy's double reference; ONNX Runtime must agree)
    for name, size, kernel, pads, with_mask, bias in [("basic_with_padding", [3, 3], [2, 2], [1, 1, 1, 1], False, False),
                                                      ("basic_without_padding", [3, 3], [2, 2], [0, 0, 0, 0], False, False),
                                                      ("with_mask_bias", [3, 3], [2, 2], [0, 0, 0, 0], True, True)]:
        out = [size[a] + pads[a] + pads[a + 2] - kernel[a] + 1 for a in range(2)]
        taps = kernel[0] * kernel[1]
        w = floats(1, 1, *kernel)
        feeds = [("X", floats(1, 1, *size)), ("W", w), ("offset", (floats(1, 2 * taps, *out) * 0.7).astype(np.float32))]
        b = floats(1)
        feeds.append(("B", b) if bias else ("", None))
        if with_mask:
            feeds.append(("mask", rng.random((1, taps, *out)).astype(np.float32)))
        single(case, 22, f"deform_conv_22_{name}", "DeformConv", feeds, [("Y", F)], kernel_shape=kernel, pads=pads,
               exact=lambda f, bias=bias, pads=pads: {"Y": deform_conv_reference(f["X"], f["W"], f["offset"], f.get("B") if bias else None,
                                                                                f.get("mask"), [1, 1], pads, [1, 1], 1, 1)})


def _integer_cases(case, floats, rng):
    def ints(dtype, *shape):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)

    for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
        tag = op[7:].lower()
        single(case, 18, f"bitwise_{tag}_i16_3d", op, [("x", ints(np.int16, 3, 4, 5)), ("y", ints(np.int16, 3, 4, 5))],
               [("bitwise" + tag, TensorProto.INT16)])
        single(case, 18, f"bitwise_{tag}_ui64_bcast_3v1d", op, [("x", ints(np.uint64, 3, 4, 5)), ("y", ints(np.uint64, 5))],
               [("bitwise" + tag, TensorProto.UINT64)])
        single(case, 18, f"bitwise_{tag}_ui8_bcast_4v3d", op,
               [("x", ints(np.uint8, 3, 4, 5, 6)), ("y", ints(np.uint8, 4, 5, 6))], [("bitwise" + tag, U8)])
    single(case, 18, "bitwise_not_int8_3d", "BitwiseNot", [("x", ints(np.int8, 3, 4, 5))], [("y", I8)])
    single(case, 18, "bitwise_not_uint16_4d", "BitwiseNot", [("x", ints(np.uint16, 3, 4, 5, 6))], [("y", TensorProto.UINT16)])
    single(case, 18, "bitwise_not_int64", "BitwiseNot", [("x", ints(np.int64, 7))], [("y", I64)])

    def bitcast(name, x, to, np_to):
        single(case, 26, f"bitcast_{name}", "BitCast", [("input", x)], [("output", to)], to=to)
    bitcast("float64_to_int64", rng.standard_normal((3, 4)), I64, np.int64)
    bitcast("int64_to_float64", rng.standard_normal((5,)).view(np.int64), D, np.float64)
    bitcast("uint32_to_int32", ints(np.uint32, 2, 3), I32, np.int32)
    bitcast("scalar_float32_to_int32", np.array(3.5, np.float32), I32, np.int32)
    bitcast("uint16_to_int16", ints(np.uint16, 6), TensorProto.INT16, np.int16)
    bitcast("float16_to_uint16", floats(2, 3).astype(np.float16), TensorProto.UINT16, np.uint16)
    bitcast("int32_to_uint32", ints(np.int32, 4), TensorProto.UINT32, np.uint32)
    single(case, 26, "bitcast_bool_to_uint8", "BitCast", [("input", rng.random((2, 3)) > 0.5)], [("output", U8)], to=U8,
           exact=lambda f: {"output": f["input"].view(np.uint8)},
           ort_refuses="ONNX Runtime 1.30 has no BitCast kernel for bool")

    v = (floats(5) * 0.5 + 1).astype(np.float32)
    for exclusive, reverse in itertools.product((0, 1), (0, 1)):
        single(case, 26, f"cumprod_1d_exclusive{exclusive}_reverse{reverse}", "CumProd",
               [("x", v), ("axis", np.array(0, np.int32))], [("y", F)], exclusive=exclusive, reverse=reverse)
    single(case, 26, "cumprod_double_axis0", "CumProd", [("x", rng.uniform(0.5, 1.5, (3, 4))), ("axis", np.array(0, np.int64))],
           [("y", D)])
    single(case, 26, "cumprod_uint64_axis_negative", "CumProd",
           [("x", rng.integers(0, 5, (2, 5)).astype(np.uint64)), ("axis", np.array(-1, np.int64))], [("y", TensorProto.UINT64)])


def linear_align_corners(x, scales):
    """Resize linear with align_corners as ONNX's reference: x_original = x_resized * (length - 1) /
    (length * scale - 1), the fractional output width."""
    out = x.astype(np.float64)
    for axis, s in enumerate(scales):
        length = out.shape[axis]
        count = int(np.floor(length * s))
        if count == length and s == 1:
            continue
        width = length * float(s)
        positions = [0.0 if width == 1 else min(max(i * (length - 1) / (width - 1), 0), length - 1) for i in range(count)]
        low = [int(np.floor(p)) for p in positions]
        high = [min(l + 1, length - 1) for l in low]
        frac = np.array([p - l for p, l in zip(positions, low)])
        shape = [1] * out.ndim
        shape[axis] = count
        out = np.take(out, low, axis=axis) * (1 - frac).reshape(shape) + np.take(out, high, axis=axis) * frac.reshape(shape)
    return out.astype(x.dtype)


def nearest_crop_and_resize(x, roi, sizes, extrapolation):
    """Resize nearest (round_prefer_floor) with tf_crop_and_resize: outside [0, length - 1] gives extrapolation."""
    rank = x.ndim
    picks, outside = [], []
    for axis in range(rank):
        length, count = x.shape[axis], int(sizes[axis])
        start, end = float(roi[axis]), float(roi[rank + axis])
        pos = [start * (length - 1) + i * (end - start) * (length - 1) / (count - 1) if count > 1
               else 0.5 * (start + end) * (length - 1) for i in range(count)]
        picks.append([min(max(int(np.floor(p) if p - np.floor(p) <= 0.5 else np.ceil(p)), 0), length - 1) for p in pos])
        outside.append([p < 0 or p > length - 1 for p in pos])
    y = x[np.ix_(*picks)].astype(np.float64)
    mask = np.zeros(y.shape, bool)
    for axis in range(rank):
        shape = [1] * rank
        shape[axis] = -1
        mask |= np.array(outside[axis]).reshape(shape)
    return np.where(mask, extrapolation, y).astype(x.dtype)


def maxunpool_padded(x, indices, unpooled, shape):
    """MaxUnpool as ONNX's reference: X to the flat positions I of the unpooled (N, C, *unpooled) tensor,
    then zeros appended along each axis up to output_shape."""
    n, c = x.shape[:2]
    y = np.zeros((n * c * int(np.prod(unpooled)),), x.dtype)
    y[indices.reshape(-1)] = x.reshape(-1)
    out = np.zeros((n, c) + tuple(shape), x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(0, u) for u in unpooled)] = y.reshape((n, c) + tuple(unpooled))
    return out


def topk_reference(x, k, axis=-1):
    """The k largest along axis, equal values in index order."""
    order = np.argsort(-x.astype(np.float64), axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return {"values": np.take_along_axis(x, indices, axis=axis), "indices": indices.astype(np.int64)}


def _misc_cases(case, floats, rng):
    for quant, scale_type in itertools.product((np.uint8, np.int8), (np.float32, np.float16)):
        low, high = (0, 256) if quant == np.uint8 else (-128, 128)
        for rank, a_shape, b_shape in (("2D", (2, 4), (4, 3)), ("3D", (2, 2, 4), (2, 4, 3))):
            feeds = [("a", rng.integers(low, high, a_shape).astype(quant)), ("a_scale", np.array([0.0066], scale_type)),
                     ("a_zero_point", np.array([rng.integers(low, high)], quant)),
                     ("b", rng.integers(low, high, b_shape).astype(quant)), ("b_scale", np.array([0.00705], scale_type)),
                     ("b_zero_point", np.array([rng.integers(low, high)], quant)),
                     ("y_scale", np.array([0.0107], scale_type)), ("y_zero_point", np.array([rng.integers(low, high)], quant))]
            single(case, 21, f"qlinearmatmul_21_{rank}_{np.dtype(quant).name}_{np.dtype(scale_type).name}", "QLinearMatMul",
                   feeds, [("y", ELEM_OF[np.dtype(quant)])])

    def topk(name, x, k, out, **attributes):
        single(case, 24, f"top_k_24_{name}", "TopK", [("x", x), ("k", np.array([k], np.int64))],
               [("values", out), ("indices", I64)], **attributes)
    topk("default_axis", floats(3, 4), 3, F)
    single(case, 24, "top_k_24_uint64", "TopK", [("x", rng.integers(0, 100, (3, 4)).astype(np.uint64)),
                                                  ("k", np.array([3], np.int64))],
           [("values", TensorProto.UINT64), ("indices", I64)], exact=lambda f: topk_reference(f["x"], 3),
           ort_refuses="ONNX Runtime 1.30 has no TopK kernel for uint64")
    ties = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]], np.float32)
    topk("same_values_axis0", ties, 2, F, axis=0)
    topk("same_values_largest", np.array([[1, 1, 3, 3], [3, 1, 1, 2]], np.float32), 2, F)
    topk("same_values_2d_smallest", np.array([[1, 1, 3, 3], [3, 1, 1, 2]], np.int32), 3, I32, largest=0)
    topk("smallest_sorted", floats(3, 5), 3, F, largest=0, sorted=1)
    topk("negative_axis", floats(3, 4, 2), 2, F, axis=-2)
    topk("k_zero", floats(2, 4), 0, F)
    topk("double_infinities", np.array([[1.0, -np.inf, 3.0, np.inf], [np.inf, 0.5, np.inf, 2.0]]), 2, D)

    single(case, 21, "constantofshape_21_float_ones", "ConstantOfShape", [("x", np.array([4, 3, 2], np.int64))], [("y", F)],
           value=numpy_helper.from_array(np.array([1.0], np.float32), "value"))
    single(case, 21, "constantofshape_21_int32_zeros", "ConstantOfShape", [("x", np.array([10], np.int64))], [("y", I32)],
           value=numpy_helper.from_array(np.array([0], np.int32), "value"))
    single(case, 21, "constantofshape_21_int32_shape_zero", "ConstantOfShape", [("x", np.array([0], np.int64))], [("y", I32)],
           value=numpy_helper.from_array(np.array([0], np.int32), "value"))
    single(case, 25, "constantofshape_25_default_float_zeros", "ConstantOfShape", [("x", np.array([2, 3], np.int64))],
           [("y", F)])
    single(case, 23, "constantofshape_23_uint16_value", "ConstantOfShape", [("x", np.array([3, 1], np.int64))],
           [("y", TensorProto.UINT16)], value=numpy_helper.from_array(np.array([65535], np.uint16), "value"))

    single(case, 18, "optional_has_element_tensor_input", "OptionalHasElement",
           [("optional_input", np.array([1, 2, 3, 4], np.float32))], [("output", BOOL)])
    single(case, 18, "optional_get_element_tensor", "OptionalGetElement",
           [("optional_input", np.array([1, 2, 3, 4], np.float32))], [("output", F)])

    x = floats(3, 4, 5)
    for opset, name, attributes in [(19, "start_1", {"start": 1}), (19, "end_1", {"end": 1}),
                                    (21, "start_negative_1", {"start": -1}), (21, "end_negative_1", {"end": -1}),
                                    (23, "start_1_end_negative_1", {"start": 1, "end": -1}),
                                    (23, "start_1_end_2", {"start": 1, "end": 2}),
                                    (25, "clip_start", {"start": -10}), (25, "clip_end", {"end": 10}),
                                    (25, "start_greater_than_end", {"start": 2, "end": 1})]:
        single(case, opset, f"shape_{opset}_{name}", "Shape", [("x", x)], [("y", I64)], **attributes)
    single(case, 19, "size_19_scalar", "Size", [("x", np.array(2.5, np.float32))], [("y", I64)])
    single(case, 21, "size_21_empty", "Size", [("x", np.zeros((3, 0, 2), np.float32))], [("y", I64)])

    strings = lambda v: np.array(v, dtype=object)
    single(case, 19, "equal_19_string", "Equal", [("x", strings(["string1", "string2"])), ("y", strings(["string1", "string3"]))],
           [("z", BOOL)])
    single(case, 19, "equal_19_string_broadcast", "Equal", [("x", strings(["string1", "string2"])), ("y", strings(["string1"]))],
           [("z", BOOL)])
    for dtype in (np.uint16, np.int16, np.uint64):
        a = rng.integers(0, 4, (3, 4)).astype(dtype)
        single(case, 19, f"equal_19_{np.dtype(dtype).name}", "Equal", [("x", a), ("y", rng.integers(0, 4, (4,)).astype(dtype))],
               [("z", BOOL)])

    specials = np.array([-1.2, np.nan, np.inf, 2.8, -np.inf, np.inf, 0.0, -0.0], np.float32)
    single(case, 20, "isinf_20", "IsInf", [("x", specials)], [("y", BOOL)])
    single(case, 20, "isinf_20_negative", "IsInf", [("x", specials)], [("y", BOOL)], detect_positive=0)
    single(case, 20, "isinf_20_positive", "IsInf", [("x", specials)], [("y", BOOL)], detect_negative=0)
    single(case, 20, "isinf_20_float16", "IsInf", [("x", specials.astype(np.float16))], [("y", BOOL)])
    single(case, 20, "isnan_20", "IsNaN", [("x", specials)], [("y", BOOL)])
    single(case, 20, "isnan_20_float16", "IsNaN", [("x", specials.astype(np.float16))], [("y", BOOL)])
    single(case, 20, "isnan_20_double", "IsNaN", [("x", specials.astype(np.float64))], [("y", BOOL)])


def _float_op_cases(case, floats, rng):
    x = floats(3, 4, 5)
    unit = rng.uniform(-0.95, 0.95, (3, 4)).astype(np.float32)
    above_one = rng.uniform(1.05, 4, (3, 4)).astype(np.float32)
    for op, data, attributes in [("Acos", unit, {}), ("Asin", unit, {}), ("Atanh", unit, {}), ("Acosh", above_one, {}),
                                 ("Asinh", x, {}), ("Atan", x, {}), ("Cos", x, {}), ("Cosh", x, {}), ("Sinh", x, {}),
                                 ("Tan", unit, {}), ("Round", np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6, 0.0],
                                                                       np.float32), {}),
                                 ("Elu", x, {"alpha": 2.0}), ("Selu", x, {"alpha": 2.0, "gamma": 3.0}),
                                 ("Softplus", x, {}), ("Softsign", x, {}), ("ThresholdedRelu", x, {"alpha": 0.3}),
                                 ("HardSigmoid", x, {"alpha": 0.5, "beta": 0.6}), ("HardSwish", x * 4, {}),
                                 ("Mish", x * 3, {})]:
        single(case, 22, f"{op.lower()}_22", op, [("x", data)], [("y", F)], **attributes)
    single(case, 22, "softplus_22_double", "Softplus", [("x", rng.standard_normal((2, 3)) * 30)], [("y", D)],
           exact=lambda f: {"y": np.logaddexp(0.0, f["x"])}, ort_refuses="ONNX Runtime 1.30 has no Softplus-22 for double")
    single(case, 22, "mish_22_float16", "Mish", [("x", floats(3, 4).astype(np.float16))], [("y", F16)])
    single(case, 22, "lpnormalization_22_l1_axis0", "LpNormalization", [("x", floats(3, 4))], [("y", F)], axis=0, p=1)
    single(case, 22, "globallppool_22", "GlobalLpPool", [("x", floats(1, 3, 4, 5))], [("y", F)], p=3,
           exact=lambda f: {"y": ((np.abs(f["x"].astype(np.float64)) ** 3).sum(axis=(2, 3), keepdims=True) ** (1 / 3)).astype(np.float32)},
           ort_refuses="ONNX Runtime 1.30 has no GlobalLpPool-22 kernel")
    single(case, 22, "globalaveragepool_22", "GlobalAveragePool", [("x", floats(2, 3, 4, 5))], [("y", F)])
    single(case, 22, "globalmaxpool_22", "GlobalMaxPool", [("x", floats(2, 3, 4))], [("y", F)])
    single(case, 22, "instancenormalization_22", "InstanceNormalization",
           [("x", floats(2, 3, 4, 5)), ("s", floats(3)), ("bias", floats(3))], [("y", F)], epsilon=1e-3)
    single(case, 22, "eyelike_22_k_offset", "EyeLike", [("x", floats(4, 5))], [("y", I32)], k=-1, dtype=I32)
    single(case, 22, "det_22_batched", "Det", [("x", floats(2, 3, 3))], [("y", F)])
    single(case, 22, "dropout_22_inference_mask", "Dropout", [("x", x), ("ratio", np.array(0.5, np.float32))],
           [("y", F), ("mask", BOOL)])
    single(case, 22, "maxunpool_22_output_shape", "MaxUnpool",
           [("x", floats(1, 1, 2, 2)), ("i", np.array([[[[5, 7], [13, 15]]]], np.int64)),
            ("output_shape", np.array([1, 1, 5, 5], np.int64))], [("y", F)], kernel_shape=[2, 2], strides=[2, 2],
           exact=lambda f: {"y": maxunpool_padded(f["x"], f["i"], (4, 4), (5, 5))},
           ort_refuses="ONNX Runtime 1.30 reads I as flat positions in output_shape; ONNX's reference and its node test "
                       "test_maxunpool_export_with_output_shape unpool to (4, 4) and pad that at the end of each axis")
    single(case, 22, "convtranspose_22_output_padding", "ConvTranspose", [("X", floats(1, 2, 3, 3)), ("W", floats(2, 3, 3, 3))],
           [("Y", F)], strides=[2, 2], output_padding=[1, 1], pads=[1, 0, 0, 1])
    single(case, 22, "nllloss_22_weight_mean_ignore_index", "NegativeLogLikelihoodLoss",
           [("input", floats(3, 5, 2)), ("target", np.array([[1, 4], [0, 2], [3, 3]], np.int64)), ("weight", np.abs(floats(5)))],
           [("loss", F)], reduction="mean", ignore_index=3)
    seq, batch, size, hidden = 3, 2, 4, 5
    xs = floats(seq, batch, size)
    single(case, 22, "rnn_22_bidirectional", "RNN",
           [("X", xs), ("W", floats(2, hidden, size) * 0.5), ("R", floats(2, hidden, hidden) * 0.5), ("B", floats(2, 2 * hidden))],
           [("Y", F), ("Y_h", F)], hidden_size=hidden, direction="bidirectional")
    single(case, 22, "gru_22_linear_before_reset", "GRU",
           [("X", xs), ("W", floats(1, 3 * hidden, size) * 0.5), ("R", floats(1, 3 * hidden, hidden) * 0.5),
            ("B", floats(1, 6 * hidden))], [("Y", F), ("Y_h", F)], hidden_size=hidden, linear_before_reset=1)
    single(case, 22, "lstm_22_peepholes_reverse", "LSTM",
           [("X", xs), ("W", floats(1, 4 * hidden, size) * 0.5), ("R", floats(1, 4 * hidden, hidden) * 0.5),
            ("B", floats(1, 8 * hidden)), ("", None), ("", None), ("", None), ("P", floats(1, 3 * hidden))],
           [("Y", F), ("Y_h", F), ("Y_c", F)], hidden_size=hidden, direction="reverse")
    single(case, 20, "gelu_20_tanh_1d", "Gelu", [("x", np.array([-1, 0, 1], np.float32))], [("y", F)], approximate="tanh")
    single(case, 20, "gelu_20_default_double", "Gelu", [("x", rng.standard_normal((3, 4, 5)) * 3)], [("y", D)],
           exact=lambda f: {"y": np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))(f["x"])},
           ort_refuses="ONNX Runtime 1.30 has no double Erf for Gelu's function body")
    single(case, 20, "gelu_20_tanh_float16", "Gelu", [("x", floats(3, 4).astype(np.float16))], [("y", F16)],
           approximate="tanh")
    single(case, 24, "swish_24_default_alpha", "Swish", [("x", x * 3)], [("y", F)])
    single(case, 24, "swish_24_double", "Swish", [("x", rng.standard_normal((2, 5)))], [("y", D)], alpha=0.5)
    # type-only versions 21, 23, 24, 25 of the shape ops
    single(case, 25, "reshape_25_allowzero", "Reshape",
           [("data", floats(0, 3, 4)), ("shape", np.array([3, 4, 0], np.int64))], [("reshaped", F)], allowzero=1)
    single(case, 23, "reshape_23_zero_copies_dim", "Reshape", [("data", floats(2, 3, 4)), ("shape", np.array([0, -1], np.int64))],
           [("reshaped", F)])
    single(case, 25, "unsqueeze_25_unsorted_axes", "Unsqueeze", [("x", floats(3, 4, 5)), ("axes", np.array([5, 4, 2], np.int64))],
           [("y", F)])
    single(case, 24, "squeeze_24_negative_axes", "Squeeze", [("x", floats(1, 3, 1, 5)), ("axes", np.array([-2], np.int64))],
           [("y", F)])
    single(case, 21, "flatten_21_negative_axis_int8", "Flatten", [("a", rng.integers(-9, 9, (2, 3, 4, 5)).astype(np.int8))],
           [("b", I8)], axis=-2)
    single(case, 23, "transpose_23_default_perm", "Transpose", [("data", floats(2, 3, 4))], [("transposed", F)])
    single(case, 24, "identity_24_uint16", "Identity", [("x", rng.integers(0, 65535, (3, 2)).astype(np.uint16))],
           [("y", TensorProto.UINT16)])


def add_cases(case, floats, rng):
    _attention_cases(case, rng)
    _normalization_cases(case, floats, rng)
    _rotary_and_scatter_cases(case, floats, rng)
    _resize_cases(case, floats, rng)
    _tensor_op_cases(case, floats, rng)
    _spatial_cases(case, floats, rng)
    _integer_cases(case, floats, rng)
    _cast_cases(case, floats, rng)
    _misc_cases(case, floats, rng)
    _float_op_cases(case, floats, rng)
