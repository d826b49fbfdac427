#!/usr/bin/env bash
# Reference interpreter speed against ONNX Runtime 1.30 (CPU, 2 threads, batch 1), in the same run.
# Usage: benchmarks/reference_speed/run.sh [model…]   (default: resnet18 mobilenet_v2 vit_b_16)
# Needs: scripts/build.sh done, python3-torch/torchvision (scripts/install-deps.sh --fixtures), npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../ort_install.sh"
models=("$@")
((${#models[@]})) || models=(resnet18 mobilenet_v2 vit_b_16)
/usr/bin/python3 "$here/../export_models.py" "$cache/models" "${models[@]}"

printf '%-14s %14s %14s %14s %10s %10s\n' model portolan_ms ort_noopt_ms ort_all_ms vs_noopt vs_all
for m in "${models[@]}"; do
  dir="$cache/models/$m"
  ours=$("$root/build/app/portolan" run "$dir/model.onnx" --inputs "$dir/test_data_set_0" --repeat 3 --warmup 1 --json |
         /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["latency_ms"]["median"])')
  noopt=$(NODE_PATH="$cache/node_modules" node "$here/ort_time.js" "$dir/model.onnx" "$dir/test_data_set_0/input_0.pb" disabled 10 |
          /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])')
  all=$(NODE_PATH="$cache/node_modules" node "$here/ort_time.js" "$dir/model.onnx" "$dir/test_data_set_0/input_0.pb" all 10 |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])')
  /usr/bin/python3 -c "print('%-14s %14.1f %14.1f %14.1f %9.2fx %9.2fx' % ('$m', $ours, $noopt, $all, $ours/$noopt, $ours/$all))"
done
echo "ratio = Portolan reference interpreter latency / ONNX Runtime latency (target: vs_noopt <= 5x)"
