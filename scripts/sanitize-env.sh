# Shared by scripts/sanitize.sh and scripts/fuzz.sh (sourced, not run): installs clang and its
# sanitizer and OpenMP runtimes when missing, then configures build-sanitize/ — one clang folder with
# ASan+UBSan (PORTOLAN_SANITIZE) and the libFuzzer targets (PORTOLAN_FUZZ), no GUI, CUDA or benchmarks.
# PORTOLAN_SANITIZE_BUILD_TYPE picks the build type (default Debug: -O0 -g with assertions on; an
# ASan -O2 build of the core takes about three times as long on a 2-core machine).

portolan_sanitize_dir=build-sanitize

portolan_sanitize_setup() {
  scripts/install-deps.sh --sanitize
  # A configure that failed leaves a cache but no build.ninja: configure again then.
  if [[ ! -f $portolan_sanitize_dir/CMakeCache.txt || ! -f $portolan_sanitize_dir/build.ninja ]]; then
    CC=clang CXX=clang++ cmake -S . -B "$portolan_sanitize_dir" -G Ninja \
      -DCMAKE_BUILD_TYPE="${PORTOLAN_SANITIZE_BUILD_TYPE:-Debug}" \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DPORTOLAN_SANITIZE=ON -DPORTOLAN_FUZZ=ON \
      -DPORTOLAN_BUILD_GUI=OFF -DPORTOLAN_WITH_CUDA=OFF -DPORTOLAN_BUILD_BENCHMARKS=OFF
  fi
}

# Sanitizer settings for everything run from build-sanitize/: stop at the first UBSan report with a
# stack; ASan aborts on its first report anyway.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$(pwd)/scripts/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export QT_QPA_PLATFORM=offscreen
# The tests' waits for a portolan process (tests/support/CliSupport.cpp) stretch by this factor.
export PORTOLAN_TEST_TIME_SCALE="${PORTOLAN_TEST_TIME_SCALE:-5}"
