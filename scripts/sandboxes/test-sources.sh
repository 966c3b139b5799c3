#!/usr/bin/env bash
# Tests how sources.sh gets the servers' sources when neither SANDBOX_SOURCES nor ../shared/sandboxes
# has them: a local HTTP server stands in for GitHub (codeload's URL form), so no network is needed.
#
#   scripts/sandboxes/test-sources.sh
#
# Each case runs the real sources.sh in a scratch checkout (the scripts alone, nothing beside it) with
# a scratch cache, on GitHub-like archives re-packed from the pinned tarballs (another top folder,
# mtimes, modes and compression: other bytes, the same tree):
#   - a download is checked against the tree pin, kept, and not fetched again by a rerun;
#   - a repository that answers 404 falls back to its mirror;
#   - a corrupted archive (one byte of one file) and a truncated one are refused, nothing is kept;
#   - a wrong tarball under the pinned name in SANDBOX_SOURCES is refused, not replaced by a download;
#   - with no source anywhere and the host unreachable it fails at once, with one line.
# Prints "ok"/"FAIL" per check and ends with "N passed, N failed" (exit 1 if any failed).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib.sh"
# shellcheck source=scripts/sandboxes/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  [[ -z "$SERVER_PID" ]] || kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

passed=0
failed=0
check() {
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}

# The scratch checkout: what sources.sh needs, with no shared/sandboxes beside it.
CO="$WORK/checkout"
mkdir -p "$CO/scripts/sandboxes"
cp "$ROOT/scripts/lib.sh" "$ROOT/scripts/versions.sh" "$CO/scripts/"
cp "$ROOT/scripts/sandboxes/common.sh" "$ROOT/scripts/sandboxes/sources.sh" "$CO/scripts/sandboxes/"

# sources CACHE ARGS...: the scratch checkout's sources.sh, its stderr in $WORK/err, its exit code in $rc.
rc=0
sources() {
  local cache="$1"; shift
  rc=0
  env -u SANDBOX_SOURCES SANDBOX_CACHE="$cache" "$@" "$CO/scripts/sandboxes/sources.sh" fetch kafel \
    >/dev/null 2>"$WORK/err" || rc=$?
}

# GitHub-like archives of kafel, the smallest source, and of codeapi (two repositories: the mirror case).
# repack ID OUT [corrupt]: the pinned tarball's tree under GitHub's top folder <repo>-<commit>, modes
# 0644/0755, another mtime, gzip -1; `corrupt` changes one byte of one file first.
repack() {
  local id="$1" out="$2" x="$WORK/repack" top repo
  source_pin "$id"
  repo="${PIN_REPOS[0]#*/}"
  top="$repo-$PIN_COMMIT"
  rm -rf "$x" && mkdir -p "$x/$top" "$(dirname "$out")"
  tar -xzf "$(sandbox_source "$id")" -C "$x/$top" --strip-components=1 --no-same-owner
  chmod -R u+rwX,go+rX,go-w "$x"
  if [[ "${3:-}" == corrupt ]]; then
    local f
    f="$(cd "$x/$top" && find . -type f -name '*.c' | LC_ALL=C sort | head -n 1)"
    printf 'x' | dd of="$x/$top/$f" bs=1 seek=10 conv=notrunc status=none
  fi
  tar -C "$x" --mtime=@1700000000 --owner=0 --group=0 -cf - "$top" | gzip -1 >"$out"
  rm -rf "$x"
}
WWW="$WORK/www"
source_pin kafel
KAFEL="google/kafel/tar.gz/$PIN_COMMIT"
KAFEL_NAME="$PIN_NAME"
KAFEL_FILE_PIN="$PIN_FILE"
repack kafel "$WWW/github/$KAFEL"
repack kafel "$WWW/corrupt/$KAFEL" corrupt
mkdir -p "$(dirname "$WWW/truncated/$KAFEL")"
head -c 20000 "$WWW/github/$KAFEL" >"$WWW/truncated/$KAFEL"
source_pin codeapi
# Only the mirror (the second repository) has it: the first answers 404.
repack codeapi "$WWW/mirror/${PIN_REPOS[1]}/tar.gz/$PIN_COMMIT"
CODEAPI_NAME="$PIN_NAME"

