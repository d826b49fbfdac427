#!/usr/bin/env python3
"""End-to-end latency on the GPU machine: ResNet-50 (when torchvision is there) and a BERT-base
encoder (12 post-LN layers, hidden 768, 12 heads, 128 tokens), at batch 1 and 32, in fp16: PyTorch
eager, torch.compile and Portolan's CUDA executor (`portolan run --executor cuda:fp16`) on the same
models, in the same run. The models are exported to ONNX here (opset 17, static shapes, random
weights, fixed seed). Prints median milliseconds and Portolan's ratio to each peer.

Usage: e2e_peer.py PORTOLAN_BINARY WORK_DIR"""
import inspect
import json
import os
import subprocess
import sys

try:
    import torch
    import torch.nn as nn
except ImportError:
    print("e2e_peer: no PyTorch here", file=sys.stderr)
    sys.exit(2)

if len(sys.argv) != 3 or not torch.cuda.is_available():
    print(__doc__ if len(sys.argv) != 3 else "e2e_peer: PyTorch sees no GPU", file=sys.stderr)
    sys.exit(2)
portolan, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
torch.manual_seed(0)


class BertLayer(nn.Module):
    """A post-LN BERT layer written out in plain ops: PyTorch's own TransformerEncoderLayer takes a
    fused fast path in inference that some exporters cannot export."""

    def __init__(self, hidden=768, heads=12, ffn=3072):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.ffn = nn.Sequential(nn.Linear(hidden, ffn), nn.GELU(), nn.Linear(ffn, hidden))

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).split(h, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        p = torch.softmax(q @ k.transpose(-1, -2) / self.head_dim ** 0.5, dim=-1)
        a = (p @ v).transpose(1, 2).reshape(b, s, h)
        x = self.norm1(x + self.out(a))
        return self.norm2(x + self.ffn(x))


class BertEncoder(nn.Module):
    def __init__(self, layers=12):
        super().__init__()
        self.layers = nn.Sequential(*(BertLayer() for _ in range(layers)))

    def forward(self, x):
        return self.layers(x)


def models():
    yield "bert_base", BertEncoder, lambda b: (b, 128, 768)
    try:
        import torchvision
        yield "resnet50", lambda: torchvision.models.resnet50(weights=None), lambda b: (b, 3, 224, 224)
    except ImportError:
        print("e2e_peer: no torchvision here: ResNet-50 left out", file=sys.stderr)


def export(model, x, path):
    """Opset 17 with static shapes: the TorchScript exporter where this PyTorch still has it, else the
    dynamo one (converted down to 17)."""
    kwargs = dict(opset_version=17, input_names=["input"], output_names=["output"])
    if "dynamo" not in inspect.signature(torch.onnx.export).parameters:
        torch.onnx.export(model, (x,), path, **kwargs)  # a PyTorch before the dynamo exporter
        return
    try:
        torch.onnx.export(model, (x,), path, dynamo=False, **kwargs)
    except Exception as legacy:  # the TorchScript exporter gone or failing: the dynamo one
        print(f"e2e_peer: the TorchScript exporter failed ({str(legacy)[:120]}); exporting with dynamo", file=sys.stderr)
        torch.onnx.export(model, (x,), path, dynamo=True, external_data=False, **kwargs)


def gpu_median_ms(fn, runs=20, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


print(f"{'model':<12} {'batch':>5} {'eager ms':>10} {'compile ms':>11} {'portolan ms':>12} {'vs eager':>9} {'vs compile':>11}")
for name, make, shape in models():
    model = make().eval()
    for batch in (1, 32):
        x = torch.randn(*shape(batch))
        path = os.path.join(work, f"{name}_b{batch}.onnx")
        with torch.no_grad():
            export(model, x, path)
        gpu = model.half().cuda()
        xg = x.half().cuda()
        with torch.no_grad():
            eager = gpu_median_ms(lambda: gpu(xg))
            compiled_model = torch.compile(gpu)
            compiled = gpu_median_ms(lambda: compiled_model(xg))
        model = model.float().cpu()
        run = subprocess.run([portolan, "run", path, "--executor", "cuda:fp16", "--input", "input=random:1", "--repeat", "20",
                              "--warmup", "3", "--json"], capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            print(f"{name:<12} {batch:>5} {eager:>10.3f} {compiled:>11.3f}   portolan failed: {run.stderr.strip()[:200]}")
            continue
        ours = json.loads(run.stdout)["latency_ms"]["median"]
        print(f"{name:<12} {batch:>5} {eager:>10.3f} {compiled:>11.3f} {ours:>12.3f} {ours / eager:>8.2f}x {ours / compiled:>10.2f}x")
