#!/usr/bin/env bash
# Builds one libFuzzer target in build-sanitize/ (clang, ASan+UBSan) and fuzzes it for SECONDS.
# Usage: scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags]
#   TARGET: fuzz_load_model | fuzz_run_graph (tests/fuzz/)
# The corpus grows in build-sanitize/fuzz/corpus-TARGET (kept between runs); crashing inputs land in
# build-sanitize/fuzz/crashes-TARGET/; the log in build-sanitize/fuzz/TARGET.log.
# PORTOLAN_FUZZ_KEEP_GOING=1 fuzzes on past crashes (libFuzzer's fork mode) instead of stopping.
# Reproduce a crash: build-sanitize/tests/fuzz/TARGET build-sanitize/fuzz/crashes-TARGET/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# < 2)); then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags]" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
case "$target" in
  fuzz_load_model|fuzz_run_graph) ;;
  *) echo "fuzz.sh: unknown target '$target' (fuzz_load_model, fuzz_run_graph)" >&2; exit 2 ;;
esac
source scripts/sanitize-env.sh

portolan_sanitize_setup
cmake --build "$portolan_sanitize_dir" -j"${PORTOLAN_JOBS:-2}" --target "$target"

work="$portolan_sanitize_dir/fuzz"
corpus="$work/corpus-$target" crashes="$work/crashes-$target" log="$work/$target.log"
mkdir -p "$corpus" "$crashes"
inputs=("$corpus")
if [[ $target == fuzz_load_model ]]; then
  scripts/fuzz-seeds.sh "$work/seeds-models" # ONNX files; fuzz_run_graph's bytes are no model, it starts empty
  inputs+=("$work/seeds-models")
fi

flags=(
  -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -malloc_limit_mb=2048
  -artifact_prefix="$crashes/" -print_final_stats=1
)
# The ONNX backend models reach a few hundred KiB: fuzz inputs as long as the seeds.
if [[ $target == fuzz_load_model ]]; then
  flags+=(-max_len=1048576 -dict=tests/fuzz/onnx.dict)
else
  # Its inputs are drawn from, not parsed: let them be long from the start.
  flags+=(-max_len=1024 -len_control=0)
fi
if [[ ${PORTOLAN_FUZZ_KEEP_GOING:-0} == 1 ]]; then
  flags+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
# Leaks are for scripts/sanitize.sh to find: with leak detection on, libFuzzer re-runs every input
# whose mallocs and frees do not balance (the kernels' caches) and counts a leak as a crash.
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

status=0
"$portolan_sanitize_dir/tests/fuzz/$target" "${flags[@]}" "$@" "${inputs[@]}" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}

echo
echo "== $target, $seconds s =="
grep -E '^#[0-9]+' "$log" | tail -1 || true # the last status line: execs, cov, ft, corpus
grep -E '^Done [0-9]+ runs|^stat::number_of_executed_units|^stat::peak_rss_mb|^stat::new_units_added' "$log" || true
for kind in crash leak timeout oom slow-unit; do
  found=$(find "$crashes" -type f -name "$kind-*" | wc -l)
  ((found == 0)) || echo "$kind files in $crashes: $found"
done
exit $status
