#!/usr/bin/env bash
# The README's first command: set-up, build, and open the workbench on the bundled sample model.
# Extra arguments go to portolan (a model path, or a command such as `inspect MODEL`).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build.sh
exec build/app/portolan "$@"
