#!/usr/bin/env bash
# Fusion coverage against ONNX Runtime 1.30's 'all' optimization level, on the same exported models.
# Usage: benchmarks/fusion_coverage/run.sh [model…]
#        (default: resnet18_bn mobilenet_v2 vit_b_16 bert_encoder gpt_block, plus the opset-14 fixture)
# Needs: scripts/build.sh done, python3-torch/torchvision (scripts/install-deps.sh --fixtures), npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../ort_install.sh"
mkdir -p "$cache/fusion"
models=("$@")
((${#models[@]})) || models=(resnet18_bn mobilenet_v2 vit_b_16 bert_encoder gpt_block transformer_opset14)
status=0
for m in "${models[@]}"; do
  if [[ $m == transformer_opset14 ]]; then
    model="$root/tests/data/models/$m/model.onnx"
  else
    /usr/bin/python3 "$here/../export_models.py" "$cache/models" "$m" >/dev/null 2>&1
    model="$cache/models/$m/model.onnx"
  fi
  echo "== $m"
  NODE_PATH="$cache/node_modules" node "$here/ort_optimize.js" "$model" "$cache/fusion/$m.ort.onnx"
  "$root/build/app/portolan" optimize "$model" -O2 -o "$cache/fusion/$m.portolan.onnx" --force >/dev/null
  /usr/bin/python3 "$here/histograms.py" "$model" "$cache/fusion/$m.ort.onnx" "$cache/fusion/$m.portolan.onnx" || status=1
done
exit $status
