#!/usr/bin/env bash
# The README's test command: set-up, build, and the whole test suite (no display or GPU needed).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build.sh
cd build
status=0
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"${PORTOLAN_JOBS:-$(nproc)}" "$@" || status=$?
# The figures tests report about the corpora (counts of models inspected, conformance totals).
if [[ -f Testing/Temporary/LastTest.log ]]; then
  grep -h '^QINFO' Testing/Temporary/LastTest.log | sed 's/^QINFO *: */  /' || true
fi
exit $status
