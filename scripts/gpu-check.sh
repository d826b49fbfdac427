#!/usr/bin/env bash
# Everything GPU-side, in one run, results in one folder: the device, the CUDA test programs, the
# CUDA executor against the reference interpreter on the fixture models (a run with --stats, then a
# tensor-by-tensor comparison at fp32, fp16 and bf16, and int8 against the CPU executor's int8),
# and the kernel benchmarks with their PyTorch peer. Meant for a GPU machine with CUDA but perhaps nothing else of
# Portolan's dependencies: it uses gpu-bundle/ (scripts/gpu-bundle.sh, made on the build machine and
# carried along) when there is one, else build/ (a normal build on this machine).
#
# Usage: scripts/gpu-check.sh [RESULTS_DIR]      (default: gpu-results/DATE; $OUT when set)
# RESULTS_DIR gets summary.txt (a line per step), bench.txt (the benchmarks' figures) and
# logs.tar.gz (every step's log and the test reports; few files, as the device tool returns at
# most eight). Exit status: 0 when every step passed, 1 when one failed (each step's log says
# which), 2 when there is nothing to run.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

results=${1:-${OUT:-gpu-results/$(date -u +%Y%m%d-%H%M%S)}}
logs="$results/logs"
mkdir -p "$logs"
summary="$results/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

python_library_path=${LD_LIBRARY_PATH:-} # PyTorch loads its own C++ runtime, not the bundle's older one
if [[ -f gpu-bundle.tar.xz ]]; then # the carried bundle, never an older one unpacked before
  rm -rf gpu-bundle && tar -xJf gpu-bundle.tar.xz
fi
if [[ -x gpu-bundle/bin/portolan ]]; then
  bin=gpu-bundle/bin
  tests=gpu-bundle/bin
  benches=gpu-bundle/bin
  export LD_LIBRARY_PATH="$root/gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  revision=$(cat gpu-bundle/REVISION 2>/dev/null || echo unknown)
  say "programs: gpu-bundle (revision $revision)"
  head=$(git rev-parse --short HEAD 2>/dev/null) && [[ $revision != "$head"* ]] &&
    say "WARNING: the bundle was built at $revision, the tree is at $head: run scripts/gpu-bundle.sh again"
elif [[ -x build/app/portolan ]]; then
  bin=build/app
  tests=build/tests
  benches=build/benchmarks
  say "programs: build/ ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
else
  say "gpu-check: neither gpu-bundle/ (scripts/gpu-bundle.sh) nor build/ (scripts/build.sh) holds portolan"
  exit 2
fi
# CUDA's libraries from the machine (the bundle leaves them out: they must match its driver): the
# toolkit's folders, and where Python's CUDA wheels keep cuBLAS and cuDNN (a PyTorch machine may
# have cuDNN nowhere else)
add_library_dir() { [[ -d $1 ]] && export LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; }
for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  add_library_dir "$dir"
done
if site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2> /dev/null) && [[ -d $site/nvidia ]]; then
  for lib in 'libcublasLt.so.*' 'libcudnn.so.*'; do
    add_library_dir "$(find "$site/nvidia" -name "$lib" -printf '%h\n' 2> /dev/null | head -n 1)"
  done
fi
missing=$(ldd "$bin/portolan" 2> /dev/null | awk '/not found/ { print $1 }' | tr '\n' ' ')
[[ -n $missing ]] && say "WARNING: libraries not found: $missing"
export QT_QPA_PLATFORM=offscreen
# the test programs read the fixture models from this tree, wherever it was built
export PORTOLAN_FIXTURES_DIR="$root/tests/data/models"
export PYTHONUNBUFFERED=1

