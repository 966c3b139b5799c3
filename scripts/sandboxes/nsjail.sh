#!/usr/bin/env bash
# Builds NsJail (with its Kafel submodule) from their pinned sources (sources.sh) into the shared cache,
# $SANDBOX_CACHE/nsjail/<nsjail commit>-<kafel commit>/bin/nsjail, once per machine. Shared by the
# sandbox scripts (librecodeinterpreter.sh, codeapi.sh): they call it and then use the path it prints
# on stdout.
#
#   scripts/sandboxes/nsjail.sh          build if needed, print the binary's path
#   scripts/sandboxes/nsjail.sh --path   print the path only (no build)
#
# Env: SANDBOX_CACHE, SANDBOX_SOURCES, SANDBOX_SOURCES_URL (see sources.sh).
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib.sh"
# shellcheck source=scripts/sandboxes/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

source_pin nsjail
NSJAIL_COMMIT="${PIN_COMMIT:0:7}"
source_pin kafel
KAFEL_COMMIT="${PIN_COMMIT:0:7}"
# The folder names the commits: a new pin builds beside the old one, never over a binary in use.
DIR="$SANDBOX_CACHE/nsjail/$NSJAIL_COMMIT-$KAFEL_COMMIT"
BIN="$DIR/bin/nsjail"
STAMP="$DIR/.built"

if [[ "${1:-}" == "--path" ]]; then echo "$BIN"; exit 0; fi

built() { [[ -x "$BIN" && -f "$STAMP" ]]; }

# Fast path without the lock: most calls find it built.
if built; then echo "$BIN"; exit 0; fi

mkdir -p "$DIR"
# Two sandbox scripts may start at once (e.g. codeapi and LibreCodeInterpreter setups run in parallel):
# the second waits on this lock and then finds the binary built, instead of building it a second time
# into the same folder.
exec 9>"$DIR/.lock"
flock -n 9 || { log "nsjail: waiting for another build of it"; flock 9; }
if built; then echo "$BIN"; exit 0; fi

NSJAIL_TARBALL="$(sandbox_source nsjail)"
KAFEL_TARBALL="$(sandbox_source kafel)"
apt_install_missing build-essential pkg-config protobuf-compiler libprotobuf-dev libnl-route-3-dev bison flex

log "nsjail: building $NSJAIL_COMMIT with Kafel $KAFEL_COMMIT (a few minutes)"
BUILD="$DIR/build"
rm -rf "$BUILD"
mkdir -p "$BUILD/nsjail/kafel"
# --strip-components: the top folder is nsjail/ in shared/sandboxes, nsjail-<commit>/ in GitHub's.
tar -xzf "$NSJAIL_TARBALL" -C "$BUILD/nsjail" --strip-components=1 --no-same-owner
# git archive leaves the submodule folder empty: Kafel's own tarball fills it.
tar -xzf "$KAFEL_TARBALL" -C "$BUILD/nsjail/kafel" --strip-components=1 --no-same-owner
make -C "$BUILD/nsjail" -j"$(nproc)" nsjail >"$DIR/build.log" 2>&1 \
  || { tail -n 40 "$DIR/build.log" >&2; die "nsjail build failed (full log: $DIR/build.log)"; }
mkdir -p "$DIR/bin"
install -m 0755 "$BUILD/nsjail/nsjail" "$BIN.tmp"
mv -f "$BIN.tmp" "$BIN"
rm -rf "$BUILD"
touch "$STAMP"
log "nsjail: built $BIN"
echo "$BIN"
