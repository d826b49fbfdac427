#!/usr/bin/python3
"""Generate Portolan's ONNX test fixtures: small PyTorch-exported models with reference I/O.

Run with the system interpreter (it has torch 1.13 / onnx 1.12):

    /usr/bin/python3 tests/data/generate_fixtures.py [name ...]

Each fixture is written to tests/data/models/<name>/ in the ONNX backend-test layout:
model.onnx plus test_data_set_N/{input,output}_K.pb (serialized TensorProto whose `name` is the
graph input/output name). Reference outputs come from PyTorch in eval mode under no_grad.
Everything is seeded, so reruns reproduce the same bytes.
"""

import collections
import io
import math
import os
import shutil
import sys
import warnings

import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def fresh_dir(name):
    """Delete and recreate models/<name>; needed for idempotency (onnx appends to an existing
    external-data file instead of truncating it)."""
    path = os.path.join(MODELS_DIR, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def export(model, args, **kwargs):
    """torch.onnx.export into memory and return the ModelProto; exporter warnings are echoed
    so they show up in the run log."""
    buf = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.onnx.export(model, args, buf, **kwargs)
    for w in caught:
        print(f"    exporter warning: {w.category.__name__}: {str(w.message).splitlines()[0]}")
    return onnx.load_from_string(buf.getvalue())


def randomize_norm_params_(module, generator):
    """Give every BatchNorm/LayerNorm non-trivial affine params (and BN running stats).

    Why: freshly initialised norms all share weight=1 / bias=0 / mean=0 / var=1, and the torch
    exporter deduplicates identical initializers into Identity nodes. Random values also make
    the fixtures actually exercise the normalisation math.
    """
    for m in module.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)):
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5, generator=generator)
                m.bias.normal_(0.0, 0.1, generator=generator)
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.normal_(0.0, 0.1, generator=generator)
                    m.running_var.uniform_(0.5, 1.5, generator=generator)


def write_test_data(model_dir, graph, inputs, outputs, index=0):
    """Write test_data_set_<index>/input_K.pb and output_K.pb, naming tensors after the graph."""
    data_dir = os.path.join(model_dir, f"test_data_set_{index}")
    os.makedirs(data_dir)
    for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
        assert len(values) == len(infos), f"{kind} count mismatch"
        for k, (value, info) in enumerate(zip(values, infos)):
            # value.contiguous(), not np.ascontiguousarray: the latter turns 0-d scalars into 1-d.
            array = value.contiguous().numpy()
            declared = info.type.tensor_type.shape.dim
            assert len(declared) == array.ndim and all(
                d.dim_value in (0, n) for d, n in zip(declared, array.shape)), \
                f"{info.name}: data shape {array.shape} does not fit the graph"
            tensor = numpy_helper.from_array(array, info.name)
            with open(os.path.join(data_dir, f"{kind}_{k}.pb"), "wb") as f:
                f.write(tensor.SerializeToString())


def op_histogram(graph):
    """Op counts over the graph including If/Loop subgraphs."""
    counts = collections.Counter()
    for node in graph.node:
        counts[node.op_type] += 1
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                counts.update(op_histogram(attr.g))
            for sub in attr.graphs:
                counts.update(op_histogram(sub))
    return counts


def value_info_str(vi):
    t = vi.type.tensor_type
    dims = [d.dim_param if d.HasField("dim_param") else str(d.dim_value) for d in t.shape.dim]
    dtype = onnx.TensorProto.DataType.Name(t.elem_type)
    return f"{vi.name}: {dtype}[{', '.join(dims)}]"


def check_and_summarize(name, expected_opset):
    """Run the ONNX checker on the saved file and print a summary; returns the loaded model."""
    model_dir = os.path.join(MODELS_DIR, name)
    path = os.path.join(model_dir, "model.onnx")
    # Passing the path (not the proto) lets the checker resolve external data.
    onnx.checker.check_model(path, full_check=True)
    model = onnx.load(path, load_external_data=False)
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    assert opset == expected_opset, f"{name}: opset {opset} != {expected_opset}"
    hist = op_histogram(model.graph)
    print(f"  opset {opset}, {len(model.graph.node)} top-level nodes, "
          f"{sum(hist.values())} nodes incl. subgraphs")
    print("  ops: " + ", ".join(f"{op}={n}" for op, n in sorted(hist.items())))
    for vi in model.graph.input:
        print("  input  " + value_info_str(vi))
    for vi in model.graph.output:
        print("  output " + value_info_str(vi))
    for root, _, files in sorted(os.walk(model_dir)):
        for fn in sorted(files):
            p = os.path.join(root, fn)
            print(f"  {os.path.getsize(p):>9} B  {os.path.relpath(p, MODELS_DIR)}")
    return model, hist


