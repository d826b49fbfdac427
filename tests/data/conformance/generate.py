#!/usr/bin/python3
"""Writes Portolan's conformance suite for opsets 18 to 26 in ONNX's backend-test layout.

    scripts/conformance-suite.sh      (installs onnxruntime-node, then runs this)

Each case is opsetNN/test_NAME/model.onnx with test_data_set_0/input_K.pb and output_K.pb. The
inputs are seeded; the expected outputs are what ONNX Runtime 1.30 computes (through
scripts/external/onnxruntime-node.js, named by $PORTOLAN_ORT_RUNNER with NODE_PATH set). A case
ONNX Runtime refuses is left out and printed. Where ONNX Runtime and the spec disagree, the case
says so in docs/conformance.md. Needs python3-onnx and python3-numpy (onnx 1.12 writes the newer
opsets' nodes without checking them; the point of the suite is that Portolan does).
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import cases_gridsample  # the opset 18-27 op families, one file each beside this one
import cases_image
import cases_strings
import cases_tensor
import cases_transformer
import cases_upstream_variants
import narrow

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.environ.get("PORTOLAN_ORT_RUNNER", "")
RNG = np.random.default_rng(20261207)
ORT_NEWEST_OPSET = 26  # ONNX Runtime 1.30 refuses opset 27 ("under development")
CASES = []  # (opset, name, model, inputs as [(name, array)], exact outputs or None)

ELEM = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64, np.int32: TensorProto.INT32,
        np.uint8: TensorProto.UINT8, np.bool_: TensorProto.BOOL, np.float64: TensorProto.DOUBLE,
        np.int8: TensorProto.INT8, np.object_: TensorProto.STRING, np.float16: TensorProto.FLOAT16,
        np.int16: TensorProto.INT16, np.uint16: TensorProto.UINT16, np.uint32: TensorProto.UINT32,
        np.uint64: TensorProto.UINT64}


def info(name, array):
    if isinstance(array, TensorProto):  # a type numpy lacks (narrow.py): fed as it is
        return helper.make_tensor_value_info(name, array.data_type, list(array.dims))
    return helper.make_tensor_value_info(name, ELEM[array.dtype.type], list(array.shape))


def case(opset, name, nodes, inputs, outputs, initializers=(), exact=None, ort_refuses=None):
    """inputs: [(name, array)], fed at run time; outputs: [(name, elem type)] with unknown shapes.
    exact: a function of the inputs giving {output name: array} computed in double by numpy, for ops
    where ONNX Runtime's float32 rounding is coarser than the runner's atol of 1e-7 (a DFT bin that
    is exactly 0 comes out as 2e-7); ONNX Runtime must still agree with it within 1e-5.
    ort_refuses: why ONNX Runtime cannot run a case the spec defines, or departs from the spec in it;
    `exact` alone then gives the expected outputs (the same holds for every case above ORT_NEWEST_OPSET).
    An input may be a TensorProto of a type numpy lacks (narrow.py), and an output such a type: ONNX
    Runtime then reads that input as an initializer and its output through a lossless Cast."""
    graph = helper.make_graph(nodes, name, [info(n, a) for n, a in inputs],
                              [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
                              [a if isinstance(a, TensorProto) else numpy_helper.from_array(a, n) for n, a in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 18 else 9 if opset <= 20 else 10
    CASES.append((opset, name, model, inputs, exact, ort_refuses))


def floats(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def reductions():
    x = floats(2, 3, 4)
    ops = ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSumExp",
           "ReduceSumSquare"]
    for op in ops:
        name = op[len("Reduce"):].lower()
        case(18, f"reduce_{name}_axes_input_keepdims", [helper.make_node(op, ["x", "axes"], ["y"], keepdims=1)],
             [("x", x)], [("y", TensorProto.FLOAT)], [("axes", np.array([0, 2], np.int64))])
        case(18, f"reduce_{name}_negative_axis", [helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)],
             [("x", x)], [("y", TensorProto.FLOAT)], [("axes", np.array([-1], np.int64))])
        case(18, f"reduce_{name}_no_axes", [helper.make_node(op, ["x"], ["y"], keepdims=0)],
             [("x", x)], [("y", TensorProto.FLOAT)])
    positive = np.abs(x) + 0.5
    case(18, "reduce_logsum_axes_input", [helper.make_node("ReduceLogSum", ["x", "axes"], ["y"])],
         [("x", positive)], [("y", TensorProto.FLOAT)], [("axes", np.array([1], np.int64))])
    case(18, "reduce_mean_empty_axes_noop", [helper.make_node("ReduceMean", ["x", "axes"], ["y"], noop_with_empty_axes=1)],
         [("x", x)], [("y", TensorProto.FLOAT)], [("axes", np.array([], np.int64))])
    case(18, "reduce_max_axes_fed_at_run_time", [helper.make_node("ReduceMax", ["x", "axes"], ["y"], keepdims=1)],
         [("x", x), ("axes", np.array([1], np.int64))], [("y", TensorProto.FLOAT)])
    case(20, "reduce_max_int64_opset20", [helper.make_node("ReduceMax", ["x", "axes"], ["y"], keepdims=0)],
         [("x", RNG.integers(-50, 50, (3, 4)).astype(np.int64))], [("y", TensorProto.INT64)],
         [("axes", np.array([1], np.int64))])


def splits_and_pads():
    x = floats(7, 4)
    case(18, "split_num_outputs_even", [helper.make_node("Split", ["x"], ["a", "b"], axis=1, num_outputs=2)],
         [("x", x)], [("a", TensorProto.FLOAT), ("b", TensorProto.FLOAT)])
    case(18, "split_num_outputs_uneven", [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=3)],
         [("x", x)], [("a", TensorProto.FLOAT), ("b", TensorProto.FLOAT), ("c", TensorProto.FLOAT)])
    case(18, "split_sizes_input", [helper.make_node("Split", ["x", "s"], ["a", "b"], axis=0)],
         [("x", x)], [("a", TensorProto.FLOAT), ("b", TensorProto.FLOAT)], [("s", np.array([2, 5], np.int64))])
    y = floats(2, 3, 4)
    for mode in ("constant", "reflect", "edge"):
        case(18, f"pad_axes_input_{mode}", [helper.make_node("Pad", ["x", "p", "", "axes"], ["y"], mode=mode)],
             [("x", y)], [("y", TensorProto.FLOAT)],
             [("p", np.array([1, 2, 2, 1], np.int64)), ("axes", np.array([1, -1], np.int64))])
    case(19, "pad_wrap", [helper.make_node("Pad", ["x", "p"], ["y"], mode="wrap")],
         [("x", floats(3, 4))], [("y", TensorProto.FLOAT)], [("p", np.array([1, 2, 2, 3], np.int64))])
    case(19, "pad_wrap_axes", [helper.make_node("Pad", ["x", "p", "", "axes"], ["y"], mode="wrap")],
         [("x", y)], [("y", TensorProto.FLOAT)], [("p", np.array([2, 1], np.int64)), ("axes", np.array([2], np.int64))])
    case(21, "pad_constant_value_opset21", [helper.make_node("Pad", ["x", "p", "v"], ["y"])],
         [("x", floats(2, 2))], [("y", TensorProto.FLOAT)],
         [("p", np.array([0, 1, 1, 0], np.int64)), ("v", np.array(2.5, np.float32))])


def unchanged_ops_at_new_opsets():
    """Versions that only added element types: the older kernels compute them."""
    x = floats(1, 2, 5, 5)
    w = floats(3, 2, 3, 3)
    case(22, "conv_opset22", [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
         [("x", x)], [("y", TensorProto.FLOAT)], [("w", w)])
    case(22, "maxpool_opset22", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
         [("x", x)], [("y", TensorProto.FLOAT)])
    case(22, "sin_opset22", [helper.make_node("Sin", ["x"], ["y"])], [("x", x)], [("y", TensorProto.FLOAT)])
    case(25, "reshape_transpose_opset25",
         [helper.make_node("Reshape", ["x", "s"], ["r"]), helper.make_node("Transpose", ["r"], ["y"], perm=[1, 0])],
         [("x", x)], [("y", TensorProto.FLOAT)], [("s", np.array([10, 5], np.int64))])
    case(25, "flatten_squeeze_unsqueeze_opset25",
         [helper.make_node("Flatten", ["x"], ["f"], axis=2), helper.make_node("Unsqueeze", ["f", "a"], ["u"]),
          helper.make_node("Squeeze", ["u", "a"], ["y"])],
         [("x", x)], [("y", TensorProto.FLOAT)], [("a", np.array([0], np.int64))])
    case(25, "shape_size_identity_opset25",
         [helper.make_node("Shape", ["x"], ["s"], start=1), helper.make_node("Size", ["x"], ["n"]),
          helper.make_node("Identity", ["s"], ["y"])],
         [("x", x)], [("y", TensorProto.INT64), ("n", TensorProto.INT64)])
    case(25, "cast_float_to_int32_opset25", [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT32)],
         [("x", (floats(3, 4) * 10).astype(np.float32))], [("y", TensorProto.INT32)])
    case(21, "constant_of_shape_opset21",
         [helper.make_node("ConstantOfShape", ["s"], ["y"], value=numpy_helper.from_array(np.array([1.5], np.float32)))],
         [("s", np.array([2, 3], np.int64))], [("y", TensorProto.FLOAT)])
    case(19, "equal_opset19", [helper.make_node("Equal", ["a", "b"], ["y"])],
         [("a", RNG.integers(0, 3, (4,)).astype(np.int64)), ("b", RNG.integers(0, 3, (4,)).astype(np.int64))],
         [("y", TensorProto.BOOL)])
    case(24, "topk_opset24", [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1)],
         [("x", floats(3, 6))], [("v", TensorProto.FLOAT), ("i", TensorProto.INT64)], [("k", np.array([2], np.int64))])


def new_ops():
    """Ops born at 18 or later: each fails until its kernel lands (the suite says which)."""
    x = floats(2, 3, 4)
    case(18, "mish", [helper.make_node("Mish", ["x"], ["y"])], [("x", x)], [("y", TensorProto.FLOAT)])
    case(20, "gelu_tanh", [helper.make_node("Gelu", ["x"], ["y"], approximate="tanh")], [("x", x)], [("y", TensorProto.FLOAT)])
    case(20, "gelu", [helper.make_node("Gelu", ["x"], ["y"])], [("x", x)], [("y", TensorProto.FLOAT)])
    a = RNG.integers(0, 255, (3, 4)).astype(np.int32)
    b = RNG.integers(0, 255, (3, 4)).astype(np.int32)
    for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
        case(18, op.lower(), [helper.make_node(op, ["a", "b"], ["y"])], [("a", a), ("b", b)], [("y", TensorProto.INT32)])
    case(18, "bitwisenot", [helper.make_node("BitwiseNot", ["a"], ["y"])], [("a", a)], [("y", TensorProto.INT32)])
    case(24, "swish", [helper.make_node("Swish", ["x"], ["y"], alpha=1.5)], [("x", x)], [("y", TensorProto.FLOAT)])
    case(23, "rms_normalization", [helper.make_node("RMSNormalization", ["x", "s"], ["y"], axis=-1, epsilon=1e-5)],
         [("x", x)], [("y", TensorProto.FLOAT)], [("s", floats(4))])
    case(21, "group_normalization", [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)],
         [("x", floats(2, 4, 3, 3))], [("y", TensorProto.FLOAT)], [("s", floats(4)), ("b", floats(4))])
    case(18, "center_crop_pad", [helper.make_node("CenterCropPad", ["x", "s"], ["y"])],
         [("x", floats(5, 4))], [("y", TensorProto.FLOAT)], [("s", np.array([3, 6], np.int64))])
    case(19, "averagepool_dilations",
         [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 2])],
         [("x", floats(1, 1, 5, 5))], [("y", TensorProto.FLOAT)])
    case(18, "resize_linear_antialias",
         [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear", antialias=1)],
         [("x", floats(1, 1, 8, 8))], [("y", TensorProto.FLOAT)], [("sc", np.array([1, 1, 0.5, 0.5], np.float32))])
    case(18, "group_normalization_per_group", [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)],
         [("x", floats(2, 4, 3, 3))], [("y", TensorProto.FLOAT)], [("s", floats(2)), ("b", floats(2))])
    case(18, "center_crop_pad_odd_axes", [helper.make_node("CenterCropPad", ["x", "s"], ["y"], axes=[0, 2])],
         [("x", floats(6, 3, 3))], [("y", TensorProto.FLOAT)], [("s", np.array([3, 6], np.int64))])
    for reduction in ("max", "min"):
        case(18, f"scatter_elements_{reduction}",
             [helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1, reduction=reduction)],
             [("x", floats(3, 4)), ("u", floats(3, 3))], [("y", TensorProto.FLOAT)],
             [("i", np.array([[0, 2, 0], [1, 1, 3], [3, 0, 3]], np.int64))])
        case(18, f"scatter_nd_{reduction}", [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction=reduction)],
             [("x", floats(4, 3)), ("u", floats(3, 3))], [("y", TensorProto.FLOAT)],
             [("i", np.array([[1], [3], [1]], np.int64))])
    case(18, "resize_cubic_antialias", [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="cubic", antialias=1)],
         [("x", floats(1, 2, 9, 7))], [("y", TensorProto.FLOAT)], [("sc", np.array([1, 1, 0.4, 0.6], np.float32))])
    case(18, "resize_axes_sizes_not_larger",
         [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="linear", axes=[2, 3], keep_aspect_ratio_policy="not_larger")],
         [("x", floats(1, 1, 6, 8))], [("y", TensorProto.FLOAT)], [("sz", np.array([9, 9], np.int64))])
    case(18, "resize_axes_scales_nearest", [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="nearest", axes=[-1])],
         [("x", floats(2, 3, 4))], [("y", TensorProto.FLOAT)], [("sc", np.array([2.5], np.float32))])
    case(19, "resize_half_pixel_symmetric",
         [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="linear", coordinate_transformation_mode="half_pixel_symmetric")],
         [("x", floats(1, 1, 5, 5))], [("y", TensorProto.FLOAT)], [("sc", np.array([1, 1, 1.7, 0.6], np.float32))])
    case(18, "lppool_dilations_ceil", [helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 1], ceil_mode=1, strides=[2, 2], p=2)],
         [("x", floats(1, 2, 7, 6))], [("y", TensorProto.FLOAT)])
    case(21, "quantize_dequantize_opset21",
         [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]), helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
         [("x", floats(3, 4))], [("y", TensorProto.FLOAT), ("q", TensorProto.INT8)],
         [("s", np.array(0.05, np.float32)), ("z", np.array(3, np.int8))])
    def dft_axis1(inputs):
        spectrum = np.fft.fft(inputs["x"][..., 0].astype(np.float64), axis=1)
        return {"y": np.stack([spectrum.real, spectrum.imag], axis=-1).astype(np.float32)}
    case(20, "dft_axis_input", [helper.make_node("DFT", ["x", "", "a"], ["y"])],
         [("x", floats(2, 8, 3, 1))], [("y", TensorProto.FLOAT)], [("a", np.array(1, np.int64))], exact=dft_axis1)
    case(20, "grid_sample_linear", [helper.make_node("GridSample", ["x", "g"], ["y"], mode="linear", padding_mode="border")],
         [("x", floats(1, 2, 4, 5)), ("g", (RNG.random((1, 3, 3, 2)) * 2.2 - 1.1).astype(np.float32))], [("y", TensorProto.FLOAT)])


def packed(name, elem_type, bits, values, shape):
    """A TensorProto of a sub-byte or 8-bit narrow type from its codes (onnx 1.12's helpers predate
    them): `bits` per element, the first element in the least significant bits of each byte."""
    mask = (1 << bits) - 1
    data = bytearray((len(values) * bits + 7) // 8)
    for i, v in enumerate(values):
        data[i * bits // 8] |= (int(v) & mask) << (i * bits % 8)
    t = TensorProto()
    t.name = name
    t.data_type = elem_type
    t.dims.extend(shape)
    t.raw_data = bytes(data)
    return t


FLOAT8E4M3FN, FLOAT8E5M2, UINT4, INT4, FLOAT8E8M0, UINT2, INT2 = 17, 19, 21, 22, 24, 25, 26


def narrow_types():
    """float8, float8e8m0, int4 and int2 inside graphs with float inputs and outputs (the runner and
    the .npy files only carry numpy's types): casts there and back, blocked and plain Q/DQ."""
    def round_trip(opset, name, to, x, **attributes):
        case(opset, name, [helper.make_node("Cast", ["x"], ["n"], to=to, **attributes),
                           helper.make_node("Cast", ["n"], ["y"], to=TensorProto.FLOAT)],
             [("x", x)], [("y", TensorProto.FLOAT)])
    wide = np.concatenate([floats(20) * 100, np.array([448, 449, 464, 1e4, -1e4, 0.001, -0.0, 2 ** -9, 2 ** -10], np.float32)])
    round_trip(19, "cast_float8e4m3fn_round_trip", FLOAT8E4M3FN, wide.astype(np.float32))
    round_trip(19, "cast_float8e5m2_no_saturate", FLOAT8E5M2, (floats(12) * 3e4).astype(np.float32), saturate=0)
    # integers and fractions away from the .5 ties, where ONNX Runtime rounds away from zero and the spec to even
    ints = np.array([-20, -9, -8, -3, 0, 3, 7, 8, 15, 16, 2.3, -2.7, 6.9, -7.2], np.float32)
    round_trip(21, "cast_int4_round_trip", INT4, ints)
    round_trip(21, "cast_uint4_round_trip", UINT4, np.abs(ints))
    round_trip(25, "cast_int2_round_trip", INT2, ints)
    round_trip(25, "cast_uint2_round_trip", UINT2, np.abs(ints))
    round_trip(24, "cast_float8e8m0_nearest", FLOAT8E8M0, (np.abs(floats(16)) * 10 + 0.01).astype(np.float32),
               round_mode="nearest")

    w_values = RNG.integers(-8, 8, 32)
    zero_points = RNG.integers(-2, 3, 8)
    case(21, "dequantize_int4_blocked",
         [helper.make_node("DequantizeLinear", ["w", "s", "z"], ["d"], axis=1, block_size=4),
          helper.make_node("Add", ["d", "x"], ["y"])],
         [("x", floats(4, 8))], [("y", TensorProto.FLOAT)],
         [("w", packed("w", INT4, 4, w_values, [4, 8])), ("s", (np.abs(floats(4, 2)) + 0.1).astype(np.float32)),
          ("z", packed("z", INT4, 4, zero_points, [4, 2]))])
    case(21, "quantize_int4_blocked",
         [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=0, block_size=3),
          helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=0, block_size=3)],
         [("x", floats(7, 3) * 2)], [("y", TensorProto.FLOAT)],
         [("s", (np.abs(floats(3, 3)) * 0.3 + 0.05).astype(np.float32)), ("z", packed("z", INT4, 4, RNG.integers(-1, 2, 9), [3, 3]))])
    case(19, "quantize_float8e4m3fn",
         [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]), helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
         [("x", floats(3, 5) * 50)], [("y", TensorProto.FLOAT)],
         [("s", np.array(0.5, np.float32)), ("z", packed("z", FLOAT8E4M3FN, 8, [0], []))])
    case(21, "quantize_uint16_per_axis",
         [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1),
          helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1)],
         [("x", floats(2, 3, 4) * 100)], [("y", TensorProto.FLOAT)],
         [("s", np.array([0.01, 0.02, 0.005], np.float32)), ("z", np.array([30000, 32768, 100], np.uint16))])
    case(25, "dequantize_uint2",
         [helper.make_node("DequantizeLinear", ["w", "s", "z"], ["d"]), helper.make_node("Add", ["d", "x"], ["y"])],
         [("x", floats(7))], [("y", TensorProto.FLOAT)],
         [("w", packed("w", UINT2, 2, RNG.integers(0, 4, 7), [7])), ("s", np.array(0.25, np.float32)),
          ("z", packed("z", UINT2, 2, [1], []))])
    # Not here: DequantizeLinear-23 with output_dtype unlike the scale's type. ONNX Runtime 1.30 fails
    # it ("Tensor type mismatch" writing a float16 output as float); tst_NarrowTypes covers it.


