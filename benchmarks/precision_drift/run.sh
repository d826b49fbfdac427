#!/usr/bin/env bash
# Drift and latency of the compiled CPU executor's precision policies against its own fp32 run on
# the same input: max |error| over the output's max |value|, cosine similarity, top-1 agreement
# (rows of the last axis), and median latency. int8 calibrates (percentile:99.99) on the model's
# eight calibration batches, which are other seeds than the measured input.
# Usage: benchmarks/precision_drift/run.sh [model…]   (default: resnet18 mobilenet_v2 bert_encoder)
# Needs: scripts/build.sh done, python3-torch/torchvision (scripts/install-deps.sh --fixtures).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/benchmarks/.cache"
models=("$@")
((${#models[@]})) || models=(resnet18 mobilenet_v2 bert_encoder)
/usr/bin/python3 "$root/benchmarks/export_models.py" "$cache/models" "${models[@]}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

printf '%-14s %-5s %12s %10s %10s %8s %12s\n' model prec drift cosine top1_agree ms calibration
for m in "${models[@]}"; do
  dir="$cache/models/$m"
  mkdir -p "$out/$m"
  for p in fp32 fp16 bf16 int8; do
    extra=()
    [[ $p == int8 ]] && extra=(--calibration "$dir/calibration")
    "$root/build/app/portolan" run "$dir/model.onnx" --executor cpu --inputs "$dir/test_data_set_0" --precision "$p" \
      "${extra[@]}" --repeat 5 --warmup 1 --output-dir "$out/$m/$p" --force --json > "$out/$m/$p.json"
  done
  /usr/bin/python3 - "$out/$m" "$m" <<'PY'
import json, sys
import numpy as np
from onnx import TensorProto, numpy_helper
base, name = sys.argv[1], sys.argv[2]
def load(p):
    t = TensorProto()
    t.ParseFromString(open(f"{base}/{p}/output_0.pb", "rb").read())
    return numpy_helper.to_array(t).astype(np.float64)
ref = load("fp32")
for p in ["fp32", "fp16", "bf16", "int8"]:
    y = load(p)
    r = json.load(open(f"{base}/{p}.json"))
    drift = np.abs(y - ref).max() / max(np.abs(ref).max(), 1e-30)
    cos = float((y * ref).sum() / max(np.linalg.norm(y) * np.linalg.norm(ref), 1e-30))
    top1 = float((y.reshape(-1, y.shape[-1]).argmax(-1) == ref.reshape(-1, ref.shape[-1]).argmax(-1)).mean())
    cal = r.get("precision", {}).get("calibration", {}).get("method", "-")
    print("%-14s %-5s %12.3g %10.6f %10.3f %8.2f %12s" % (name, p, drift, cos, top1, r["latency_ms"]["median"], cal))
PY
done
echo "drift = max |y - y_fp32| / max |y_fp32|; top1_agree = share of rows whose argmax matches fp32's"
