#!/usr/bin/python3
"""Exports the benchmark models (random weights, fixed seed) into a cache folder.

Usage: /usr/bin/python3 export_models.py OUT_DIR [name ...]   (needs python3-torch, python3-torchvision)
Each model gets OUT_DIR/<name>/model.onnx, a random test_data_set_0/input_0.pb, and eight more
random batches of the same distribution (other seeds) in calibration/set_K/input_0.pb for int8.

resnet18_bn keeps its BatchNormalization nodes (TrainingMode.PRESERVE on an eval-mode model: the
exporter's eval peephole would otherwise fold them into the convolutions), so fusion passes have
real work; gpt_block is a GPT-style pre-LN decoder block with a causal mask and tanh-GELU.
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision
from onnx import numpy_helper


class GptBlock(nn.Module):
    """One pre-LN decoder block as GPT-2 writes it: fused QKV projection, causal mask, tanh GELU."""

    def __init__(self, dim=256, heads=4, seq=64):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def forward(self, x):
        b, s, e = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(e, dim=2)
        q = q.view(b, s, self.heads, e // self.heads).transpose(1, 2)
        k = k.view(b, s, self.heads, e // self.heads).transpose(1, 2)
        v = v.view(b, s, self.heads, e // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(e // self.heads))
        att = att.masked_fill(self.mask[:, :, :s, :s] == 0, float("-inf"))
        y = (att.softmax(dim=-1) @ v).transpose(1, 2).contiguous().view(b, s, e)
        x = x + self.proj(y)
        h = self.fc(self.ln2(x))
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return x + self.out(h)


class BertEncoder(nn.Module):
    """Post-LN encoder layers (torch.nn.TransformerEncoder, exported BERT-style with erf GELU): two
    small ones by default; bert_base is BERT-base's shape (12 layers, hidden 768, 12 heads)."""

    def __init__(self, dim=256, heads=4, layers=2):
        super().__init__()
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        for each in self.encoder.layers:  # the encoder deep-copies one layer: give each its own weights
            each.self_attn._reset_parameters()
            each.linear1.reset_parameters()
            each.linear2.reset_parameters()

    def forward(self, x):
        return self.encoder(x)


PRESERVE = torch.onnx.TrainingMode.PRESERVE
EVAL = torch.onnx.TrainingMode.EVAL
MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (1, 3, 224, 224), EVAL),
    "resnet18_bn": (lambda: torchvision.models.resnet18(weights=None), (1, 3, 224, 224), PRESERVE),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224), EVAL),
    "vit_b_16": (lambda: torchvision.models.vit_b_16(weights=None), (1, 3, 224, 224), EVAL),
    "bert_encoder": (BertEncoder, (1, 64, 256), EVAL),
    "bert_base": (lambda: BertEncoder(768, 12, 12), (1, 128, 768), EVAL),
    "gpt_block": (GptBlock, (1, 64, 256), EVAL),
}


def write_input(x, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(x.numpy().astype(np.float32), "input").SerializeToString())


def export(name, out_dir):
    path = os.path.join(out_dir, name, "model.onnx")
    make, shape, training = MODELS[name]
    for k in range(8):
        batch = os.path.join(out_dir, name, "calibration", f"set_{k}", "input_0.pb")
        if not os.path.exists(batch):
            write_input(torch.randn(*shape, generator=torch.Generator().manual_seed(1 + k)), batch)
    if os.path.exists(path):
        return
    torch.manual_seed(0)
    model = make().eval()
    x = torch.randn(*shape)
    os.makedirs(os.path.join(out_dir, name, "test_data_set_0"), exist_ok=True)
    # with gradients on: under no_grad, nn.MultiheadAttention takes a fused path the exporter rejects
    torch.onnx.export(model, x, path, opset_version=14, input_names=["input"], output_names=["output"],
                      training=training)
    write_input(x, os.path.join(out_dir, name, "test_data_set_0", "input_0.pb"))
    print(f"exported {name}: {os.path.getsize(path) / 2**20:.1f} MiB")


if __name__ == "__main__":
    out = sys.argv[1]
    for n in (sys.argv[2:] or MODELS):
        export(n, out)
