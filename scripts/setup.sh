#!/usr/bin/env bash
# Installs what the build and the tests need, skipping whatever is already present, so it is cheap to
# run before every build and test (CI runs on the same machine). Network: crates.io, the npm registry
# and Debian's apt repositories only.
#
#   scripts/setup.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

# ---------------------------------------------------------------------------------------------------
# Consistency of the pins: versions.sh is the source, Cargo.toml / Cargo.lock / package.json must agree.
check_pins() {
  grep -Eq "^wasm-bindgen *= *\"=$WASM_BINDGEN_VERSION\"" crates/wasm/boundary/Cargo.toml \
    || die "crates/wasm/boundary/Cargo.toml must pin wasm-bindgen = \"=$WASM_BINDGEN_VERSION\" (scripts/versions.sh)"
  if [ -f Cargo.lock ]; then
    local locked
    locked="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)"
    [ -z "$locked" ] || [ "$locked" = "$WASM_BINDGEN_VERSION" ] \
      || die "Cargo.lock has wasm-bindgen $locked, scripts/versions.sh wants $WASM_BINDGEN_VERSION"
  fi
  local pkg var want have
  for pkg in binaryen:BINARYEN_VERSION typescript:TYPESCRIPT_VERSION deno:DENO_VERSION workerd:WORKERD_VERSION mitata:MITATA_VERSION wrangler:WRANGLER_VERSION \
    playwright-core:PLAYWRIGHT_CORE_VERSION axe-core:AXE_CORE_VERSION esbuild:ESBUILD_VERSION; do
    var="${pkg#*:}"
    want="${!var}"
    have="$(node -e 'const p=require(process.argv[1]);process.stdout.write(String((p.devDependencies||{})[process.argv[2]]||""))' \
      "$ROOT/package.json" "${pkg%%:*}")"
    [ "$have" = "$want" ] \
      || die "package.json devDependencies.${pkg%%:*} is '$have', scripts/versions.sh wants '$want' (exact)"
  done
}

# ---------------------------------------------------------------------------------------------------
# Rust: the wasm target and the components the tests use.
setup_rust() {
  command -v rustup >/dev/null || die "rustup not found (PATH=$PATH)"
  if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    note "rust target wasm32-unknown-unknown: present"
  else
    log "rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  local comp
  for comp in rustfmt clippy; do
    if rustup component list --installed | grep -q "^$comp"; then
      note "rust component $comp: present"
    else
      log "rustup component add $comp"
      rustup component add "$comp"
    fi
  done
}

# A `cargo install` already running (e.g. a machine-preparation job installing the same tool): wait
# for it instead of starting a second build of the same crate.
wait_for_cargo_install() {
  local waited=0
  while pgrep -f '(^|/)cargo install( |$)' >/dev/null 2>&1; do
    if [ "$waited" -eq 0 ]; then
      log "another 'cargo install' is running; waiting for it to finish"
      pgrep -af '(^|/)cargo install( |$)' | sed 's/^/    /' >&2 || true
    fi
    if [ "$waited" -ge 1800 ]; then die "gave up waiting (30 min) for the running 'cargo install'"; fi
    sleep 5
    waited=$((waited + 5))
  done
}

wasm_bindgen_ok() {
  [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $WASM_BINDGEN_VERSION" ] \
    && [ "$(wasm-bindgen-test-runner --version 2>/dev/null || true)" = "wasm-bindgen-test-runner $WASM_BINDGEN_VERSION" ]
}

setup_wasm_bindgen() {
  if ! wasm_bindgen_ok; then wait_for_cargo_install; fi
  if wasm_bindgen_ok; then
    note "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
    return
  fi
  # No --locked: the CLI's lockfile wants a webpki-roots the reachable index lacks (~5 min build).
  log "cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION (about 5 minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  wasm_bindgen_ok || die "wasm-bindgen-cli $WASM_BINDGEN_VERSION still not on PATH after installing"
}

setup_wasm_pack() {
  if ! command -v wasm-pack >/dev/null; then wait_for_cargo_install; fi
  if command -v wasm-pack >/dev/null; then
    note "$(wasm-pack --version): present"
    return
  fi
  log "cargo install wasm-pack --version $WASM_PACK_VERSION (about 4 minutes)"
  cargo install wasm-pack --version "$WASM_PACK_VERSION"
}

# ---------------------------------------------------------------------------------------------------
# apt_install PACKAGE...: Debian packages, as root or through sudo; a fresh machine's package lists may
# be stale or absent, so a failed install updates them once and retries.
apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "$* missing and not root (no sudo)"
    sudo="sudo"
  fi
  log "apt-get install $*"
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y --no-install-recommends "$@"; then
    $sudo apt-get update
    $sudo apt-get install -y --no-install-recommends "$@"
  fi
}

