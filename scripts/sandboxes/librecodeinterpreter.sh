#!/usr/bin/env bash
# Runs the real LibreCodeInterpreter (usnavy13/LibreCodeInterpreter, Python/FastAPI + Redis + S3 + NsJail)
# on this machine without Docker, for the end-to-end tests of worker.
#
#   scripts/sandboxes/librecodeinterpreter.sh setup        install everything once (idempotent)
#   scripts/sandboxes/librecodeinterpreter.sh start        start (idempotent); prints endpoint.json
#   scripts/sandboxes/librecodeinterpreter.sh stop         stop everything start started
#   scripts/sandboxes/librecodeinterpreter.sh status       print endpoint.json if healthy, else exit 1
#   scripts/sandboxes/librecodeinterpreter.sh expire       every session and file expires now (Redis emptied)
#
# Env: LCI_PORT (8812), LCI_PYTHON (interpreter for the server's venv), SANDBOX_CACHE, SANDBOX_SOURCES,
# SANDBOX_SOURCES_URL (see sources.sh).
#
# Layout. Shared by every checkout on the machine, in $SANDBOX_CACHE/lci/<commit>/ (default
# /var/cache/code-session-gate/sandboxes; common.sh says why): src/ (the extracted source, never
# modified), venv/ (server), s3venv/ (moto S3 server), jail-py/ (cloudpickle+lz4 for the jailed Python).
# This checkout's instance, in .cache/sandboxes/lci/ (git-ignored): state/ (redis, S3, sandboxes,
# metrics db), logs/, run/ (pids, socket), api-key, endpoint.json.
#
# How it runs, and why:
# - Upstream expects to be PID 1 of a Docker image whose filesystem has /app/{src,data,ssl,dashboard},
#   /mnt/data, /var/lib/code-interpreter/{sandboxes,empty_proc}, /var/lib/php/sessions and
#   /opt/repl_server.py: every execution mounts tmpfs over those exact paths before calling nsjail, and
#   fails if one is missing. Rather than creating them on the host, `start` builds a private root
#   (tmpfs + bind mounts of the host's directories, plus those paths) inside its own mount namespace
#   and pivots into it, so the host's filesystem is not touched.
# - Redis, the S3 server and the API all listen on every interface or on fixed ports; they live in a
#   private network namespace (only `lo`). The one way in is a unix socket that a socat inside the
#   namespace forwards to the API, and a socat on the host that listens on 127.0.0.1:$LCI_PORT.
# - A private PID namespace whose PID 1 is killed by `stop` takes every process with it (the API's
#   pre-warmed REPLs and nsjail children included): no stray processes, no broad pkill.
# - The jail runs with the host's own /usr (nsjail is called with --disable_clone_newns): the jailed
#   Python is the host's /usr/bin/python3 (what upstream hardcodes), bash is /bin/bash.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib.sh"
# shellcheck source=scripts/sandboxes/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SELF="$ROOT/scripts/sandboxes/librecodeinterpreter.sh"
source_pin librecodeinterpreter
# The shared part, one folder per pinned commit (a new pin sets up beside the old one).
CACHE="$SANDBOX_CACHE/lci/${PIN_COMMIT:0:7}"
SRC="$CACHE/src"
VENV="$CACHE/venv"
S3VENV="$CACHE/s3venv"
JAILPY="$CACHE/jail-py"
# This checkout's instance.
LCI="$ROOT/.cache/sandboxes/lci"
STATE="$LCI/state"
LOGS="$LCI/logs"
RUN="$LCI/run"
PORT="${LCI_PORT:-8812}"
SOCK="$RUN/api.sock"
# Ports inside the private network namespace: nothing outside can reach them, so fixed values are fine.
API_INNER_PORT=8000
REDIS_PORT=6379
S3_PORT=3900
# moto accepts any credentials; these only have to match between the API and the S3 server.
S3_ACCESS_KEY=lci-test-access-key
S3_SECRET_KEY=lci-test-secret-key
S3_BUCKET=code-interpreter-files

