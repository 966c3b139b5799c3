#!/usr/bin/env bash
# Builds the crossing bench: bench/crossing/pkg/ (json + swb, what run.mjs loads), and, for the
# .wasm size comparison only, a JSON-only and an swb-only build under pkg/size/.
# Idempotent: cargo rebuilds only what changed; pkg/ is rewritten each run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WASM_OPT="$ROOT/node_modules/.bin/wasm-opt"
[ -x "$WASM_OPT" ] || { echo "build.sh: $WASM_OPT not found" >&2; exit 1; }
command -v wasm-bindgen >/dev/null || { echo "build.sh: wasm-bindgen CLI not found" >&2; exit 1; }

cd "$HERE"
rm -rf pkg
mkdir -p pkg/size

# build VARIANT OUT_DIR [cargo feature args...]: cargo → wasm-bindgen (nodejs) → wasm-opt -Os.
build() {
  local variant="$1" out="$2"; shift 2
  # A target dir per feature set, so switching features does not rebuild every time.
  local tdir="$HERE/target/$variant"
  cargo build --release --target wasm32-unknown-unknown --target-dir "$tdir" "$@"
  wasm-bindgen --target nodejs --out-dir "$out" \
    "$tdir/wasm32-unknown-unknown/release/crossing_bench.wasm"
  "$WASM_OPT" -Os --strip-debug --strip-producers \
    "$out/crossing_bench_bg.wasm" -o "$out/crossing_bench_bg.opt.wasm"
  mv "$out/crossing_bench_bg.opt.wasm" "$out/crossing_bench_bg.wasm"
  # The nodejs glue is CommonJS; the repository's package.json says "type": "module".
  printf '{ "type": "commonjs" }\n' >"$out/package.json"
}

build both "$HERE/pkg"
build json "$HERE/pkg/size/json" --no-default-features --features json
build swb "$HERE/pkg/size/swb" --no-default-features --features swb

size() { wc -c <"$1" | tr -d ' '; }
gz() { gzip -9c "$1" | wc -c | tr -d ' '; }
{
  printf '{\n'
  sep=''
  for v in json swb both; do
    if [ "$v" = both ]; then f="pkg/crossing_bench_bg.wasm"; else f="pkg/size/$v/crossing_bench_bg.wasm"; fi
    printf '%s  "%s": { "wasm_bytes": %s, "wasm_gzip_bytes": %s }' "$sep" "$v" "$(size "$f")" "$(gz "$f")"
    sep=$',\n'
  done
  printf '\n}\n'
} >pkg/sizes.json
cat pkg/sizes.json
