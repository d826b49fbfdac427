#!/usr/bin/env bash
# Regenerates tests/data/conformance (opsets 18–26, expected outputs from ONNX Runtime 1.30).
# Installs onnxruntime-node into benchmarks/.cache (pinned, no install scripts) and the Python side
# (python3-onnx, python3-numpy) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null; then
  sudo_cmd=(); [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends python3-onnx python3-numpy
fi
source benchmarks/ort_install.sh
export NODE_PATH="$cache/node_modules"
export PORTOLAN_ORT_RUNNER="node $root/scripts/external/onnxruntime-node.js"
PORTOLAN_ORT_LEVEL=disabled /usr/bin/python3 tests/data/conformance/generate.py "$@"
