#!/usr/bin/python3
"""Prints the op histograms of a model before optimization, after ONNX Runtime's 'all' level and after
Portolan's -O2, side by side, and says which fusions ORT made that Portolan did not.

Usage: histograms.py ORIGINAL.onnx ORT.onnx PORTOLAN.onnx
"""
import collections
import sys

import onnx


# ORT's NCHWc layout transform renames ops without fusing anything (its Conv there also absorbs
# activations and Sum, which the remaining counts show) and adds reorders: count those as the plain
# op, and the reorders not at all.
LAYOUT_DOMAIN = "com.microsoft.nchwc"
LAYOUT_ONLY = {"ReorderInput", "ReorderOutput"}


def histogram(path):
    model = onnx.load(path, load_external_data=False)
    ops = collections.Counter()
    for n in model.graph.node:
        if n.domain == LAYOUT_DOMAIN:
            if n.op_type not in LAYOUT_ONLY:
                ops[n.op_type] += 1
            continue
        ops[(n.domain + "::" if n.domain not in ("", "ai.onnx") else "") + n.op_type] += 1
    return ops


original, ort, ours = (histogram(p) for p in sys.argv[1:4])
ops = sorted(set(original) | set(ort) | set(ours))
print(f"  {'op':<40} {'original':>9} {'ORT all':>9} {'Portolan':>9}")
for op in ops:
    print(f"  {op:<40} {original[op]:>9} {ort[op]:>9} {ours[op]:>9}")
print(f"  {'nodes':<40} {sum(original.values()):>9} {sum(ort.values()):>9} {sum(ours.values()):>9}")
# An op ORT reduced (fused away) that Portolan left at a higher count is a fusion we miss. Constant and
# layout ops are ignored: ORT's saved model keeps initializers differently.
ignored = {"Constant", "Identity"}
missed = [op for op in original if op not in ignored and ort[op] < original[op] and ours[op] > ort[op]]
print("  missed vs ORT: " + (", ".join(f"{op} ({ours[op]} left, ORT {ort[op]})" for op in missed) or "none"))
sys.exit(1 if missed else 0)
