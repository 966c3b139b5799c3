#!/usr/bin/env bash
# THE test command: installs what is missing (scripts/setup.sh), builds pkg/ (scripts/build.sh),
# then runs every check in order and stops at the first failure (or, with --keep-going, runs them all
# and reports every failure). Prints a summary with the time of each step.
#
#   scripts/test.sh [--keep-going]
#
# Steps: setup, build, cargo fmt --check, cargo clippy, cargo test (native), the wasm-bindgen-test
# suites in Node and in headless Chromium, tests/conformance/run (shared and own vectors), the same
# vectors inside headless Chromium and Firefox (wasm-pack test --headless), node --test
# tests/js/, check-sdk against cached SDK releases (tests/check-sdk/), tsc on tests/types (also with lib es2022 alone) and checkJs on packages/code-session-gate, the packaging matrix (tests/packaging/),
# the worker's typed client, the local sandbox's tests, the edge worker end to end in workerd
# (tests/e2e/), the worker against the real sandbox servers (scripts/sandboxes/test-real.sh), the demo replay (examples/demo.mjs --once), the devtools page in headless Chromium
# (tests/devtools/), a 5-second fuzz smoke run of every target
# (scripts/fuzz-smoke.sh), the benchmark in quick mode (bench/run.mjs --quick, after bench/setup.sh
# installs the SDK it compares with), and the .wasm size (fails above its ceiling; budget reported).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

keep_going=0
for arg in "$@"; do
  case "$arg" in
    --keep-going) keep_going=1 ;;
    -h | --help)
      sed -n '2,15p' "$0"
      exit 0
      ;;
    *) die "unknown argument: $arg (try --help)" ;;
  esac
done

# Cargo's progress output is noise in CI logs; colours stay when a terminal is attached.
export CARGO_TERM_PROGRESS_WHEN=never

summary=()
failed=()
started_all=$SECONDS

# step NAME COMMAND...: runs COMMAND, records its result and duration.
step() {
  local name="$1"
  shift
  log "[$name] $*"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  local dt=$((SECONDS - t0))
  if [ "$rc" -eq 0 ]; then
    summary+=("$(printf '  ok      %-22s %4ds' "$name" "$dt")")
  else
    summary+=("$(printf '  FAILED  %-22s %4ds  (exit %d)' "$name" "$dt" "$rc")")
    failed+=("$name")
    printf '\033[31mFAILED: step "%s" (exit %d): %s\033[0m\n' "$name" "$rc" "$*" >&2
    if [ "$keep_going" -eq 0 ]; then finish; fi
  fi
}

skip() {
  summary+=("$(printf '  skipped %-22s        %s' "$1" "$2")")
  note "[$1] skipped: $2"
}

finish() {
  printf '\n\033[1m==> summary (%ds in all)\033[0m\n' "$((SECONDS - started_all))" >&2
  printf '%s\n' "${summary[@]}" >&2
  if [ "${#failed[@]}" -gt 0 ]; then
    printf '\033[31mtest.sh: FAILED: %s\033[0m\n' "${failed[*]}" >&2
    exit 1
  fi
  printf '\033[32mtest.sh: all checks passed\033[0m\n' >&2
  exit 0
}

# shellcheck disable=SC2317  # called through step()
wasm_test() {
  # wasm-bindgen-test-runner from wasm-bindgen-cli (same version as the crate); no `-q`: cargo would
  # forward it to the runner, which rejects it.
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    cargo test --target wasm32-unknown-unknown "$@"
}

# shellcheck disable=SC2317  # called through step()
wasm_test_browser() {
  # Debian's chromedriver finds /usr/bin/chromium itself; tests/webdriver.json adds the flags this
  # machine's closed network needs (no background networking, no component updates, ...).
  CHROMEDRIVER="$(command -v chromedriver)" \
    WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/tests/webdriver.json" \
    wasm_test "$@"
}

# shellcheck disable=SC2317  # called through step()
browser_conformance() {
  # Every shared and own vector through the wasm build inside a real browser, the way this crate's users
  # test: `wasm-pack test --headless` with Debian's drivers named explicitly (wasm-pack would otherwise
  # try to download its own), the closed-network flags of tests/webdriver.json.
  local browser="$1"
  local driver
  case "$browser" in
    chrome) driver=(--chromedriver "$(command -v chromedriver)") ;;
    firefox) driver=(--geckodriver "$(command -v geckodriver)") ;;
  esac
  # Run from the boundary crate, which holds the suite (wasm-pack takes a crate path or the current
  # folder, but not a path together with cargo's own arguments).
  (cd crates/wasm/boundary && WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/tests/webdriver.json" \
    wasm-pack test --headless "--$browser" "${driver[@]}" -- --test browser_conformance)
}

