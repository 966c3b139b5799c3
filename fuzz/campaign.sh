#!/usr/bin/env bash
# Long fuzz campaigns, one target after another (never two at once: 2 shared cores), niced, with the
# issue's limits, as the table in fuzz/README.md was made. Build first (scripts/fuzz-smoke.sh does, or
# `cargo +nightly fuzz build -O -a -s none`). New inputs go to fuzz/work/<target>/ (ignored by git), findings
# to fuzz/artifacts/<target>/, each run's output (libFuzzer's -jobs=1 writes fuzz-0.log in the current
# directory) to fuzz/work/logs/<target>/fuzz-0.log, start and end times to fuzz/work/logs/campaign.txt.
#
#   fuzz/campaign.sh [seconds-per-target]     (default 610)
#   TARGETS="gate_ops snapshot_load" fuzz/campaign.sh 3600
set -u
F="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-610}"
host="$(rustup run "${FUZZ_TOOLCHAIN:-nightly}" rustc -vV | sed -n 's/^host: //p')"
B="$F/target/$host/release"
for t in ${TARGETS:-gate_ops snapshot_load boundary_static sandbox_request sandbox_response narrowing}; do
  dict=()
  case "$t" in boundary_static | snapshot_load) dict=(-dict="$F/json.dict") ;; esac
  mkdir -p "$F/work/$t" "$F/artifacts/$t" "$F/work/logs/$t"
  echo "== $t $(date -u +%FT%TZ)" >>"$F/work/logs/campaign.txt"
  (cd "$F/work/logs/$t" && nice -n 19 "$B/$t" -rss_limit_mb=2048 -timeout=10 -max_total_time="$seconds" \
    -print_final_stats=1 -jobs=1 -workers=1 "${dict[@]}" -artifact_prefix="$F/artifacts/$t/" \
    "$F/work/$t" "$F/corpus/$t" >parent.log 2>&1)
  echo "   rc=$? $(date -u +%FT%TZ)" >>"$F/work/logs/campaign.txt"
  grep -E '^#[0-9]+.*DONE|^stat::(number_of_executed_units|peak_rss_mb)' "$F/work/logs/$t/fuzz-0.log" \
    | sed 's/^/   /' >>"$F/work/logs/campaign.txt"
done
