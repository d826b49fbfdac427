#!/usr/bin/env bash
# The README's test command: set-up, build, and the whole test suite (no display or GPU needed).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build.sh
cd build
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"${PORTOLAN_JOBS:-2}" "$@"
