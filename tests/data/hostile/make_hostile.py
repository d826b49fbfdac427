#!/usr/bin/python3
"""Writes Portolan's hostile corpus: models a broken or malicious exporter could write.

    /usr/bin/python3 tests/data/hostile/make_hostile.py      (needs python3-onnx, python3-numpy)

Each case is one file here plus a line of manifest.tsv:

    FILE <TAB> KIND <TAB> FEEDS <TAB> MESSAGE

KIND says what every command must do with the file (tests/e2e/tst_HostileCorpus.cpp runs each
command on each file under a 4 GiB address-space limit and 30 s):
  unreadable  every command exits 2 and stderr contains MESSAGE;
  refused     inspect shows MESSAGE as a finding (exit 1); the commands that execute or rewrite
              (optimize, run, compare, repro, bisect-precision, report) exit 2 naming MESSAGE;
  runs        optimize and run exit 0 (a warning may be printed); compare ends cleanly;
  bounded     a size bomb: run exits 2 with MESSAGE (nothing is allocated past the cap); the
              other commands end cleanly;
  clean       only the rules below: a crash the fuzzers found (fuzz/, see its README.md).
No command may end on a signal, time out, or exit non-zero without a message.

FEEDS is `x` when the model has a graph input (always named x; the harness feeds it random values
with `--input x=random`), `-` when it has none.
Everything is deterministic: rerunning writes the same bytes.
"""

import os
import struct

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []  # (file, kind, message)


def save(name, model_or_bytes, kind, message):
    path = os.path.join(HERE, name)
    data = model_or_bytes if isinstance(model_or_bytes, bytes) else model_or_bytes.SerializeToString()
    with open(path, "wb") as f:
        f.write(data)
    CASES.append((name, kind, message))


