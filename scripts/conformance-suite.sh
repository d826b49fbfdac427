#!/usr/bin/env bash
# Regenerates tests/data/conformance (opsets 18–26, expected outputs from ONNX Runtime 1.30).
# Installs onnxruntime-node into benchmarks/.cache (pinned, no install scripts) and the Python side
# (scripts/install-deps.sh --conformance) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --conformance
source benchmarks/ort_install.sh
export NODE_PATH="$cache/node_modules"
export PORTOLAN_ORT_RUNNER="node $root/scripts/external/onnxruntime-node.js"
PORTOLAN_ORT_LEVEL=disabled /usr/bin/python3 tests/data/conformance/generate.py "$@"