# The server's interpreter. Upstream's image has 3.12, but its code runs on 3.11 (what a fresh machine
# of this kind has, via pyenv), so 3.11 comes first; LCI_PYTHON overrides.
find_python() {
  local c
  for c in "${LCI_PYTHON:-}" python3.11 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.11*/bin/python3.11 python3.12 \
           "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
    [[ -n "$c" ]] || continue
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys, venv; assert sys.version_info >= (3, 11)' 2>/dev/null; then
      # Resolve pyenv shims to the real interpreter so the venv does not depend on the shim's state.
      "$c" -c 'import sys; print(sys.executable)'
      return 0
    fi
  done
  die "no Python >= 3.11 with venv found (set LCI_PYTHON)"
}

cmd_setup() {
  mkdir -p "$LCI" "$LOGS"
  # The sources first: without them nothing below is worth its minutes.
  local tarball
  tarball="$(sandbox_source librecodeinterpreter)"
  setup_lock "$CACHE"
  # redis-server: sessions; socat: the one TCP pass-through; util-linux: unshare/nsenter/pivot_root;
  # iproute2: lo up in the namespace; python3: the interpreter the jail runs (/usr/bin/python3).
  apt_install_missing redis-server socat util-linux iproute2 python3 curl ca-certificates

  # NsJail, shared with the codeapi script (built once, under a lock).
  "$ROOT/scripts/sandboxes/nsjail.sh" >/dev/null

  local stamp="$CACHE/.stamp-src"
  if [[ ! -f "$stamp" ]]; then
    log "lci: extracting $PIN_NAME"
    rm -rf "$SRC" "$SRC.tmp"
    mkdir -p "$SRC.tmp"
    # --strip-components: the top folder is librecodeinterpreter/ here, LibreCodeInterpreter-<commit>/ in GitHub's.
    tar -xzf "$tarball" -C "$SRC.tmp" --strip-components=1 --no-same-owner
    mv "$SRC.tmp" "$SRC"
    # A new source means new requirements: let the venv stamp decide again.
    touch "$stamp"
  fi

  # Only what the server imports at run time: upstream's requirements.txt also lists its test,
  # lint and load-test tools (pytest, black, mypy, locust...), which only slow the install down.
  local req="$CACHE/requirements-runtime.txt"
  grep -vE '^\s*(pytest|black|flake8|mypy|locust|docker|requests-unixsocket)([=<>~! \[]|$)' \
    "$SRC/requirements.txt" >"$req.tmp"
  mv "$req.tmp" "$req"
  local py vstamp
  py="$(find_python)"
  vstamp="$CACHE/.stamp-venv-$(hash_files "$req")-$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  if [[ ! -f "$vstamp" ]]; then
    log "lci: server venv with $py (PyPI)"
    rm -rf "$VENV" "$CACHE"/.stamp-venv-*
    "$py" -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
    touch "$vstamp"
  fi

  # The S3 server: moto's, behind waitress (keep-alive capable; werkzeug's dev server is not meant to
  # be hammered). A separate venv so moto's pins never fight the server's.
  if [[ ! -f "$CACHE/.stamp-s3venv" ]]; then
    log "lci: S3 server venv (moto + waitress, PyPI)"
    rm -rf "$S3VENV"
    "$py" -m venv "$S3VENV"
    "$S3VENV/bin/pip" install -q --disable-pip-version-check 'moto[server]>=5,<6' 'waitress>=3' >&2
    touch "$CACHE/.stamp-s3venv"
  fi

  # The jailed Python is the host's /usr/bin/python3, which lacks cloudpickle and lz4: without them
  # the REPL cannot save or restore session state. Upstream puts /opt/skill-deps/python on the jail's
  # PYTHONPATH; `start` binds this folder there. Wheels only, for the jail's own Python version.
  local jver
  jver="$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  if [[ ! -f "$CACHE/.stamp-jailpy-$jver" ]]; then
    log "lci: cloudpickle + lz4 for the jail's Python $jver"
    rm -rf "$JAILPY" "$CACHE"/.stamp-jailpy-*
    "$VENV/bin/pip" install -q --disable-pip-version-check --target "$JAILPY/python" \
      --python-version "$jver" --only-binary=:all: cloudpickle lz4 >&2
    chmod -R a+rX "$JAILPY"
    touch "$CACHE/.stamp-jailpy-$jver"
  fi
  log "lci: set up"
}

