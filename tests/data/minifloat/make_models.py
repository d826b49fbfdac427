#!/usr/bin/env python3
# Writes the Cast round-trip models that make_expected.js feeds to ONNX Runtime:
#   y = Cast(Cast(x, to=T, saturate=S[, round_mode=R]), to=FLOAT)
# Usage: make_models.py OUTDIR T:S[:R] ...   (one model per spec, named T_S[_R].onnx)
# onnx 1.12's helper is enough: it writes any attribute into any opset without validating.
import sys

from onnx import TensorProto, helper

OPSET = 25  # Cast-25 is the first with uint2/int2; Cast-24 added float8e8m0 and round_mode
IR_VERSION = 10  # the model only holds float tensors, so no newer IR is needed


def write(outdir, to, saturate, round_mode):
    attrs = {"to": to, "saturate": saturate}
    if round_mode:
        attrs["round_mode"] = round_mode
    narrow = helper.make_node("Cast", ["x"], ["q"], **attrs)
    widen = helper.make_node("Cast", ["q"], ["y"], to=TensorProto.FLOAT)
    graph = helper.make_graph(
        [narrow, widen], "cast_round_trip",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              ir_version=IR_VERSION, producer_name="portolan-minifloat")
    name = f"{to}_{saturate}" + (f"_{round_mode}" if round_mode else "")
    with open(f"{outdir}/{name}.onnx", "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    outdir = sys.argv[1]
    for spec in sys.argv[2:]:
        parts = spec.split(":")
        write(outdir, int(parts[0]), int(parts[1]), parts[2] if len(parts) > 2 else None)
