#!/usr/bin/env bash
# Fills a seed folder for fuzz_load_model: the ONNX backend suite's node models (Debian's
# libonnx-testdata), the test fixtures and the hostile files. A copy in the build folder, never committed.
# Usage: scripts/fuzz-seeds.sh DEST
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: scripts/fuzz-seeds.sh DEST}
mkdir -p "$dest"
count=0
for model in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
  [[ -f $model ]] || continue
  cp -f "$model" "$dest/node-$(basename "$(dirname "$model")").onnx"
  count=$((count + 1))
done
for model in tests/data/models/*/model.onnx; do
  [[ -f $model ]] || continue
  cp -f "$model" "$dest/fixture-$(basename "$(dirname "$model")").onnx"
  count=$((count + 1))
done
for model in tests/data/hostile/*.onnx tests/data/hostile/fuzz/*.onnx; do
  [[ -f $model ]] || continue
  cp -f "$model" "$dest/hostile-$(basename "$model")"
  count=$((count + 1))
done
echo "fuzz-seeds: $count seeds in $dest"
