#!/usr/bin/env bash
# Installs what is missing, then configures and builds Portolan into build/ (incremental).
# Usage: scripts/build.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
if [[ ! -f build/build.ninja ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
elif (($# > 0)); then
  cmake -S . -B build "$@"
fi
cmake --build build -j"${PORTOLAN_JOBS:-2}"
