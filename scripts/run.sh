#!/usr/bin/env bash
# The README's first command: set-up, build, and open the workbench on the bundled sample model.
# Extra arguments go to portolan (a model path, or a command such as `inspect MODEL`); relative
# paths are taken from the folder you run it in.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

"$root/scripts/build.sh"
exec "$root/build/app/portolan" "$@"
