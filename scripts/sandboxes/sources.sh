#!/usr/bin/env bash
# The real sandbox servers' sources (codeapi, NsJail, Kafel, LibreCodeInterpreter), each a tarball of a
# pinned commit of its public repository, checked against the SHA-256 pins in scripts/versions.sh and
# kept in the shared cache ($SANDBOX_CACHE/sources, default /var/cache/code-session-gate/sandboxes).
#
#   scripts/sandboxes/sources.sh [fetch [ID...]] get every source (or those named: codeapi nsjail kafel
#                                                librecodeinterpreter) into the cache, checked, or fail
#                                                with one line saying how to provide them
#   scripts/sandboxes/sources.sh list            each tarball, its repository, commit and download URL
#   scripts/sandboxes/sources.sh tree-hash PATH  the tree pin of a tarball or of an extracted folder
#
# Where a source comes from, first found first: the cache; SANDBOX_SOURCES (a folder holding the
# tarballs); <checkout>/../shared/sandboxes; a download of <SANDBOX_SOURCES_URL>/<owner>/<repo>/tar.gz/<commit>
# (default https://codeload.github.com, GitHub's archive of the commit; then the repository's mirrors).
# The test command runs this first: with no way to the sources it fails at once, not after the steps
# before the real servers' one.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib.sh"
# shellcheck source=scripts/sandboxes/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

case "${1:-fetch}" in
  fetch)
    ids=("${@:2}")
    ((${#ids[@]})) || mapfile -t ids < <(sandbox_source_ids)
    for id in "${ids[@]}"; do
      sandbox_source "$id" >/dev/null
    done
    note "sources: checked, in $SOURCES_CACHE"
    ;;
  list)
    for id in $(sandbox_source_ids); do
      source_pin "$id"
      printf '%-38s %s@%s\n%-38s %s\n' "$PIN_NAME" "${PIN_REPOS[0]}" "$PIN_COMMIT" "" \
        "$SANDBOX_SOURCES_URL/${PIN_REPOS[0]}/tar.gz/$PIN_COMMIT"
    done
    ;;
  tree-hash)
    [[ -n "${2:-}" ]] || die "usage: $0 tree-hash FILE.tar.gz|DIR"
    if [[ -d "$2" ]]; then
      tree_hash_dir "$2"
    else
      out="$(tree_hash_tarball "$2")" || die "$2: $out"
      echo "$out"
    fi
    ;;
  *) echo "usage: $0 [fetch|list|tree-hash PATH]" >&2; exit 2 ;;
esac
