# shellcheck shell=bash
# What the real-sandbox scripts share (sourced after scripts/lib.sh): where their cache is, where the
# servers' sources come from and how they are checked, and Debian packages installed only when missing.

# What NsJail's unprivileged users read (codeapi's runtimes, LCI's jail packages, the nsjail binary) is
# made by these scripts: world-readable whatever umask the caller has (a 077 umask would lock the jail
# out exactly as a mode-0700 home does).
umask 022

# The cache of everything set up from the sources (the tarballs as checked, NsJail, each server's source
# tree, dependencies, venvs, runtimes), shared by every checkout on the machine: a new clone, a worktree
# or a CI workspace reuses what another set up, and `git clean` does not cost a 10-minute setup. Outside
# any checkout, so that neither a checkout under /tmp (codeapi's runner mounts a private /tmp) nor one
# inside a mode-0700 home (NsJail's user cannot traverse it) decides what the jail can reach; codeapi's
# runner sees its part through a private mount (codeapi.sh), so SANDBOX_CACHE may be anywhere. What
# belongs to one checkout's instance (pids, logs, keys, state, endpoint.json) stays in its
# .cache/sandboxes/.
SANDBOX_CACHE="$(realpath -m "${SANDBOX_CACHE:-/var/cache/code-session-gate/sandboxes}")"
SOURCES_CACHE="$SANDBOX_CACHE/sources"
# Where the archives are downloaded from: <base>/<owner>/<repo>/tar.gz/<commit>, GitHub's own URL form.
# Another base serves a mirror (or, in test-sources.sh, a local server standing in for GitHub).
SANDBOX_SOURCES_URL="${SANDBOX_SOURCES_URL:-https://codeload.github.com}"

# source_pin ID: sets PIN_ID, PIN_COMMIT, PIN_FILE, PIN_TREE, PIN_REPOS (array) and PIN_NAME (the tarball's
# name, as shared/sandboxes names it) from scripts/versions.sh's SANDBOX_SOURCE_PINS.
source_pin() {
  local entry fields
  for entry in "${SANDBOX_SOURCE_PINS[@]}"; do
    read -r -d '' -a fields <<<"$entry" || true
    [[ "${fields[0]}" == "$1" ]] || continue
    PIN_ID="${fields[0]}" PIN_COMMIT="${fields[1]}" PIN_FILE="${fields[2]}" PIN_TREE="${fields[3]}"
    PIN_REPOS=("${fields[@]:4}")
    PIN_NAME="$PIN_ID-${PIN_COMMIT:0:7}.tar.gz"
    return 0
  done
  die "no pinned source named $1 (scripts/versions.sh SANDBOX_SOURCE_PINS)"
}

# sandbox_source_ids: every pinned source's id, one a line.
sandbox_source_ids() {
  local entry
  for entry in "${SANDBOX_SOURCE_PINS[@]}"; do echo "${entry%%[[:space:]]*}"; done
}

# tree_hash_dir DIR: the SHA-256 of a source tree as git archives it, whatever archive carried it: the
# regular files' contents by path, which of them are executable, and the symlinks' targets, sorted
# bytewise. Not hashed: directories (git keeps none; a submodule is an empty one in every archive),
# owners, modes other than the executable bit (git archive writes 0664/0775 under its umask, others
# 0644/0755), mtimes, the archive's top folder, its format and compression. Run it on a checkout's
# `git archive <commit>` or on GitHub's tarball of that commit: both give the pinned value.
tree_hash_dir() (
  cd "$1" || exit 1
  export LC_ALL=C
  {
    find . -type f -print0 | sort -z | xargs -0 -r sha256sum --
    echo '# executable'
    find . -type f -perm -u+x -print0 | sort -z | tr '\0' '\n'
    echo '# symlinks'
    find . -type l -printf '%p -> %l\0' | sort -z | tr '\0' '\n'
  } | sha256sum | cut -c1-64
)

