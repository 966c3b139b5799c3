#!/usr/bin/env bash
# The main command: installs what is missing, builds the npm package into pkg/, then runs the demo
# (www/demo/replay.mjs) when it exists; otherwise says where the package is.
#
#   scripts/run.sh [arguments for the demo]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

scripts/setup.sh
scripts/build.sh

if [ -f www/demo/replay.mjs ]; then
  log "node www/demo/replay.mjs $*"
  exec node www/demo/replay.mjs "$@"
fi
log "built the npm package code-session-gate into $ROOT/pkg"
note "use it from another project: npm install $ROOT/pkg"
note "or pack it: npm pack $ROOT/pkg"
