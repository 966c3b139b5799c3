# shellcheck shell=bash
# What the real-sandbox scripts share (sourced after scripts/lib.sh): where the servers' sources are,
# and Debian packages installed only when missing.

# sandbox_sources TARBALL: the folder holding TARBALL, the project's shared/sandboxes (beside the checkout,
# as CI lays it), or SANDBOX_SOURCES.
sandbox_sources() {
  local c
  for c in "${SANDBOX_SOURCES:-}" "$ROOT/../shared/sandboxes"; do
    [[ -n "$c" && -f "$c/$1" ]] && { (cd "$c" && pwd); return 0; }
  done
  die "cannot find $1 (set SANDBOX_SOURCES to the shared/sandboxes folder)"
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