failed=0
# the whole check ends within GPU_CHECK_SECONDS (default 480): a step past it is skipped, one that
# would run over it is cut short, and logs.tar.gz is brought up to date after every step, so an
# outer time limit still finds what ran
deadline=$((SECONDS + ${GPU_CHECK_SECONDS:-480}))
# step NAME SECONDS COMMAND…: runs it with a time limit, its output in NAME.log, one line in the summary
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((deadline - SECONDS))
  if ((left <= 5)); then
    say "$(printf '%-40s %-18s' "$name" "skipped (no time)")"
    failed=1
    return
  fi
  ((limit > left)) && limit=$left
  local start=$SECONDS
  timeout "$limit" "$@" > "$logs/$name.log" 2>&1
  local status=$?
  local verdict=passed
  ((status == 0)) || { verdict="FAILED (exit $status)"; failed=1; }
  say "$(printf '%-40s %-18s %4ds' "$name" "$verdict" $((SECONDS - start)))"
  if ((status != 0)); then # the first reasons, so the summary alone says what to look at
    { grep -E -m 6 'FAIL!|error|Error|Loc:' "$logs/$name.log" || tail -n 4 "$logs/$name.log"; } | cut -c1-240 | sed 's/^/    /' |
      tee -a "$summary"
  fi
  tar -czf "$results/logs.tar.gz" -C "$results" logs
}

say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
if nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > "$logs/device.csv" 2> /dev/null; then
  say "device: $(head -n 1 "$logs/device.csv")"
else
  say "device: nvidia-smi is not available"
fi

for t in tst_CudaDevices tst_CudaLaunch tst_CudaKernelPlans tst_CudaExecutor; do
  step "$t" 300 "$tests/$t"
done

for model in tests/data/models/*/model.onnx; do
  name=$(basename "$(dirname "$model")")
  step "run-cuda-$name" 120 "$bin/portolan" run "$model" --executor cuda --stats --inputs "$(dirname "$model")/test_data_set_0"
  for b in cuda cuda:fp16 cuda:bf16; do
    step "compare-${b/:/-}-$name" 180 "$bin/portolan" compare "$model" --a reference --b "$b" \
      --inputs "$(dirname "$model")/test_data_set_0" --json
  done
done

# --keep-fp32 on the GPU: the transformer's normalizations at fp32 under fp16, each node's precision in the profile
transformer=tests/data/models/transformer_opset17
step run-cuda-fp16-keep-normalization 120 "$bin/portolan" run "$transformer/model.onnx" --executor cuda:fp16 \
  --keep-fp32 group:normalization --stats --inputs "$transformer/test_data_set_0"

# int8 on the GPU against the CPU executor's int8, calibrated once on the fixture's own input sets
for name in cnn_bn transformer_opset17; do
  dir=tests/data/models/$name
  step "run-cuda-int8-$name" 120 "$bin/portolan" run "$dir/model.onnx" --executor cuda:int8 --calibration "$dir" --stats \
    --inputs "$dir/test_data_set_0"
  step "compare-cpu-int8-cuda-int8-$name" 180 "$bin/portolan" compare "$dir/model.onnx" --a cpu:int8 --b cuda:int8 \
    --calibration "$dir" --inputs "$dir/test_data_set_0" --json
done

# the kernels against the device, and PyTorch's attention on the same shape when it is here
step bench_cuda 300 "$benches/bench_cuda"
if command -v python3 > /dev/null; then
  # Python with the machine's own library path; portolan, which e2e_peer starts, through a wrapper
  # that gives it the bundle's
  portolan_wrapper=$(mktemp)
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$LD_LIBRARY_PATH" "$root/$bin/portolan" > "$portolan_wrapper"
  chmod +x "$portolan_wrapper"
  step sdpa_peer 120 env LD_LIBRARY_PATH="$python_library_path" python3 benchmarks/cuda/sdpa_peer.py
  step e2e_peer 420 env LD_LIBRARY_PATH="$python_library_path" python3 benchmarks/cuda/e2e_peer.py "$portolan_wrapper" "$(mktemp -d)"
fi

# ONNX's node tests on the GPU against their expected outputs (the CPU executor's run is docs/conformance-cpu.md)
if [[ -d gpu-bundle/onnx-node ]]; then
  step conform-cuda 150 "$bin/portolan" conform --executor cuda gpu-bundle/onnx-node --markdown "$results/conformance-cuda.md"
fi

cat "$logs/bench_cuda.log" "$logs/sdpa_peer.log" "$logs/e2e_peer.log" > "$results/bench.txt" 2> /dev/null
tar -czf "$results/logs.tar.gz" -C "$results" logs && rm -rf "$logs"
say "results in $results: summary.txt, bench.txt, logs.tar.gz"
exit $failed
