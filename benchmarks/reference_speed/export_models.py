#!/usr/bin/python3
"""Exports the benchmark models from torchvision (random weights, fixed seed) into a cache folder.

Usage: /usr/bin/python3 export_models.py OUT_DIR   (needs python3-torch, python3-torchvision)
Each model gets OUT_DIR/<name>/model.onnx and a random test_data_set_0/input_0.pb.
"""
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import numpy_helper

MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224)),
    "vit_b_16": (lambda: torchvision.models.vit_b_16(weights=None), (1, 3, 224, 224)),
}


def export(name, out_dir):
    path = os.path.join(out_dir, name, "model.onnx")
    if os.path.exists(path):
        return
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    x = torch.randn(*shape)
    os.makedirs(os.path.join(out_dir, name, "test_data_set_0"), exist_ok=True)
    # with gradients on: under no_grad, nn.MultiheadAttention takes a fused path the exporter rejects
    torch.onnx.export(model, x, path, opset_version=14, input_names=["input"], output_names=["output"])
    tensor = numpy_helper.from_array(x.numpy().astype(np.float32), "input")
    with open(os.path.join(out_dir, name, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(tensor.SerializeToString())
    print(f"exported {name}: {os.path.getsize(path) / 2**20:.1f} MiB")


if __name__ == "__main__":
    out = sys.argv[1]
    for n in (sys.argv[2:] or MODELS):
        export(n, out)
