#!/usr/bin/env python3
"""The attention peer of bench_cuda: PyTorch's scaled_dot_product_attention on the same shape
(batch 8, 12 heads, 512 tokens, head dim 64), fp32, fp16 and bf16, median GPU milliseconds of 20 runs
after 5 warm-ups (CUDA events). Prints one line per precision, as bench_cuda does."""
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("sdpa_peer: no PyTorch here", file=sys.stderr)
    sys.exit(2)

if not torch.cuda.is_available():
    print("sdpa_peer: PyTorch sees no GPU", file=sys.stderr)
    sys.exit(2)

for name, dtype in (("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16)):
    q, k, v = (torch.randn(8, 12, 512, 64, device="cuda", dtype=dtype) for _ in range(3))
    for _ in range(5):
        F.scaled_dot_product_attention(q, k, v, scale=0.125)
    times = []
    for _ in range(20):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        F.scaled_dot_product_attention(q, k, v, scale=0.125)
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    print(f"{'torch sdpa B8 H12 S512 D64':<26} {name:<5} {times[len(times) // 2]:10.3f}")