def expected_outputs(model_path, inputs, outputs_dir):
    """Runs ONNX Runtime on the model; returns {output name: array} or None when it refuses."""
    with tempfile.TemporaryDirectory() as feeds:
        for name, array in inputs:
            # strings travel as fixed-width unicode (an object array would be pickled)
            np.save(os.path.join(feeds, name.replace("%", "%25").replace("/", "%2F") + ".npy"),
                    array.astype(np.str_) if array.dtype == object else array)
        os.makedirs(outputs_dir, exist_ok=True)
        run = subprocess.run(RUNNER.split() + [model_path, feeds, outputs_dir], capture_output=True, text=True)
        if run.returncode != 0:
            lines = run.stderr.strip().splitlines()
            # the line naming the error, not the last line of a JavaScript stack trace
            return None, next((l for l in lines if "rror" in l), lines[-1] if lines else "exit %d" % run.returncode)
    loaded = {os.path.splitext(f)[0]: np.load(os.path.join(outputs_dir, f)) for f in os.listdir(outputs_dir)}
    return {k: v.astype(object) if v.dtype.kind == "U" else v for k, v in loaded.items()}, ""


def expected_narrow_outputs(model, inputs, scratch):
    """expected_outputs for a model with TensorProto inputs or outputs of narrow.py's types: ONNX
    Runtime runs a copy where those inputs are initializers and those outputs are cast onto
    narrow.WIDE; the results come back encoded in their own type."""
    view = onnx.ModelProto()
    view.CopyFrom(model)
    fixed = {n: a for n, a in inputs if isinstance(a, TensorProto)}
    kept = [i for i in view.graph.input if i.name not in fixed]
    del view.graph.input[:]
    view.graph.input.extend(kept)
    for n, t in fixed.items():
        copy = view.graph.initializer.add()
        copy.CopyFrom(t)
        copy.name = n
    narrow_outputs = {}
    for out in view.graph.output:
        elem = out.type.tensor_type.elem_type
        if elem in narrow.BITS:
            narrow_outputs[out.name] = elem
            view.graph.node.add().CopyFrom(helper.make_node("Cast", [out.name], [out.name + "__wide"], to=narrow.WIDE[elem]))
            out.name = out.name + "__wide"
            out.type.tensor_type.elem_type = narrow.WIDE[elem]
    path = os.path.join(scratch, "view.onnx")
    onnx.save(view, path)
    outputs, why = expected_outputs(path, [(n, a) for n, a in inputs if n not in fixed], os.path.join(scratch, "out"))
    if outputs is None:
        return None, why
    for name, elem in narrow_outputs.items():
        wide = outputs.pop(name + "__wide")
        outputs[name] = narrow.encode(name, elem, wide.astype(np.float64), wide.shape)
    return outputs, ""