# --------------------------------------------------------------------------------------------
# 1. cnn_bn: Conv-BN-ReLU blocks with BatchNormalization kept as separate nodes
# --------------------------------------------------------------------------------------------

class ConvBnRelu(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = ConvBnRelu(3, 8)
        self.layer2 = ConvBnRelu(8, 8)
        self.layer3 = ConvBnRelu(8, 8)
        self.pool = nn.MaxPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d(1)  # exported as GlobalAveragePool
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = self.layer1(x)
        x = x + self.layer3(self.layer2(x))  # residual Add
        x = self.gap(self.pool(x))
        return self.fc(torch.flatten(x, 1))


def make_cnn_bn():
    name = "cnn_bn"
    torch.manual_seed(1)
    gen = torch.Generator().manual_seed(101)
    model = SmallCnn()
    randomize_norm_params_(model, gen)
    model.eval()
    x = torch.randn(1, 3, 32, 32, generator=gen)
    with torch.no_grad():
        y = model(x)
        # TrainingMode.EVAL makes torch 1.13 run its eval peephole pass, which fuses
        # Conv+BatchNormalization even with do_constant_folding=False. PRESERVE skips that
        # pass; since the module is in eval mode, BN is still exported in inference form.
        proto = export(model, (x,), opset_version=13, do_constant_folding=False,
                       training=torch.onnx.TrainingMode.PRESERVE,
                       input_names=["input"], output_names=["logits"])
    ops = [n.op_type for n in proto.graph.node]
    assert ops.count("BatchNormalization") == 3, "BatchNormalization was folded away"
    assert "Identity" not in ops, "initializers were deduplicated into Identity nodes"
    names = [n.name for n in proto.graph.node]
    assert "/layer1/conv/Conv" in names and "/layer1/bn/BatchNormalization" in names, names
    model_dir = fresh_dir(name)
    onnx.save(proto, os.path.join(model_dir, "model.onnx"))
    write_test_data(model_dir, proto.graph, [x], [y])
    return name, 13


# --------------------------------------------------------------------------------------------
# 2./3. transformer_opset14 / transformer_opset17: 2-layer post-norm encoder, dynamic seq
# --------------------------------------------------------------------------------------------
# Hand-written rather than nn.TransformerEncoder: in eval mode under no_grad, the stock module
# dispatches to the fused aten::_transformer_encoder_layer_fwd, which has no ONNX symbolic.
# It only exports with grad enabled (a side condition of its fast-path check), and then the
# reference outputs would come from a different kernel than the exported graph. Explicit
# layers give the same op set (MatMul, Softmax, LayerNorm, Erf-GELU) deterministically.

class SelfAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        b, s, d = x.shape  # traced as Shape/Gather so the seq dim stays symbolic

        def heads(t):  # [b, s, d] -> [b, h, s, head_dim]
            return t.reshape(b, s, self.n_heads, self.head_dim).transpose(1, 2)

        q, k, v = heads(self.q_proj(x)), heads(self.k_proj(x)), heads(self.v_proj(x))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.out_proj(ctx.transpose(1, 2).reshape(b, s, d))


class EncoderLayer(nn.Module):
    """Post-norm layer, i.e. nn.TransformerEncoderLayer(norm_first=False) without dropout."""

    def __init__(self, d_model, n_heads, d_ff):
        super().__init__()
        self.self_attn = SelfAttention(d_model, n_heads)
        self.norm1 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x):
        x = self.norm1(x + self.self_attn(x))
        return self.norm2(x + self.ff(x))