def model(nodes, inputs, outputs, initializers=(), opset=17, ir=8, opsets=None):
    graph = helper.make_graph(nodes, "hostile", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=opsets if opsets is not None else [helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def out(name, elem=TensorProto.FLOAT, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def x_input(shape=(2, 3), elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info("x", elem, list(shape))


def relu_model():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [x_input()], [out("y", shape=[2, 3])])


# --- Integer arithmetic with no defined result: never a trap ---------------------------------

def integer_case(name, op, a, b, dtype, **attrs):
    node = helper.make_node(op, ["a", "b"], ["y"], name=op.lower(), **attrs)
    elem = TensorProto.INT32 if dtype == np.int32 else TensorProto.INT64
    save(name, model([node], [], [out("y", elem)], [const("a", np.array(a, dtype)), const("b", np.array(b, dtype))]),
         "runs", "")


def integer_cases():
    i32, i64 = np.iinfo(np.int32), np.iinfo(np.int64)
    integer_case("div_int32_by_zero.onnx", "Div", [7, -7, 0], [0, 0, 0], np.int32)
    integer_case("div_int64_by_zero.onnx", "Div", [7, -7, 0], [0, 0, 0], np.int64)
    integer_case("div_int32_min_by_minus_one.onnx", "Div", [i32.min, 5], [-1, -1], np.int32)
    integer_case("div_int64_min_by_minus_one.onnx", "Div", [i64.min, 5], [-1, -1], np.int64)
    integer_case("mod_int32_by_zero.onnx", "Mod", [7, -7], [0, 0], np.int32)
    integer_case("fmod_int32_by_zero.onnx", "Mod", [7, -7], [0, 0], np.int32, fmod=1)
    integer_case("mod_int64_min_by_minus_one.onnx", "Mod", [i64.min], [-1], np.int64)
    integer_case("fmod_int32_min_by_minus_one.onnx", "Mod", [i32.min], [-1], np.int32, fmod=1)
    integer_case("add_int32_overflow.onnx", "Add", [i32.max, i32.min], [1, -1], np.int32)
    integer_case("mul_int64_overflow.onnx", "Mul", [i64.max, i64.min], [2, -1], np.int64)
    integer_case("sub_int32_overflow.onnx", "Sub", [i32.min], [1], np.int32)
    # Neg and Abs of the minimum, a float → int cast far out of range
    for op in ("Neg", "Abs"):
        save(f"{op.lower()}_int64_min.onnx",
             model([helper.make_node(op, ["a"], ["y"], name=op.lower())], [], [out("y", TensorProto.INT64)],
                   [const("a", np.array([i64.min, 3], np.int64))]), "runs", "")
    save("cast_float_out_of_range.onnx",
         model([helper.make_node("Cast", ["a"], ["y"], name="cast", to=TensorProto.INT32)], [], [out("y", TensorProto.INT32)],
               [const("a", np.array([3e38, -3e38, np.nan, np.inf], np.float32))]), "runs", "")
    save("bitshift_past_width.onnx",
         model([helper.make_node("BitShift", ["a", "b"], ["y"], name="shift", direction="LEFT")], [],
               [out("y", TensorProto.UINT32)],
               [const("a", np.array([1, 1], np.uint32)), const("b", np.array([32, 200], np.uint32))]), "runs", "")


# --- Malformed graphs that load: shown by inspect, refused by everything that executes ---------

def refused_cases():
    save("add_10000_inputs.onnx",
         model([helper.make_node("Add", ["x"] * 10000, ["y"], name="add")], [x_input()], [out("y")]),
         "refused", "Add node has 10000 input(s); Add takes 2")
    save("conv_kernel_shape_string.onnx",
         model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape="3")],
               [x_input((1, 1, 5, 5))], [out("y")], [const("w", np.ones((1, 1, 3, 3), np.float32))]),
         "refused", "attribute 'kernel_shape' is a STRING; Conv declares INTS")
    save("transpose_perm_float.onnx",
         model([helper.make_node("Transpose", ["x"], ["y"], name="transpose", perm=1.5)], [x_input()], [out("y")]),
         "refused", "attribute 'perm' is a FLOAT; Transpose declares INTS")
    save("cast_without_to.onnx",
         model([helper.make_node("Cast", ["x"], ["y"], name="cast")], [x_input()], [out("y")]),
         "refused", "lacks its required attribute 'to'")
    save("relu_unknown_attribute.onnx",
         model([helper.make_node("Relu", ["x"], ["y"], name="relu", alpha=0.5)], [x_input()], [out("y")]),
         "refused", "attribute 'alpha' is not one Relu declares")
    save("no_opset_import.onnx", model(relu_model().graph.node, [x_input()], [out("y", shape=[2, 3])], opsets=[]),
         "refused", "declares no opset_import")
    save("opset_99999.onnx", model(relu_model().graph.node, [x_input()], [out("y", shape=[2, 3])], opset=99999),
         "refused", "opset 99999 of the standard domain; Portolan supports up to")
    save("opset_zero.onnx", model(relu_model().graph.node, [x_input()], [out("y", shape=[2, 3])], opset=0),
         "refused", "opset 0 of the standard domain")
    m = relu_model()
    m.ir_version = 1000
    save("ir_version_1000.onnx", m, "refused", "IR version 1000; Portolan supports IR 3 to")
    save("negative_input_dim.onnx",
         model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [x_input((2, -3))], [out("y")]),
         "refused", "negative dim")
    save("softmax_no_input.onnx",
         model([helper.make_node("Softmax", [], ["y"], name="softmax")], [], [out("y")]),
         "refused", "Softmax node has 0 input(s)")


# --- Files that do not load ---------------------------------------------------------------

def unreadable_cases():
    good = relu_model().SerializeToString()
    save("truncated_half.onnx", good[: len(good) // 2], "unreadable", "cannot parse as an ONNX model")
    save("truncated_one_byte.onnx", good[:-1], "unreadable", "cannot parse as an ONNX model")
    save("empty_file.onnx", b"", "unreadable", "")
    # a graph field (7) whose length prefix runs past the end of the file
    save("length_past_end.onnx", bytes([0x08, 0x08, 0x3A]) + b"\xff\xff\xff\x7f" + b"\x00" * 16,
         "unreadable", "cannot parse as an ONNX model")
    save("random_bytes.onnx", np.random.default_rng(7).integers(0, 256, 4096, dtype=np.uint8).tobytes(),
         "unreadable", "")
    # nested If bodies, far past any sane depth
    save("nesting_bomb.onnx", nested_if(500), "unreadable", "deep")
    save("cycle.onnx", model([helper.make_node("Relu", ["b"], ["a"], name="r1"), helper.make_node("Relu", ["a"], ["b"], name="r2")],
                             [x_input()], [out("b")]), "unreadable", "cycle")
    save("dangling_input.onnx", model([helper.make_node("Relu", ["missing"], ["y"], name="relu")], [x_input()], [out("y")]),
         "unreadable", "missing")
    save("duplicate_output.onnx",
         model([helper.make_node("Relu", ["x"], ["y"], name="r1"), helper.make_node("Relu", ["x"], ["y"], name="r2")],
               [x_input()], [out("y")]), "unreadable", "'y'")
    # external data that leaves the model's folder, or runs past its file
    t = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "../../../etc/passwd"), ("offset", "0"), ("length", "24")):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    save("external_escapes.onnx", model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [x_input()], [out("y")], [t]),
         "unreadable", "leave the model's folder")
    bad_len = numpy_helper.from_array(np.ones((1000, 1000), np.float32), "w")
    bad_len.raw_data = b"\x00" * 16
    save("raw_data_too_short.onnx",
         model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [x_input()], [out("y")], [bad_len]),
         "unreadable", "'w'")