# The real servers' sources first (scripts/sandboxes/sources.sh): with no way to them, fail at once in
# one line rather than in the real-sandboxes step after every step before it.
step sandbox-sources scripts/sandboxes/sources.sh
step setup scripts/setup.sh
step build scripts/build.sh
step fmt cargo fmt --all --check
step clippy cargo clippy --workspace --all-targets -- -D warnings
step cargo-test cargo test --workspace
step wasm-node wasm_test -p code-session-gate-boundary --test node --test node_sandbox
step wasm-chromium wasm_test_browser -p code-session-gate-boundary --test web
step conformance tests/conformance/run
step conformance-chrome browser_conformance chrome
step conformance-firefox browser_conformance firefox
# Our own vectors (oracle-checked against the published SDK when written); pkg/ was built above.
step conformance-own env CSG_SKIP_BUILD=1 tests/conformance/run tests/conformance/vectors.json
step js-package node --test tests/js/
# code-session-gate-check-sdk, the packaged bin as a host's CI runs it: offline against the SDK releases
# scripts/setup.sh cached in .cache/check-sdk (3.6.15, 3.9.2); the shipped vectors, altered vectors,
# the devtools page's exported traces, broken releases and trace files.
step check-sdk node --test tests/check-sdk/
step types node_modules/.bin/tsc -p tests/types --noEmit
# The same .d.ts in a host with lib es2022 alone (no DOM, no @types/node, no skipLibCheck).
step types-no-dom node_modules/.bin/tsc -p tests/types/no-dom --noEmit
# The package's own JavaScript (packages/code-session-gate) under tsc's checkJs, against the glue's declarations.
step types-js node tests/types/js/check.mjs
# The packaging matrix: the packed tarball in fresh consumer projects (Node ESM/CJS, tsc node16/nodenext/
# bundler/workerd/no-DOM, esbuild, tsup, Vite 8, 6 and 5 dev and build, webpack, Parcel, Rollup, Next.js
# Node and edge routes and server components, a no-bundler page, wrangler + workerd, Vitest in workerd,
# Deno, Bun, the tarball's size and files, publint, attw). Installs its pinned tools
# (tests/packaging/package.json) itself when missing or changed.
step packaging node tests/packaging/run.mjs
# The worker's typed client (worker/client): against a stub server, its generated types against
# the worker's contract (its pinned generator installed there the first time), then tsc over the client,
# its generator and its tests. tests/e2e/client.test.mjs runs it against the worker (edge-e2e).
step worker-client node --test worker/client/test/
step worker-client-types node_modules/.bin/tsc -p worker/client
# The local two-dialect sandbox, then the worker in workerd against it (and Node / Deno hosts, and
# wrangler's bundle), then the main command's replay as a check.
step sandbox node --test tests/sandbox/
step edge-e2e node --test --test-concurrency=1 tests/e2e/
# The worker against the real codeapi (JWT auth) and LibreCodeInterpreter, from their sources.
step real-sandboxes scripts/sandboxes/test-real.sh
step demo node examples/demo.mjs --once
# The devtools page: its replay in Node, then the page itself in headless Chromium (playwright-core
# driving Debian's /usr/bin/chromium), live mode through a local worker and sandbox included.
step devtools node --test --test-concurrency=1 tests/devtools/
# The side-by-side benchmark in quick mode: checks that it runs and that gate, SDK and the JS port
# agree (its self-check); timings are printed, not asserted. bench/setup.sh installs the SDK side.
# Every fuzz target for a few seconds, after replaying the kept crash inputs (fuzz/regressions/);
# scripts/setup-fuzz.sh installs the nightly toolchain and cargo-fuzz the first time.
step fuzz-smoke scripts/fuzz-smoke.sh 5
step bench-setup bench/setup.sh
step bench node bench/run.mjs --quick --json target/bench-quick.json
# Fails above the ceiling (a ratchet at the last size); the budget is reported (README "Limits").
step size scripts/size-check.sh
finish
