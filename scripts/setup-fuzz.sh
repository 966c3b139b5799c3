#!/usr/bin/env bash
# Installs what the fuzz targets (fuzz/) need, skipping whatever is already present: a nightly Rust
# toolchain (cargo-fuzz builds with -Cpasses=sancov-module and libFuzzer, nightly only) and cargo-fuzz,
# pinned. Safe to rerun; network: the rustup dist server and crates.io only.
#
#   scripts/setup-fuzz.sh
#
# FUZZ_TOOLCHAIN picks the toolchain (default `nightly`: an existing nightly is used as it is, never
# updated behind your back; pin one with e.g. FUZZ_TOOLCHAIN=nightly-2026-10-30). The 10-minute runs in
# fuzz/README.md were made with rustc 1.101.0-nightly (92b5b8c87 2026-10-29) and cargo-fuzz 0.13.2.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

FUZZ_TOOLCHAIN="${FUZZ_TOOLCHAIN:-nightly}"
CARGO_FUZZ_VERSION=0.13.2

command -v rustup >/dev/null || die "rustup not found (PATH=$PATH)"

# ---------------------------------------------------------------------------------------------------
# The nightly toolchain (minimal profile: rustc, cargo, rust-std; the targets build with
# `--sanitizer none`, so neither rust-src nor a sanitizer runtime is needed).
if rustup run "$FUZZ_TOOLCHAIN" rustc --version >/dev/null 2>&1; then
  note "toolchain $FUZZ_TOOLCHAIN: present ($(rustup run "$FUZZ_TOOLCHAIN" rustc --version))"
else
  log "rustup toolchain install $FUZZ_TOOLCHAIN --profile minimal (about 1 minute)"
  rustup toolchain install "$FUZZ_TOOLCHAIN" --profile minimal
  rustup run "$FUZZ_TOOLCHAIN" rustc --version >/dev/null 2>&1 \
    || die "toolchain $FUZZ_TOOLCHAIN still not usable after installing"
fi

# ---------------------------------------------------------------------------------------------------
# cargo-fuzz, pinned, from crates.io with its lockfile.
cargo_fuzz_ok() {
  [ "$(cargo fuzz --version 2>/dev/null || true)" = "cargo-fuzz $CARGO_FUZZ_VERSION" ]
}

# A `cargo install` already running (another setup script, a machine-preparation job): wait for it
# rather than build the same crate twice.
wait_for_cargo_install() {
  local waited=0
  while pgrep -f '(^|/)cargo install( |$)' >/dev/null 2>&1; do
    if [ "$waited" -eq 0 ]; then log "another 'cargo install' is running; waiting for it to finish"; fi
    if [ "$waited" -ge 1800 ]; then die "gave up waiting (30 min) for the running 'cargo install'"; fi
    sleep 5
    waited=$((waited + 5))
  done
}

if ! cargo_fuzz_ok; then wait_for_cargo_install; fi
if cargo_fuzz_ok; then
  note "cargo-fuzz $CARGO_FUZZ_VERSION: present"
else
  log "cargo install cargo-fuzz --version $CARGO_FUZZ_VERSION --locked (about 3 minutes)"
  nice -n 19 cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --force
  cargo_fuzz_ok || die "cargo-fuzz $CARGO_FUZZ_VERSION still not on PATH after installing"
fi
log "setup-fuzz: done"
