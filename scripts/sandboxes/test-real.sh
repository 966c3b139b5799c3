#!/usr/bin/env bash
# The worker against the REAL sandbox servers: gets their pinned sources (sources.sh: SANDBOX_SOURCES,
# ../shared/sandboxes, or a download, each checked against its SHA-256 pin), tests that getting
# (test-sources.sh), sets up (once per machine, in the shared cache) and starts codeapi (production
# JWT auth) and LibreCodeInterpreter (API key), runs tests/real/ through the worker in workerd against
# each, and stops them again, whatever the tests did.
#
#   scripts/sandboxes/test-real.sh [codeapi] [librecodeinterpreter]     (default: both)
#
# A fresh machine spends about 10 minutes on the first setup (apt packages, NsJail, Bun, each server's
# dependencies; CONTRIBUTING "The real sandbox servers"); afterwards setup is a few stamp checks and
# each server starts in seconds. Any checkout works (under /tmp, inside a mode-0700 home): what the
# jails read lives in the shared cache (common.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib.sh"
cd "$ROOT"

servers=("$@")
[ "${#servers[@]}" -gt 0 ] || servers=(codeapi librecodeinterpreter)
started=()
stop_all() {
  local s
  for s in "${started[@]}"; do scripts/sandboxes/"$s".sh stop || true; done
}
trap stop_all EXIT

for s in "${servers[@]}"; do
  case "$s" in
    codeapi | librecodeinterpreter) ;;
    *) die "unknown server: $s (codeapi or librecodeinterpreter)" ;;
  esac
done

# Before anything slow: the sources, or one line saying how to provide them.
scripts/sandboxes/sources.sh
# The download path (a local server standing in for GitHub, a corrupted archive, no way to any source).
scripts/sandboxes/test-sources.sh
# The tests import the worker's modules, which import jose from the worker's own node_modules: a fresh
# clone has none until the e2e harness installs it, and forward-batch.test.mjs runs first.
node --input-type=module -e 'const m = await import("./worker/serve.mjs"); m.ensureWorkerDeps();'

for s in "${servers[@]}"; do
  log "scripts/sandboxes/$s.sh setup"
  scripts/sandboxes/"$s".sh setup
  log "scripts/sandboxes/$s.sh start"
  started+=("$s")
  scripts/sandboxes/"$s".sh start
  # The server itself first, without the worker: a failure here is the server's set-up, not ours.
  case "$s" in
    codeapi) node scripts/sandboxes/smoke-codeapi.mjs --quiet ;;
    librecodeinterpreter) node scripts/sandboxes/smoke-lci.mjs ;;
  esac
done

CSG_REAL_SANDBOXES="$(IFS=,; echo "${servers[*]}")" node --test --test-concurrency=1 tests/real/
