#!/usr/bin/env bash
# Measures the two built modules (raw bytes and gzip -9 bytes) against scripts/versions.sh: each one's
# ceiling (a ratchet at the last measured size), which it must not exceed, and the budgets they are
# reported against (the core module's, and both together). Fails above a ceiling; above a budget it
# fails only with --strict (the core module is over its budget today, see bench/README.md "Size").
#
#   scripts/size-check.sh [--strict]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

strict=0
[ "${1:-}" = "--strict" ] && strict=1
kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
status=0
# check WHAT SIZE BUDGET CEILING (BUDGET 0: none)
check() {
  local what="$1" size="$2" budget="$3" ceiling="$4"
  printf '    %-22s %8d bytes (%s)%s, ceiling <= %d\n' "$what" "$size" "$(kib "$size")" \
    "$([ "$budget" -gt 0 ] && printf '  budget <= %d (%s)' "$budget" "$(kib "$budget")")" "$ceiling" >&2
  if [ "$size" -gt "$ceiling" ]; then
    printf '\033[31msize: %s is %d bytes, over its ceiling of %d (scripts/versions.sh): it grew\033[0m\n' \
      "$what" "$size" "$ceiling" >&2
    status=1
  elif [ "$budget" -gt 0 ] && [ "$size" -gt "$budget" ]; then
    printf '    (%s: %d bytes over the budget%s)\n' "$what" $((size - budget)) \
      "$([ "$strict" -eq 1 ] && echo '' || echo ', reported only')" >&2
    [ "$strict" -eq 1 ] && status=1
  fi
  return 0
}
core=pkg/code_session_gate_bg.wasm
sandbox=pkg/code_session_sandbox_bg.wasm
for f in "$core" "$sandbox"; do [ -f "$f" ] || die "$f not found: run scripts/build.sh"; done
core_raw="$(wc -c <"$core")"
sandbox_raw="$(wc -c <"$sandbox")"
check "core raw" "$core_raw" "$CORE_BUDGET_RAW" "$CORE_CEILING_RAW"
check "core gzip -9" "$(gzip -9c "$core" | wc -c)" "$CORE_BUDGET_GZIP" "$CORE_CEILING_GZIP"
check "sandbox raw" "$sandbox_raw" 0 "$SANDBOX_CEILING_RAW"
check "sandbox gzip -9" "$(gzip -9c "$sandbox" | wc -c)" 0 "$SANDBOX_CEILING_GZIP"
total=$((core_raw + sandbox_raw))
printf '    %-22s %8d bytes (%s)  budget <= %d (%s)%s\n' "both raw" "$total" "$(kib "$total")" \
  "$MODULES_BUDGET_RAW" "$(kib "$MODULES_BUDGET_RAW")" \
  "$([ "$total" -gt "$MODULES_BUDGET_RAW" ] && echo ", $((total - MODULES_BUDGET_RAW)) bytes over (reported only)")" >&2
exit "$status"
