#!/usr/bin/env bash
# Installs what is missing, then configures and builds Portolan into build/ (incremental).
# Usage: scripts/build.sh [extra cmake -D options]   (PORTOLAN_JOBS sets the parallelism, default: cores)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# A configure that failed leaves a cache but no build.ninja: configure again then.
if [[ ! -f build/CMakeCache.txt || ! -f build/build.ninja ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
elif (($# > 0)); then
  cmake -S . -B build "$@" # keeps the generator the folder was configured with
fi
cmake --build build -j"${PORTOLAN_JOBS:-$(nproc)}"