# Debian's Chromium and ChromeDriver for the headless wasm-bindgen-test run.
setup_chromium() {
  if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    note "chromium + chromedriver: present"
    return
  fi
  apt_install chromium chromium-driver
}

# Debian's Firefox ESR and geckodriver (crates.io, pinned) for the conformance vectors in Firefox.
setup_firefox() {
  if ! command -v firefox-esr >/dev/null && ! command -v firefox >/dev/null; then
    apt_install firefox-esr
  else
    note "firefox: present"
  fi
  if [ "$(geckodriver --version 2>/dev/null | head -1 | awk '{print $2}')" = "$GECKODRIVER_VERSION" ]; then
    note "geckodriver $GECKODRIVER_VERSION: present"
    return
  fi
  wait_for_cargo_install
  log "cargo install geckodriver --version $GECKODRIVER_VERSION (about 4 minutes)"
  cargo install --locked geckodriver --version "$GECKODRIVER_VERSION" --force
}

# ---------------------------------------------------------------------------------------------------
# npm devDependencies: `npm ci` when node_modules is missing or does not match package-lock.json.
setup_npm() {
  command -v node >/dev/null || die "node not found"
  command -v npm >/dev/null || die "npm not found"
  [ -f package-lock.json ] || die "package-lock.json missing (run npm install once and commit it)"
  local want stamp=node_modules/.code-session-gate-lock.sha256
  want="$(hash_files package.json package-lock.json)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && [ -x node_modules/.bin/wasm-opt ] && [ -x node_modules/.bin/tsc ] \
    && [ -x node_modules/.bin/deno ] && [ -x node_modules/.bin/workerd ] && [ -x node_modules/.bin/wrangler ] \
    && [ -f node_modules/playwright-core/package.json ] && [ -f node_modules/axe-core/axe.min.js ] \
    && [ -x node_modules/.bin/esbuild ]; then
    note "node_modules: up to date with package-lock.json"
  else
    log "npm ci"
    npm ci --no-audit --no-fund
    printf '%s\n' "$want" >"$stamp"
  fi
  local v
  v="$(node_modules/.bin/wasm-opt --version)"
  case "$v" in *"version ${BINARYEN_VERSION%%.*} "*) ;; *) die "unexpected wasm-opt: $v" ;; esac
}

# The edge worker's own dependencies (worker: the built package as a link, and jose for its
# callers' tokens), pinned in its package-lock.json. `npm ci` leaves the link dangling until
# scripts/build.sh makes pkg/; the tests then find both (worker/serve.mjs ensureWorkerDeps).
setup_worker_npm() {
  local dir=worker want stamp=worker/node_modules/.code-session-gate-lock.sha256
  want="$(hash_files "$dir/package.json" "$dir/package-lock.json")"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$dir/node_modules/jose/package.json" ]; then
    note "worker/node_modules: up to date with its package-lock.json"
    return
  fi
  log "npm ci (worker)"
  (cd "$dir" && npm ci --prefer-offline --no-audit --no-fund --ignore-scripts)
  printf '%s\n' "$want" >"$stamp"
}

# The SDK releases the check-sdk tests (tests/check-sdk/) drive, installed the way the command installs
# them (packages/check-sdk/install.js: <cache>/sdk/agents@<version>/) into the project-local cache
# .cache/check-sdk/ (git-ignored), so that the tests run the command offline against it.
# The reference release of each profile (tests/check-sdk/ names the same two).
CHECK_SDK_VERSIONS="3.6.15 3.9.2"
setup_check_sdk() {
  local v dir
  for v in $CHECK_SDK_VERSIONS; do
    dir=".cache/check-sdk/sdk/agents@$v"
    if [ "$(node -p 'try { require(process.argv[1]).version } catch { "" }' "$ROOT/$dir/node_modules/@librechat/agents/package.json" 2>/dev/null)" = "$v" ]; then
      note "check-sdk cache: @librechat/agents $v present"
      continue
    fi
    log "check-sdk cache: installing @librechat/agents $v into $dir"
    node --input-type=module -e '
      const { ensureSdk } = await import(process.argv[1]);
      const r = ensureSdk({ spec: process.argv[2], cacheDir: process.argv[3], log: (l) => console.error(`    ${l}`) });
      if (r.version !== process.argv[2]) { console.error(`installed ${r.version}, wanted ${process.argv[2]}`); process.exit(1); }
    ' "$ROOT/packages/check-sdk/install.js" "$v" "$ROOT/.cache/check-sdk"
  done
}

check_pins
setup_rust
setup_wasm_bindgen
setup_wasm_pack
setup_chromium
setup_firefox
setup_npm
setup_worker_npm
setup_check_sdk
log "setup: done"
