#!/usr/bin/env bash
# Rust instructions per turn (valgrind, the native release build): for each mode and partition size,
# the instructions of 2 × TURNS turns minus those of TURNS turns, divided by TURNS; then the cost per
# stored file (the slope between 20 and 200 files) and the fixed cost of a turn (1 file, minus that
# slope). Usage: bash bench/instructions/run.sh [TURNS]   (default 400; needs valgrind)
set -euo pipefail
cd "$(dirname "$0")/../.."
TURNS="${1:-400}"
command -v valgrind >/dev/null || { echo "bench/instructions/run.sh: valgrind is not installed" >&2; exit 2; }
cargo build --quiet --release --example turns
bin=target/release/examples/turns

# Instructions of one run (cachegrind's I refs, without cache simulation).
refs() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$bin" "$@" 2>&1 \
    | sed -n 's/.*I *refs: *//p' | tr -d ','
}

printf '%-7s %6s %14s\n' mode files 'instr/turn'
for mode in wire forward object fold; do
  declare -A per=()
  for n in 1 20 200; do
    a=$(refs "$mode" "$n" "$TURNS")
    b=$(refs "$mode" "$n" "$((2 * TURNS))")
    per[$n]=$(( (b - a) / TURNS ))
    printf '%-7s %6d %14d\n' "$mode" "$n" "${per[$n]}"
  done
  slope=$(( (per[200] - per[20]) / 180 ))
  printf '%-7s per stored file: %d   fixed (1 file, minus one file): %d\n' "$mode" "$slope" "$(( per[1] - slope ))"
  unset per
done