class Encoder(nn.Module):
    def __init__(self, n_layers=2, d_model=32, n_heads=4, d_ff=64):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(d_model, n_heads, d_ff) for _ in range(n_layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def make_transformer(opset):
    name = f"transformer_opset{opset}"
    # Same seeds for both opsets: the two fixtures hold the same weights and I/O.
    torch.manual_seed(2)
    gen = torch.Generator().manual_seed(202)
    model = Encoder()
    randomize_norm_params_(model, gen)
    model.eval()
    # Set 0 uses the nominal seq length 8; set 1 uses 5 to exercise the symbolic 'seq' dim.
    xs = [torch.randn(1, 8, 32, generator=gen), torch.randn(1, 5, 32, generator=gen)]
    with torch.no_grad():
        ys = [model(x) for x in xs]
        proto = export(model, (xs[0],), opset_version=opset,
                       input_names=["input"], output_names=["output"],
                       dynamic_axes={"input": {1: "seq"}, "output": {1: "seq"}})
    hist = op_histogram(proto.graph)
    for op in ("MatMul", "Softmax", "Erf"):
        assert hist[op] > 0, f"{name}: missing {op}"
    if opset < 17:  # LayerNormalization is an opset-17 op; below that it must be decomposed
        assert hist["LayerNormalization"] == 0 and hist["ReduceMean"] > 0, hist
    else:
        assert hist["LayerNormalization"] == 4, hist
    assert proto.graph.input[0].type.tensor_type.shape.dim[1].dim_param == "seq"
    model_dir = fresh_dir(name)
    onnx.save(proto, os.path.join(model_dir, "model.onnx"))
    for i, (x, y) in enumerate(zip(xs, ys)):
        write_test_data(model_dir, proto.graph, [x], [y], index=i)
    return name, opset


# --------------------------------------------------------------------------------------------
# 4. control_flow: scripted module -> Loop with a nested If, plus a top-level If
# --------------------------------------------------------------------------------------------

class ControlFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        for i in range(int(n)):  # trip count from the int64 input -> Loop
            if y.sum() > 0:  # data-dependent -> If nested in the Loop body
                y = y * 0.5 - 1.0
            else:
                y = y + float(i)
        if y.mean() > 0:  # top-level If
            y = torch.relu(y)
        else:
            y = -y
        return y


def make_control_flow():
    name = "control_flow"
    torch.manual_seed(4)
    gen = torch.Generator().manual_seed(404)
    # Scripting (not tracing) is what preserves the control flow in the export.
    model = torch.jit.script(ControlFlow().eval())
    x = torch.randn(2, 4, generator=gen)
    # Set 0: 4 iterations; the inner If goes else/else/then/else, the top-level If takes
    # the relu branch. Set 1: zero-trip loop, top-level If takes the negate branch.
    cases = [(x, torch.tensor(4, dtype=torch.int64)), (x, torch.tensor(0, dtype=torch.int64))]
    with torch.no_grad():
        outs = [model(*c) for c in cases]
        proto = export(model, cases[0], opset_version=13, input_names=["x", "n"],
                       output_names=["y"])
    top_ops = [n.op_type for n in proto.graph.node]
    assert "Loop" in top_ops and "If" in top_ops, top_ops
    loop = next(n for n in proto.graph.node if n.op_type == "Loop")
    assert "If" in [n.op_type for n in loop.attribute[0].g.node], "If not nested in Loop"
    model_dir = fresh_dir(name)
    onnx.save(proto, os.path.join(model_dir, "model.onnx"))
    for i, (case, y) in enumerate(zip(cases, outs)):
        write_test_data(model_dir, proto.graph, list(case), [y], index=i)
    return name, 13


# --------------------------------------------------------------------------------------------
# 5. external_data: MLP whose initializers all live in weights.bin
# --------------------------------------------------------------------------------------------

def make_external_data():
    name = "external_data"
    torch.manual_seed(5)
    gen = torch.Generator().manual_seed(505)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 8)).eval()
    x = torch.randn(1, 16, generator=gen)
    with torch.no_grad():
        y = model(x)
        proto = export(model, (x,), opset_version=13, input_names=["input"],
                       output_names=["output"])
    model_dir = fresh_dir(name)
    # size_threshold=0 moves every initializer (even the 8-float bias) out of the proto.
    onnx.save_model(proto, os.path.join(model_dir, "model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    saved = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    assert saved.graph.initializer
    for init in saved.graph.initializer:
        keys = {e.key for e in init.external_data}
        assert init.data_location == onnx.TensorProto.EXTERNAL and \
            {"location", "offset", "length"} <= keys, (init.name, keys)
    write_test_data(model_dir, proto.graph, [x], [y])
    return name, 13


# --------------------------------------------------------------------------------------------

# --------------------------------------------------------------------------------------------
# 6. decoder_deep: a 24-layer causal decoder (RMSNorm, rotary positions, SwiGLU, finfo.min mask)
# --------------------------------------------------------------------------------------------
# Deep enough that fp32 rounding accumulates as it does in a real LLM, small enough to run in a
# test: comparisons must call its fp32 error equivalent and its fp16 error drift, not bugs.

class RmsNorm(nn.Module):
    def __init__(self, d, generator):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d).uniform_(0.5, 1.5, generator=generator))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat((-t[..., half:], t[..., :half]), dim=-1)


