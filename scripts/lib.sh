# shellcheck shell=bash
# Helpers shared by scripts/*.sh (sourced, not run). Sets ROOT to the repository root, puts the
# cargo bin directory on PATH (CI shells may not have it), and reads scripts/versions.sh.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in
  *":$CARGO_BIN:"*) ;;
  *) PATH="$CARGO_BIN:$PATH" ;;
esac
export PATH

# shellcheck source=scripts/versions.sh
. "$ROOT/scripts/versions.sh"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
note() { printf '    %s\n' "$*" >&2; }
die() { printf '\033[31mERROR: %s\033[0m\n' "$*" >&2; exit 1; }

# sha256 of the given files' contents and names, one line (used for "did anything change" stamps).
hash_files() {
  # shellcheck disable=SC2016
  sha256sum "$@" | sha256sum | cut -d' ' -f1
}
