#!/usr/bin/env bash
# Optimizer speed on a synthetic 100k-node model: Portolan's -O2 per pass, and ONNX Runtime 1.30's
# session creation at 'all' minus at 'disabled' (its optimizer's cost) on the same file.
# Usage: benchmarks/optimize_speed/run.sh   (needs scripts/build.sh done and npm)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/../ort_install.sh"
"$root/build/benchmarks/bench_optimize" --write "$cache/synthetic_100k.onnx"
NODE_PATH="$cache/node_modules" node "$here/ort_session_time.js" "$cache/synthetic_100k.onnx"
