#!/usr/bin/env bash
# The main command: installs what is missing, builds the npm package into pkg/, then starts the local
# sandbox and the edge worker (workerd) on 127.0.0.1, replays the seed scenario through them over HTTP,
# prints the timeline and keeps serving (examples/demo.mjs).
#
#   [WORKER_AUTH_SECRET=…] scripts/run.sh [--once] [--dialect codeapi|librecodeinterpreter] [--port N]
#
# The worker authenticates its callers with WORKER_AUTH_SECRET (HS256): taken from the environment, or
# made for this run. The run prints a token for the demo user; the replay and the devtools page use it.
#
# --once: replay and exit 0 when the scenario behaved as expected.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

scripts/setup.sh
scripts/build.sh

log "node examples/demo.mjs $*"
exec node examples/demo.mjs "$@"
