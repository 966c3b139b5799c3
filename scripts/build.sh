#!/usr/bin/env bash
# Builds the npm packages into pkg/ (code-session-gate) and pkg-check-sdk/ (code-session-gate-check-sdk),
# generated only, git-ignored:
#   1. cargo build --release --target wasm32-unknown-unknown of the two module crates (crates/: the core
#      module every host loads, the sandbox module loaded on demand; registry source paths remapped)
#   2. wasm-bindgen --target web of each module: its glue (crates/wasm/boundary writes the exports)
#   3. wasm-opt --merge-similar-functions -Oz --converge from binaryen (npm), not Debian's /usr/bin/wasm-opt, which cannot parse the output
#   4. packages/assemble.mjs: the modules and their glue, the entries and types of packages/code-session-gate/ (their
#      loader: packages/code-session-gate/engine.js), package.json; the
#      check-sdk command (packages/check-sdk/) bundled with the vectors it replays into pkg-check-sdk/, whose
#      node_modules/code-session-gate links to ../pkg (as its dependency would be installed)
# Skips all of it when no input changed since the last build (pass --force, or set
# CSG_FORCE_BUILD=1, to rebuild anyway). Prints the .wasm size, raw and gzip -9.
#
#   scripts/build.sh [--force]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

NAME=code_session_gate
# Each module: the cdylib's file, and the name it has in the package.
MODULES=("code_session_gate_core_module:${NAME}_bg" "code_session_gate_sandbox_module:code_session_sandbox_bg")
WASM_OPT="$ROOT/node_modules/.bin/wasm-opt"
STAMP="target/pkg-build.stamp"
force="${CSG_FORCE_BUILD:-0}"
[ "${1:-}" = "--force" ] && force=1

[ -x "$WASM_OPT" ] || die "node_modules/.bin/wasm-opt not found: run scripts/setup.sh"

# Everything the package is made from (git-tracked or not), plus the tool versions.
inputs_hash() {
  {
    find src crates packages Cargo.toml Cargo.lock package-lock.json README.md scripts/build.sh \
      scripts/lib.sh scripts/versions.sh -type f -print0 2>/dev/null \
      | LC_ALL=C sort -z | xargs -0 sha256sum
    rustc -V
  } | sha256sum | cut -d' ' -f1
}
pkg_hash() {
  find pkg pkg-check-sdk -type f -print0 2>/dev/null | LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -d' ' -f1
}

print_sizes() {
  local m wasm
  for m in "${MODULES[@]}"; do
    wasm="pkg/${m#*:}.wasm"
    note "$wasm: $(wc -c <"$wasm") bytes raw, $(gzip -9c "$wasm" | wc -c) bytes gzip -9"
  done
}

want="$(inputs_hash)"
if [ "$force" != 1 ] && [ -f "$STAMP" ] && [ -f "pkg/package.json" ] && [ -f "pkg-check-sdk/package.json" ] \
  && [ "$(cat "$STAMP")" = "$want $(pkg_hash)" ]; then
  log "build: pkg/ and pkg-check-sdk/ are up to date (scripts/build.sh --force rebuilds)"
  print_sizes
  exit 0
fi

# Panic locations name the registry's source files: their folder (under the builder's home) is remapped
# to /cargo, so that the shipped module names no path of the machine that built it; each registry's
# source folder (`registry/src/index.crates.io-<hash>`) to /cargo alone, shorter (about 0.4 KB less per
# module). rustc applies the last matching prefix. Flags the caller set are kept.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
remap="--remap-path-prefix=$cargo_home=/cargo"
for index in "$cargo_home"/registry/src/*/; do
  if [ -d "$index" ]; then remap="$remap"$'\x1f'"--remap-path-prefix=${index%/}=/cargo"; fi
done
if [ -n "${CARGO_ENCODED_RUSTFLAGS:-}" ]; then
  flags="$CARGO_ENCODED_RUSTFLAGS"$'\x1f'"$remap"
else
  read -ra user_flags <<<"${RUSTFLAGS:-}"
  flags="$(IFS=$'\x1f' && printf '%s' "${user_flags[*]}")"
  flags="${flags:+$flags$'\x1f'}$remap"
fi
log "cargo build --release --target wasm32-unknown-unknown (crates/wasm/core, crates/wasm/sandbox)"
CARGO_ENCODED_RUSTFLAGS="$flags" cargo build --release --target wasm32-unknown-unknown \
  -p code-session-gate-core-module -p code-session-gate-sandbox-module

mkdir -p target
work="$(mktemp -d "$ROOT/target/pkg-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/out" "$work/bindgen"
# wasm-bindgen writes both modules' exports (crates/wasm/boundary): its CLI writes each one's glue (the web
# target, whose generated reset recover() uses: code_session_gate.js, code_session_sandbox.js) and the
# module the glue expects, which wasm-opt then shrinks.
log "wasm-bindgen --target web ($(wasm-bindgen --version)): the modules' glue"
for m in "${MODULES[@]}"; do
  glue="${m#*:}"
  glue="${glue%_bg}"
  wasm-bindgen --target web --experimental-reset-state-function --no-typescript \
    --out-name "$glue" --out-dir "$work/bindgen" "target/wasm32-unknown-unknown/release/${m%%:*}.wasm"
  cp "$work/bindgen/$glue.js" "$work/out/$glue.js"
done

# --converge repeats the passes until nothing changes: measured -0.2 KB raw, -1.4 KB gzip.
# --merge-similar-functions (before -Oz; not part of it) folds functions that differ only in constants into
# one body with the constants as parameters, chiefly the generic copies: core -1.8 KB raw, -0.6 KB gzip.
log "wasm-opt --merge-similar-functions -Oz --converge ($("$WASM_OPT" --version))"
for m in "${MODULES[@]}"; do
  wasm_in="$work/bindgen/${m#*:}.wasm"
  note "${m#*:}.wasm before: $(wc -c <"$wasm_in") bytes"
  "$WASM_OPT" --merge-similar-functions -Oz --converge --strip-debug --strip-producers --strip-target-features \
    "$wasm_in" -o "$work/out/${m#*:}.wasm"
done

log "assemble pkg/ and pkg-check-sdk/"
node packages/assemble.mjs "$work/out" "$work/pkg" "$work/pkg-check-sdk"
mkdir -p "$work/pkg-check-sdk/node_modules"
ln -s ../../pkg "$work/pkg-check-sdk/node_modules/code-session-gate"
rm -rf pkg pkg-check-sdk
mv "$work/pkg" pkg
mv "$work/pkg-check-sdk" pkg-check-sdk

printf '%s %s\n' "$want" "$(pkg_hash)" >"$STAMP"
log "build: done"
print_sizes
