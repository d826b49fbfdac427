#!/usr/bin/python3
"""Writes tests/data/imports/: another runtime's tensors for transformer_opset17 in the formats
`portolan compare --b import:PATH` reads, from a `portolan run --dump-all` of its test_data_set_0.

    build/app/portolan run tests/data/models/transformer_opset17/model.onnx \
        --inputs tests/data/models/transformer_opset17/test_data_set_0 --dump-all /tmp/dump
    /usr/bin/python3 tests/data/generate_imports.py /tmp/dump

- reference.npz: every float intermediate, np.savez_compressed (deflate), keyed by tensor name;
- outputs_stored.npz: the output alone, np.savez (stored);
- polygraphy.json: Polygraphy RunResults (--save-outputs) with two runners on the output:
  "onnxrt-runner-N0" exact, as LazyArray (Polygraphy >= 0.44), and "trt-runner-N0" with element
  [0, 5, 7] off by 0.5, as a bare ndarray (older Polygraphy).
"""
import base64
import io
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "imports")
os.makedirs(here, exist_ok=True)
tensors = {}
for name in sorted(os.listdir(sys.argv[1])):
    if name.endswith(".pb"):
        proto = onnx.TensorProto()
        with open(os.path.join(sys.argv[1], name), "rb") as f:
            proto.ParseFromString(f.read())
        array = numpy_helper.to_array(proto)
        if array.dtype == np.float32:
            tensors[proto.name] = array

np.savez_compressed(os.path.join(here, "reference.npz"), **tensors)
output = tensors["output"]
np.savez(os.path.join(here, "outputs_stored.npz"), output=output)


def ndarray(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return {"array": base64.b64encode(buffer.getvalue()).decode(), "polygraphy_class": "ndarray"}


off = output.copy()
off[0, 5, 7] += 0.5
runs = {
    "polygraphy_class": "RunResults",
    "lst": [
        ["onnxrt-runner-N0", [{"outputs": {"output": {"values": ndarray(output), "polygraphy_class": "LazyArray"}},
                               "runtime": 0.001, "runner_name": "onnxrt-runner-N0", "polygraphy_class": "IterationResult"}]],
        ["trt-runner-N0", [{"outputs": {"output": ndarray(off)},
                            "runtime": 0.001, "runner_name": "trt-runner-N0", "polygraphy_class": "IterationResult"}]],
    ],
}
with open(os.path.join(here, "polygraphy.json"), "w") as f:
    json.dump(runs, f, indent=4)
print("wrote", ", ".join(sorted(os.listdir(here))), "with", len(tensors), "tensors in reference.npz")
