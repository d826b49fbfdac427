# Sourced by the benchmark scripts: sets $root and $cache and installs onnxruntime-node 1.30 into the
# cache once (its install script downloads extra binaries; the CPU build ships in the package itself).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/benchmarks/.cache"
mkdir -p "$cache"
if [[ ! -d "$cache/node_modules/onnxruntime-node" ]]; then
  (cd "$cache" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0 >/dev/null)
fi
