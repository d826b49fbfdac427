#!/usr/bin/env bash
# Builds the CLI and the tests with AddressSanitizer + UndefinedBehaviorSanitizer (clang, build-sanitize/)
# and runs the unit, passes and e2e tests there. Exits non-zero when a test fails or a sanitizer reports.
# Usage: scripts/sanitize.sh [extra ctest arguments, e.g. -R tst_MutatedModels]
#        (PORTOLAN_JOBS sets the parallelism, default 2; PORTOLAN_TEST_TIMEOUT the limit in seconds for
#        tests without a TIMEOUT property — the ones tests/CMakeLists.txt adds keep its 300 s)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitize-env.sh

portolan_sanitize_setup
jobs="${PORTOLAN_JOBS:-2}"
cmake --build "$portolan_sanitize_dir" -j"$jobs"

cd "$portolan_sanitize_dir"
status=0
ctest -L 'unit|passes|e2e' --output-on-failure -j"$jobs" --timeout "${PORTOLAN_TEST_TIMEOUT:-1800}" "$@" || status=$?
if ((status != 0)); then
  echo "sanitize: failures above (sanitizer reports start with '==<pid>==ERROR' or 'runtime error:')." >&2
fi
exit $status