# --- start / stop ---------------------------------------------------------------------------------

healthy() { curl -fsS -m 5 "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; }

running() { [[ -f "$RUN/ns.pid" ]] && kill -0 "$(cat "$RUN/ns.pid")" 2>/dev/null; }

write_endpoint() {
  local key
  key="$(cat "$LCI/api-key")"
  # Routes are at the root: url + "/exec", "/upload", "/download/...".
  printf '{ "url": "http://127.0.0.1:%s", "dialect": "librecodeinterpreter", "apiKey": "%s" }\n' \
    "$PORT" "$key" >"$LCI/endpoint.json.tmp"
  mv "$LCI/endpoint.json.tmp" "$LCI/endpoint.json"
  cat "$LCI/endpoint.json"
}

cmd_start() {
  [[ -f "$CACHE/.stamp-s3venv" && -x "$VENV/bin/python" ]] || die "lci: not set up in $CACHE; run '$0 setup' first"
  if running && healthy; then write_endpoint; return 0; fi
  # Half-started or crashed: clear it so the ports and the socket are free again.
  cmd_stop >/dev/null 2>&1 || true
  # Another checkout's instance on this port would answer the health check below with its own key.
  if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/" 2>/dev/null; then
    die "lci: 127.0.0.1:$PORT is taken by another process (set LCI_PORT)"
  fi

  mkdir -p "$LOGS" "$RUN" "$STATE"
  # Jailed code runs as uid 1001 on the host's own filesystem (upstream's design: nsjail without a
  # mount namespace). It never needs to walk into this folder (its files reach it through bind
  # mounts), so closing it keeps other sessions' sandboxes, the S3/Redis data, the logs and the keys
  # out of its sight.
  chmod 0700 "$LCI"
  if [[ ! -s "$LCI/api-key" ]]; then
    # Upstream refuses keys shorter than 16 characters.
    (umask 077; od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$LCI/api-key")
  fi
  if [[ ! -s "$LCI/master-key" ]]; then
    (umask 077; od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$LCI/master-key")
  fi
  rm -f "$SOCK"

  log "lci: starting (logs in $LOGS)"
  # --kill-child: when `stop` kills this unshare, the namespace's PID 1 gets SIGKILL, and with it
  # every process in the namespace. setsid: not tied to the caller's terminal or process group.
  setsid unshare --net --mount --pid --fork --kill-child --propagation private \
    -- "$SELF" __inner >"$LOGS/namespace.log" 2>&1 </dev/null &
  echo $! >"$RUN/ns.pid"

  # The host side of the one pass-through, 127.0.0.1 only.
  setsid socat "TCP-LISTEN:$PORT,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$SOCK" \
    >"$LOGS/socat-host.log" 2>&1 </dev/null &
  echo $! >"$RUN/socat.pid"

  local i
  for ((i = 0; i < 180; i++)); do
    if healthy; then
      log "lci: healthy after ${i}s"
      write_endpoint
      return 0
    fi
    if ! running; then
      tail -n 30 "$LOGS"/namespace.log "$LOGS"/s3.log "$LOGS"/api.log 2>/dev/null >&2 || true
      cmd_stop
      die "lci: the namespace exited (logs in $LOGS)"
    fi
    sleep 1
  done
  tail -n 30 "$LOGS"/api.log >&2 || true
  cmd_stop
  die "lci: not healthy after 180s (logs in $LOGS)"
}

cmd_stop() {
  local f pid
  for f in "$RUN/socat.pid" "$RUN/ns.pid"; do
    [[ -f "$f" ]] || continue
    pid="$(cat "$f")"
    # Only our own pids, and only if they still are what we started (a recycled pid is left alone).
    if kill -0 "$pid" 2>/dev/null && grep -qE 'socat|unshare' "/proc/$pid/cmdline" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.3; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  done
  rm -f "$SOCK" "$LCI/endpoint.json"
  log "lci: stopped"
}

cmd_status() {
  if running && healthy; then cat "$LCI/endpoint.json"; else echo "lci: not running" >&2; return 1; fi
}

# What a day does to the server's files, now: its sessions and file metadata live in Redis with a
# 24-hour TTL, so emptying Redis makes every session and file unknown to it (downloads and object checks
# answer 404, an /exec naming a file runs without it), as after expiry. For the worker's tests of files
# that outlive the sandbox; LibreCodeInterpreter has no route that deletes a file.
cmd_expire() {
  running || die "lci: not running"
  local inside
  inside="$(pgrep -P "$(cat "$RUN/ns.pid")" | head -n 1)"
  [[ -n "$inside" ]] || die "lci: the namespace has no process to enter"
  nsenter --target "$inside" --net redis-cli -p "$REDIS_PORT" FLUSHALL >/dev/null
  log "lci: every session and file expired (Redis emptied)"
}

# --- inside the namespaces (PID 1 of the new PID namespace) ---------------------------------------

# Mirrors host directory $1 into $R$1 as a tmpfs holding bind mounts of each of its entries, so that
# new entries can be added in the private root without touching the host's directory.
shadow_dir() {
  local d="$1" e name
  mkdir -p "$R$d"
  mount -t tmpfs -o mode=0755 tmpfs "$R$d"
  for e in "$d"/* "$d"/.[!.]*; do
    [[ -e "$e" || -L "$e" ]] || continue
    name="${e##*/}"
    if [[ -L "$e" ]]; then
      cp -P "$e" "$R$d/$name"
    elif [[ -d "$e" ]]; then
      mkdir -p "$R$d/$name"
      mount --rbind "$e" "$R$d/$name"
    else
      touch "$R$d/$name"
      mount --bind "$e" "$R$d/$name"
    fi
  done
}

bind_file() { touch "$2"; mount --bind "$1" "$2"; }

inner() {
  ip link set lo up
  # The private root lives on a tmpfs over /mnt (host /mnt unaffected: this is our mount namespace).
  mount -t tmpfs -o mode=0755 tmpfs /mnt
  R=/mnt/root
  mkdir -p "$R"
  mount -t tmpfs -o mode=0755 tmpfs "$R"

  local e name
  for e in /* ; do
    name="${e##*/}"
    case "$name" in
      proc|sys|dev|mnt|opt|var|app|lost+found) continue ;;
    esac
    if [[ -L "$e" ]]; then cp -P "$e" "$R/$name"
    elif [[ -d "$e" ]]; then mkdir -p "$R/$name"; mount --rbind "$e" "$R/$name"
    fi
  done
  mkdir -p "$R/proc" "$R/sys" "$R/dev"
  mount -t proc proc "$R/proc"          # this PID namespace's own /proc
  mount --rbind /sys "$R/sys"
  mount --rbind /dev "$R/dev"

  # /var: the host's entries, plus /var/lib/code-interpreter and /var/lib/php/sessions.
  shadow_dir /var
  shadow_dir /var/lib
  mkdir -p "$R/var/lib/code-interpreter/sandboxes" "$R/var/lib/code-interpreter/empty_proc" \
           "$STATE/sandboxes"
  # Sandboxes on disk, not in RAM.
  mount --bind "$STATE/sandboxes" "$R/var/lib/code-interpreter/sandboxes"
  # PHP is not installed here; a host /var/lib/php (if any) is replaced by an empty one.
  if mountpoint -q "$R/var/lib/php"; then umount -l "$R/var/lib/php"; fi
  mkdir -p "$R/var/lib/php/sessions"
  [[ -d /run/lock ]] || { echo "/run/lock missing on the host" >&2; exit 1; }

  # /opt: the host's entries, plus upstream's REPL servers and the jail's Python packages.
  if [[ -d /opt ]]; then shadow_dir /opt; else mkdir -p "$R/opt"; fi
  bind_file "$SRC/docker/repl_server.py" "$R/opt/repl_server.py"
  bind_file "$SRC/docker/ptc_server.py" "$R/opt/ptc_server.py"
  bind_file "$SRC/docker/ptc_bash_server.py" "$R/opt/ptc_bash_server.py"
  mkdir -p "$R/opt/skill-deps"
  mount --bind "$JAILPY" "$R/opt/skill-deps"
  # Each execution mounts tmpfs over /tmp, /var/tmp, /var/log... before it calls nsjail, so nsjail
  # must live where that never happens: a checkout under /tmp would otherwise lose it.
  mkdir -p "$R/opt/lci"
  bind_file "$("$ROOT/scripts/sandboxes/nsjail.sh" --path)" "$R/opt/lci/nsjail"

  # /app as in upstream's image: source and dashboard read-only, data writable.
  mkdir -p "$R/app/src" "$R/app/dashboard" "$R/app/data" "$R/app/ssl" "$STATE/app-data"
  mount --bind "$SRC/src" "$R/app/src"
  mount --bind "$SRC/dashboard" "$R/app/dashboard"
  mount --bind "$STATE/app-data" "$R/app/data"
  mkdir -p "$R/mnt/data"

  mkdir -p "$R/.oldroot"
  cd "$R"
  pivot_root . .oldroot
  cd /
  umount -l /.oldroot
  rmdir /.oldroot

  local nsjail=/opt/lci/nsjail
  [[ -x "$nsjail" ]] || { echo "nsjail missing" >&2; exit 1; }

  mkdir -p "$STATE/redis" "$STATE/s3"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$STATE/redis" --save '' \
    --appendonly no --daemonize no --maxmemory 256mb --maxmemory-policy allkeys-lru \
    >"$LOGS/redis.log" 2>&1 &

  # moto keeps the objects in memory: a restart starts with an empty bucket, as Redis does.
  (cd "$STATE/s3" && exec "$S3VENV/bin/python" -c '
import sys
from moto.server import create_backend_app
from moto.moto_server.werkzeug_app import DomainDispatcherApplication
from waitress import serve
app = DomainDispatcherApplication(create_backend_app)
serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=8)
' "$S3_PORT") >"$LOGS/s3.log" 2>&1 &

  # The namespace's half of the pass-through: unix socket (reachable from the host's filesystem)
  # to the API's TCP port.
  socat "UNIX-LISTEN:$SOCK,fork,mode=0600" "TCP:127.0.0.1:$API_INNER_PORT" >"$LOGS/socat-ns.log" 2>&1 &

  # Wait for Redis and S3 before the API: it checks both at startup.
  local i
  for ((i = 0; i < 60; i++)); do
    redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 &&
      curl -s -o /dev/null "http://127.0.0.1:$S3_PORT/" && break
    sleep 0.5
  done

  cd /app
  # Settings that differ from upstream's defaults, and why:
  #  - S3_REGION=us-east-1: moto refuses a CreateBucket without LocationConstraint elsewhere.
  #  - API_HOST=127.0.0.1: the namespace's socat is its only client.
  #  - LOG_FORMAT=json: its text format writes colour codes even into a file.
  env -i PATH="${nsjail%/*}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" HOME=/root LANG=C.UTF-8 \
    PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
    API_HOST=127.0.0.1 API_PORT="$API_INNER_PORT" \
    API_KEY="$(cat "$LCI/api-key")" MASTER_API_KEY="$(cat "$LCI/master-key")" \
    REDIS_HOST=127.0.0.1 REDIS_PORT="$REDIS_PORT" \
    S3_ENDPOINT="127.0.0.1:$S3_PORT" S3_ACCESS_KEY="$S3_ACCESS_KEY" S3_SECRET_KEY="$S3_SECRET_KEY" \
    S3_REGION=us-east-1 S3_BUCKET="$S3_BUCKET" S3_SECURE=false \
    NSJAIL_BINARY="$nsjail" \
    LOG_LEVEL="${LCI_LOG_LEVEL:-INFO}" LOG_FORMAT=json \
    "$VENV/bin/python" -m src.main >"$LOGS/api.log" 2>&1 &

  # Any service dying takes the namespace down, so `start` notices instead of serving half a stack.
  wait -n || true
  echo "lci: a service exited; stopping the namespace" >&2
  exit 1
}

case "${1:-}" in
  setup) cmd_setup ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  expire) cmd_expire ;;
  __inner) inner ;;
  *) echo "usage: $0 setup|start|stop|status|expire" >&2; exit 2 ;;
esac