def proto_of(value, name):
    if isinstance(value, TensorProto):
        t = TensorProto()
        t.CopyFrom(value)
        t.name = name
        return t
    return numpy_helper.from_array(value, name)


def same_values(a, b):
    a, b = narrow.decode(a), narrow.decode(b)
    if a.dtype == object or b.dtype == object:
        return a.shape == b.shape and bool(np.all(a == b))
    return a.shape == b.shape and np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-4, atol=1e-5, equal_nan=True)


def main():
    if not RUNNER:
        sys.exit("set PORTOLAN_ORT_RUNNER (scripts/conformance-suite.sh does)")
    reductions()
    splits_and_pads()
    unchanged_ops_at_new_opsets()
    new_ops()
    narrow_types()
    for family in (cases_tensor, cases_transformer, cases_gridsample, cases_strings, cases_image,
                   cases_upstream_variants):  # each appended last: the older cases keep their seeded data
        family.add_cases(case, floats, RNG)
    for entry in os.listdir(HERE):
        if entry.startswith("opset") and os.path.isdir(os.path.join(HERE, entry)):
            shutil.rmtree(os.path.join(HERE, entry))
    refused = []
    for opset, name, model, inputs, exact, ort_refuses in CASES:
        folder = os.path.join(HERE, f"opset{opset}", f"test_{name}")
        data = os.path.join(folder, "test_data_set_0")
        os.makedirs(data)
        onnx.save(model, os.path.join(folder, "model.onnx"))
        with tempfile.TemporaryDirectory() as scratch:
            if any(isinstance(a, TensorProto) for _, a in inputs) or \
                    any(o.type.tensor_type.elem_type in narrow.BITS for o in model.graph.output):
                outputs, why = expected_narrow_outputs(model, inputs, scratch)
            else:
                outputs, why = expected_outputs(os.path.join(folder, "model.onnx"), inputs, scratch)
        spec_only = exact is not None and (ort_refuses or opset > ORT_NEWEST_OPSET)
        if outputs is None and not spec_only:
            refused.append(f"{name}: {why}")
            shutil.rmtree(folder)
            continue
        if outputs is None:  # an opset ONNX Runtime does not run yet: the spec's numbers alone
            outputs = {}
            print(f"{name}: expected outputs from numpy only ({ort_refuses or f'ONNX Runtime runs up to opset {ORT_NEWEST_OPSET}'})")
        if exact is not None:
            computed = exact(dict(inputs))
            for out_name, value in computed.items():
                if out_name in outputs and not same_values(outputs[out_name], value):
                    if not ort_refuses:
                        sys.exit(f"{name}: ONNX Runtime and numpy disagree on {out_name}")
                    print(f"{name}: ONNX Runtime departs from the spec on {out_name} ({ort_refuses}); numpy's values kept")
            outputs.update(computed)
        for k, (input_name, array) in enumerate(inputs):
            with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
                f.write(proto_of(array, input_name).SerializeToString())
        for k, out in enumerate(model.graph.output):
            with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
                f.write(proto_of(outputs[out.name], out.name).SerializeToString())
    print(f"wrote {len(CASES) - len(refused)} cases")
    for line in refused:
        print("ONNX Runtime refused", line)


if __name__ == "__main__":
    main()