# The stand-in for GitHub, on a port the kernel picks, logging each request.
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$WWW" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do grep -q 'port [0-9]' "$WORK/server.log" && break; sleep 0.05; done
PORT="$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$WORK/server.log" | head -n 1)"
[[ -n "$PORT" ]] || die "the local HTTP server did not start: $(cat "$WORK/server.log")"
BASE="http://127.0.0.1:$PORT"
requests() { grep -c "GET /$1 " "$WORK/server.log" || true; }
# What the last run said, indented, without colours.
said() { sed 's/\x1b\[[0-9;]*m//g; s/^/       /' "$WORK/err"; }

# 1. A GitHub-like download: other bytes than the file pin, the same tree: kept.
check "the stand-in serves other bytes than the pinned file" \
  test "$(sha256sum <"$WWW/github/$KAFEL" | cut -c1-64)" != "$KAFEL_FILE_PIN"
sources "$WORK/cache" SANDBOX_SOURCES_URL="$BASE/github"
check "a GitHub-like download is accepted by its tree" test "$rc" = 0
check "it is kept in the cache with its record" test -f "$WORK/cache/sources/$KAFEL_NAME" -a -f "$WORK/cache/sources/$KAFEL_NAME.sha256"
check "nothing half-downloaded is left" test -z "$(find "$WORK/cache/sources" -name '.*')"
sources "$WORK/cache" SANDBOX_SOURCES_URL="$BASE/github"
check "a rerun takes it from the cache (one request in all)" test "$rc:$(requests "github/$KAFEL")" = 0:1

# 2. The first repository answers 404, its mirror has it.
rc=0
env -u SANDBOX_SOURCES SANDBOX_CACHE="$WORK/cache-mirror" SANDBOX_SOURCES_URL="$BASE/mirror" \
  "$CO/scripts/sandboxes/sources.sh" fetch codeapi >/dev/null 2>"$WORK/err" || rc=$?
check "a 404 falls back to the mirror" test "$rc" = 0 -a -f "$WORK/cache-mirror/sources/$CODEAPI_NAME"

# 3. A corrupted archive and a truncated one: refused, nothing kept.
sources "$WORK/cache-corrupt" SANDBOX_SOURCES_URL="$BASE/corrupt"
check "a corrupted download is refused" test "$rc" != 0
check "  saying its tree is not the pinned one" grep -q "refused: its tree hashes to" "$WORK/err"
check "  and keeps nothing" test -z "$(ls -A "$WORK/cache-corrupt/sources")"
said
sources "$WORK/cache-truncated" SANDBOX_SOURCES_URL="$BASE/truncated"
check "a truncated download is refused as unreadable" grep -q "refused: not a readable .tar.gz" "$WORK/err"
check "  and keeps nothing" test -z "$(ls -A "$WORK/cache-truncated/sources")"
said

# 4. A wrong tarball under the pinned name in SANDBOX_SOURCES: refused, and no download tried.
mkdir -p "$WORK/wrong"
cp "$WWW/mirror/$(source_pin codeapi; echo "${PIN_REPOS[1]}/tar.gz/$PIN_COMMIT")" "$WORK/wrong/$KAFEL_NAME"
before="$(requests "github/$KAFEL")"
sources "$WORK/cache-wrong" SANDBOX_SOURCES="$WORK/wrong" SANDBOX_SOURCES_URL="$BASE/github"
check "a wrong tarball in SANDBOX_SOURCES is refused" grep -q "in $WORK/wrong refused: its tree hashes to" "$WORK/err"
check "  and not replaced by a download" test "$(requests "github/$KAFEL")" = "$before"
said

# 5. No source anywhere, the host unreachable (a closed port; a name that never resolves): one line, at once.
closed="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
for url in "http://127.0.0.1:$closed" "https://codeload.invalid"; do
  t0="$(date +%s%N)"
  env -u SANDBOX_SOURCES SANDBOX_CACHE="$WORK/cache-none" SANDBOX_SOURCES_URL="$url" \
    "$CO/scripts/sandboxes/sources.sh" >/dev/null 2>"$WORK/err" && rc=0 || rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  check "no source, $url unreachable: fails" test "$rc" != 0
  check "  with one line, saying how to provide them (${ms} ms)" \
    test "$(wc -l <"$WORK/err"):$(grep -c 'set SANDBOX_SOURCES to a folder holding the tarballs' "$WORK/err")" = 1:1
  check "  at once (under 5 s)" test "$ms" -lt 5000
  said
done

echo
echo "$passed passed, $failed failed"
((failed == 0))