def nested_if(depth):
    body = helper.make_graph([], "leaf", [], [])
    for level in range(depth):
        node = helper.make_node("If", ["c"], [], name=f"if{level}", then_branch=body)  # one branch: two would double per level
        body = helper.make_graph([node], f"g{level}", [], [])
    m = helper.make_model(body, opset_imports=[helper.make_opsetid("", 17)])
    return m.SerializeToString()


# --- Size bombs: a shape tensor asks for terabytes ------------------------------------------

def bomb_cases():
    huge = np.array([1 << 20, 1 << 20, 1 << 10], np.int64)  # 2^50 elements
    save("expand_bomb.onnx",
         model([helper.make_node("Expand", ["x", "s"], ["y"], name="expand")], [x_input((1, 1, 1))], [out("y")], [const("s", huge)]),
         "bounded", "expand")
    save("tile_bomb.onnx",
         model([helper.make_node("Tile", ["x", "r"], ["y"], name="tile")], [x_input((2, 3))], [out("y")],
               [const("r", np.array([1 << 30, 1 << 30], np.int64))]), "bounded", "tile")
    save("constant_of_shape_bomb.onnx",
         model([helper.make_node("ConstantOfShape", ["s"], ["y"], name="fill")], [], [out("y")], [const("s", huge)]),
         "bounded", "fill")
    save("range_bomb.onnx",
         model([helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")], [], [out("y")],
               [const("a", np.array(0.0, np.float32)), const("b", np.array(3e38, np.float32)), const("d", np.array(1e-30, np.float32))]),
         "bounded", "range")
    save("resize_bomb.onnx",
         model([helper.make_node("Resize", ["x", "", "sc"], ["y"], name="resize")], [x_input((1, 1, 2, 2))], [out("y")],
               [const("sc", np.array([1, 1, 1e9, 1e9], np.float32))]), "bounded", "resize")
    save("pad_bomb.onnx",
         model([helper.make_node("Pad", ["x", "p"], ["y"], name="pad")], [x_input((2, 3))], [out("y")],
               [const("p", np.array([0, 0, 1 << 40, 1 << 40], np.int64))]), "bounded", "pad")
    save("range_zero_delta.onnx",
         model([helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")], [], [out("y", TensorProto.INT64)],
               [const("a", np.array(0, np.int64)), const("b", np.array(10, np.int64)), const("d", np.array(0, np.int64))]),
         "bounded", "range")


def feeds_of(name):
    """`x` when the file is a model with a graph input named x, else `-`."""
    try:
        with open(os.path.join(HERE, name), "rb") as f:
            m = onnx.load_model_from_string(f.read())
        return "x" if any(i.name == "x" for i in m.graph.input) else "-"
    except Exception:  # unreadable on purpose
        return "-"


def main():
    for name in os.listdir(HERE):
        if name.endswith(".onnx"):
            os.remove(os.path.join(HERE, name))
    integer_cases()
    refused_cases()
    unreadable_cases()
    bomb_cases()
    # crashes found by scripts/fuzz.sh, kept as found (not regenerated)
    for name in sorted(os.listdir(os.path.join(HERE, "fuzz"))):
        if name.endswith(".onnx"):
            CASES.append((f"fuzz/{name}", "clean", ""))
    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("# file\tkind\tfeeds\tmessage (written by make_hostile.py; see its docstring)\n")
        for name, kind, message in CASES:
            f.write(f"{name}\t{kind}\t{feeds_of(name)}\t{message}\n")
    print(f"wrote {len(CASES)} cases")


if __name__ == "__main__":
    main()