class DecoderLayer(nn.Module):
    def __init__(self, d, n_heads, d_ff, max_len, generator):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, d // n_heads
        self.input_norm = RmsNorm(d, generator)
        self.q_proj, self.k_proj = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        self.v_proj, self.o_proj = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        self.post_norm = RmsNorm(d, generator)
        self.gate_proj, self.up_proj = nn.Linear(d, d_ff, bias=False), nn.Linear(d, d_ff, bias=False)
        self.down_proj = nn.Linear(d_ff, d, bias=False)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        angles = torch.outer(torch.arange(max_len).float(), inv_freq)
        self.register_buffer("cos", torch.cat((angles, angles), -1).cos())
        self.register_buffer("sin", torch.cat((angles, angles), -1).sin())

    def attention(self, x):
        b, s, d = x.shape

        def heads(t):
            return t.reshape(b, s, self.n_heads, self.head_dim).transpose(1, 2)

        q, k, v = heads(self.q_proj(x)), heads(self.k_proj(x)), heads(self.v_proj(x))
        cos, sin = self.cos[:s], self.sin[:s]
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        causal = torch.ones(s, s, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(causal, torch.finfo(torch.float32).min)
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.o_proj(ctx.transpose(1, 2).reshape(b, s, d))

    def forward(self, x):
        x = x + self.attention(self.input_norm(x))
        h = self.post_norm(x)
        return x + self.down_proj(nn.functional.silu(self.gate_proj(h)) * self.up_proj(h))


class Decoder(nn.Module):
    def __init__(self, generator, n_layers=24, d=32, n_heads=4, d_ff=64, vocab=64, max_len=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(DecoderLayer(d, n_heads, d_ff, max_len, generator) for _ in range(n_layers))
        self.norm = RmsNorm(d, generator)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids):
        x = self.embed(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def make_decoder_deep():
    name = "decoder_deep"
    torch.manual_seed(6)
    gen = torch.Generator().manual_seed(606)
    model = Decoder(gen).eval()
    with torch.no_grad():  # a residual stream that grows to ~30 and logits of ~±15, as in real LLMs
        for layer in model.layers:
            layer.o_proj.weight.mul_(8)
            layer.down_proj.weight.mul_(8)
        model.lm_head.weight.mul_(8)
    ids = [torch.randint(0, 64, (1, 12), generator=gen), torch.randint(0, 64, (1, 7), generator=gen)]
    with torch.no_grad():
        logits = [model(i) for i in ids]
        proto = export(model, (ids[0],), opset_version=17, input_names=["input_ids"], output_names=["logits"],
                       dynamic_axes={"input_ids": {1: "sequence"}, "logits": {1: "sequence"}})
    hist = op_histogram(proto.graph)
    assert hist["Softmax"] == 24 and hist["Where"] >= 24, hist
    model_dir = fresh_dir(name)
    onnx.save(proto, os.path.join(model_dir, "model.onnx"))
    for i, (x, y) in enumerate(zip(ids, logits)):
        write_test_data(model_dir, proto.graph, [x], [y], index=i)
    return name, 17


GENERATORS = {
    "cnn_bn": make_cnn_bn,
    "transformer_opset14": lambda: make_transformer(14),
    "transformer_opset17": lambda: make_transformer(17),
    "control_flow": make_control_flow,
    "external_data": make_external_data,
    "decoder_deep": make_decoder_deep,
}


# The GUI's bundled sample (resources/samples/mini_encoder) is this fixture's model and first test set;
# tst_Resources checks the two stay byte-identical.
SAMPLE_FIXTURE = "transformer_opset14"
SAMPLE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "samples", "mini_encoder")


def refresh_sample():
    src = os.path.join(MODELS_DIR, SAMPLE_FIXTURE)
    shutil.rmtree(SAMPLE_DIR, ignore_errors=True)
    os.makedirs(SAMPLE_DIR)
    shutil.copy2(os.path.join(src, "model.onnx"), SAMPLE_DIR)
    shutil.copytree(os.path.join(src, "test_data_set_0"), os.path.join(SAMPLE_DIR, "test_data_set_0"))
    print(f"refreshed the bundled sample in {os.path.normpath(SAMPLE_DIR)}")


def main(argv):
    names = argv or list(GENERATORS)
    unknown = [n for n in names if n not in GENERATORS]
    if unknown:
        sys.exit(f"unknown fixture(s): {', '.join(unknown)}; choose from {', '.join(GENERATORS)}")
    print(f"torch {torch.__version__}, onnx {onnx.__version__}, writing to {MODELS_DIR}")
    os.makedirs(MODELS_DIR, exist_ok=True)
    for n in names:
        print(f"[{n}]")
        check_and_summarize(*GENERATORS[n]())
    if SAMPLE_FIXTURE in names:
        refresh_sample()


if __name__ == "__main__":
    main(sys.argv[1:])