# tree_hash_tarball FILE: tree_hash_dir of the archive's one top-level folder (extracted into a scratch
# folder that is removed again). Fails, saying why on stdout, for anything that is not a gzipped tar of
# exactly one folder.
tree_hash_tarball() {
  local tmp top rc=0
  tmp="$(mktemp -d)"
  mkdir "$tmp/x"
  if ! tar -xzf "$1" -C "$tmp/x" --no-same-owner 2>"$tmp/err"; then
    echo "not a readable .tar.gz ($(grep -m 1 . "$tmp/err" || true))"
    rc=1
  else
    mapfile -t top < <(find "$tmp/x" -mindepth 1 -maxdepth 1)
    if ((${#top[@]} != 1)) || [[ ! -d "${top[0]}" || -L "${top[0]}" ]]; then
      echo "not an archive of one folder (as git archive and GitHub write them)"
      rc=1
    else
      tree_hash_dir "${top[0]}" || rc=1
    fi
  fi
  rm -rf "$tmp"
  return "$rc"
}

# source_cached: the cache holds this pin's tarball, checked (its record, "<file sha256> <tree sha256>",
# beside it), and its bytes are still the ones that were checked.
source_cached() {
  local file="$SOURCES_CACHE/$PIN_NAME" rec sum
  [[ -f "$file" && -f "$file.sha256" ]] || return 1
  read -r rec <"$file.sha256" || return 1
  [[ "${rec#* }" == "$PIN_TREE" ]] || return 1
  sum="$(sha256sum <"$file" | cut -c1-64)"
  [[ "$sum" == "${rec%% *}" ]]
}

# source_check FILE: whether FILE is this pin's source: its bytes are the file pin, or else its tree is the
# tree pin (GitHub's tarball of the commit has other bytes: its own top folder, mtimes and compression).
# Prints its file sha256 when it is, why not when it is not.
source_check() {
  local sum tree
  sum="$(sha256sum <"$1" | cut -c1-64)"
  if [[ "$sum" != "$PIN_FILE" ]]; then
    tree="$(tree_hash_tarball "$1")" || { echo "$tree"; return 1; }
    if [[ "$tree" != "$PIN_TREE" ]]; then
      echo "its tree hashes to $tree, the pin of ${PIN_REPOS[0]}@$PIN_COMMIT is $PIN_TREE (another commit, or corrupted)"
      return 1
    fi
  fi
  echo "$sum"
}

# source_keep FILE SUM: copies a checked FILE into the cache, its record beside it.
source_keep() {
  mkdir -p "$SOURCES_CACHE"
  cp "$1" "$SOURCES_CACHE/.$PIN_NAME.$$"
  mv -f "$SOURCES_CACHE/.$PIN_NAME.$$" "$SOURCES_CACHE/$PIN_NAME"
  echo "$2 $PIN_TREE" >"$SOURCES_CACHE/$PIN_NAME.sha256"
}

# sandbox_source ID: the path of ID's pinned source tarball in the cache, checked. Taken from the cache,
# else from SANDBOX_SOURCES, else from <checkout>/../shared/sandboxes (as CI lays it), else downloaded
# from its repository (then its mirrors) at the pinned commit. A tarball found but not matching its pin
# is refused, not replaced by a download: someone put it there. When no source is reachable it fails
# with one line that says how to provide them.
sandbox_source() {
  source_pin "$1"
  if source_cached; then echo "$SOURCES_CACHE/$PIN_NAME"; return 0; fi
  local dir beside url repo tmp rc out err=""
  beside="$(realpath -m "$ROOT/../shared/sandboxes")"
  for dir in "${SANDBOX_SOURCES:-}" "$beside"; do
    [[ -n "$dir" && -f "$dir/$PIN_NAME" ]] || continue
    out="$(source_check "$dir/$PIN_NAME")" || die "$PIN_NAME in $dir refused: $out"
    source_keep "$dir/$PIN_NAME" "$out"
    echo "$SOURCES_CACHE/$PIN_NAME"
    return 0
  done
  mkdir -p "$SOURCES_CACHE"
  tmp="$SOURCES_CACHE/.download.$$"
  for repo in "${PIN_REPOS[@]}"; do
    url="$SANDBOX_SOURCES_URL/$repo/tar.gz/$PIN_COMMIT"
    rc=0
    curl -fsSL --connect-timeout 10 --max-time 600 -o "$tmp" "$url" 2>"$tmp.err" || rc=$?
    if ((rc == 0)); then
      rc=0
      out="$(source_check "$tmp")" || rc=1
      ((rc)) || source_keep "$tmp" "$out"
      rm -f "$tmp" "$tmp.err"
      ((rc == 0)) || die "$PIN_NAME downloaded from $url refused: $out"
      log "sources: $PIN_NAME downloaded from $url and checked"
      echo "$SOURCES_CACHE/$PIN_NAME"
      return 0
    fi
    err="${err:+$err; }$url: $(tr '\n' ' ' <"$tmp.err" | sed 's/^curl: ([0-9]*) //; s/ *$//')"
    rm -f "$tmp" "$tmp.err"
    # Cannot resolve, cannot connect, timed out: the host is out of reach, and the mirrors are on it too.
    case "$rc" in 6 | 7 | 28) break ;; esac
  done
  die "no source for $PIN_NAME: not in SANDBOX_SOURCES (${SANDBOX_SOURCES:-unset}) nor $beside, and $err; set SANDBOX_SOURCES to a folder holding the tarballs (scripts/sandboxes/sources.sh list), or let this machine reach $SANDBOX_SOURCES_URL"
}

# apt_install_missing PACKAGE...: installs those not installed yet. The lock timeout waits for a parallel
# apt run (another sandbox's setup) instead of failing; stale package lists are updated once.
apt_install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  log "apt-get install ${missing[*]}"
  apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >&2 \
    || { apt-get -o DPkg::Lock::Timeout=600 update >&2 \
         && apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >&2; }
}

# setup_lock DIR: holds DIR/.setup.lock (fd 8) until the calling script exits: two checkouts setting up
# the same server into the shared cache take turns, and the second finds the first's work done.
setup_lock() {
  mkdir -p "$1"
  exec 8>"$1/.setup.lock"
  flock -n 8 || { log "waiting for another setup of $1"; flock 8; }
}
