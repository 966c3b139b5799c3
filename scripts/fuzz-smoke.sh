#!/usr/bin/env bash
# A seconds-long smoke run of every fuzz target (fuzz/, cargo-fuzz + libFuzzer), for the test command:
# installs what is missing (scripts/setup-fuzz.sh), builds the targets, replays every kept crash input
# in fuzz/regressions/<target>/ (each must pass), then fuzzes each target for the given seconds from its
# seed corpus (fuzz/corpus/<target>/, left unchanged: new inputs go to a temporary directory). Exits
# non-zero if any replay or run crashes, hangs (> 10 s per input) or exceeds 2 GB.
#
#   scripts/fuzz-smoke.sh [seconds-per-target]     (default 5)
#
# Long campaigns: see fuzz/README.md. FUZZ_TOOLCHAIN as in scripts/setup-fuzz.sh.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

case "${1:-}" in
  -h | --help)
    sed -n '2,10p' "$0"
    exit 0
    ;;
esac
seconds="${1:-5}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || die "seconds per target must be a positive integer, got '$seconds'"

FUZZ_TOOLCHAIN="${FUZZ_TOOLCHAIN:-nightly}"
TARGETS=(boundary_static gate_ops narrowing sandbox_request sandbox_response snapshot_load)
# libFuzzer's limits (the issue's): 2 GB of rss, 10 s per input.
LIMITS=(-rss_limit_mb=2048 -timeout=10)

"$ROOT/scripts/setup-fuzz.sh"

export CARGO_TERM_PROGRESS_WHEN=never
log "cargo +$FUZZ_TOOLCHAIN fuzz build -O -a -s none (release, debug assertions, no sanitizer)"
(cd fuzz && nice -n 19 cargo "+$FUZZ_TOOLCHAIN" fuzz build -O -a -s none)
host="$(rustup run "$FUZZ_TOOLCHAIN" rustc -vV | sed -n 's/^host: //p')"
bin="$ROOT/fuzz/target/$host/release"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

failed=()
for t in "${TARGETS[@]}"; do
  [ -x "$bin/$t" ] || die "fuzz target $t was not built ($bin/$t)"
  mapfile -t kept < <(find "fuzz/regressions/$t" -type f ! -name '.*' 2>/dev/null | sort)
  if [ "${#kept[@]}" -gt 0 ]; then
    log "[$t] replaying ${#kept[@]} regression input(s)"
    if ! nice -n 19 "$bin/$t" "${LIMITS[@]}" "${kept[@]}" >"$scratch/$t.replay.log" 2>&1; then
      tail -n 40 "$scratch/$t.replay.log" >&2
      failed+=("$t (regressions)")
    fi
  fi
  dict=()
  case "$t" in boundary_static | snapshot_load) dict=(-dict="$ROOT/fuzz/json.dict") ;; esac
  mkdir -p "$scratch/$t" "fuzz/artifacts/$t" "fuzz/corpus/$t"
  log "[$t] fuzzing for ${seconds}s"
  if nice -n 19 "$bin/$t" "${LIMITS[@]}" "${dict[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$ROOT/fuzz/artifacts/$t/" "$scratch/$t" "fuzz/corpus/$t" >"$scratch/$t.log" 2>&1; then
    note "$(grep -E '^#[0-9]+.*DONE' "$scratch/$t.log" | tail -n 1)"
  else
    tail -n 40 "$scratch/$t.log" >&2
    note "the failing input is in fuzz/artifacts/$t/: minimize it (see fuzz/README.md) and keep it in fuzz/regressions/$t/"
    failed+=("$t")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  die "fuzz smoke: FAILED: ${failed[*]}"
fi
log "fuzz smoke: every target ran ${seconds}s without a finding, every regression input passed"
