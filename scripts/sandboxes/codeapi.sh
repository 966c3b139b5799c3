#!/usr/bin/env bash
# Runs the real codeapi (LibreChat's Code API, TypeScript on Bun) from its pinned source (sources.sh),
# in its production auth mode (LibreChat's short-lived EdDSA JWT), for the worker's
# end-to-end tests.
#
#   scripts/sandboxes/codeapi.sh setup    install everything once (apt, NsJail, Bun, moto, codeapi's deps)
#   scripts/sandboxes/codeapi.sh start    start it all; write and print .cache/sandboxes/codeapi/endpoint.json
#   scripts/sandboxes/codeapi.sh stop     stop everything `start` started
#   scripts/sandboxes/codeapi.sh status   exit 0 when a started instance answers its health check
#
# What runs (each its own process, like codeapi's docker-compose, minus the pieces a stateless
# /exec does not need: no egress gateway, no tool-call server, no microVM launcher):
#   redis-server            BullMQ queues, session keys, rate-limit counters
#   moto (S3) on waitress   object storage behind the file server
#   file-server.ts          codeapi's object store front (uploads, downloads, metadata)
#   sandbox-runner (api/)   runs each job in NsJail
#   worker-server.ts        takes jobs off the queues and calls the sandbox-runner
#   api-server.ts           the public HTTP API, /v1/exec, /v1/upload, /v1/download/...
# All of them bind every interface, so they live in a private network namespace; one socat pair
# (TCP on 127.0.0.1 outside, a unix socket in .cache as the bridge, TCP inside) makes the API port the
# only thing reachable, on 127.0.0.1:$CODEAPI_PORT.
#
# What setup makes is shared by every checkout on the machine, in $SANDBOX_CACHE/codeapi/<commit>/
# (default /var/cache/code-session-gate/sandboxes; common.sh says why): the source tree with its
# dependencies and bundles, Bun, the S3 venv, spec-guard, the runtimes, NsJail's config. One instance
# per checkout: its pids, logs, JWT keys and endpoint.json live in the checkout's .cache/sandboxes/codeapi.
# Env: CODEAPI_PORT (default 8811), CODEAPI_START_TIMEOUT (seconds, default 120), SANDBOX_CACHE,
# SANDBOX_SOURCES, SANDBOX_SOURCES_URL (see sources.sh).
# codeapi's own limits keep codeapi's defaults unless set here, for `start` (see PASSTHROUGH_ENV):
# MAX_REQUESTS / RATE_LIMIT_WINDOW (exec, 20 per 30000 ms per user), UPLOAD_MAX_REQUESTS /
# UPLOAD_LIMIT_WINDOW (30 per 300000 ms), DOWNLOAD_*, FETCH_*, MAX_FILE_SIZE (25 MiB), JOB_TIMEOUT
# (300000 ms), SANDBOX_RUN_TIMEOUT (300000 ms here, as in codeapi's compose file), SANDBOX_OUTPUT_MAX_SIZE.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib.sh"
# shellcheck source=scripts/sandboxes/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The versions codeapi's own Dockerfiles pin (oven/bun:1.3.14); moto and waitress are ours.
BUN_VERSION=1.3.14
MOTO_VERSION=5.2.5
WAITRESS_VERSION=3.0.2

source_pin codeapi
# The shared part, one folder per pinned commit (a new pin sets up beside the old one).
CACHE="$SANDBOX_CACHE/codeapi/${PIN_COMMIT:0:7}"
SRC="$CACHE/src"
VENV="$CACHE/venv"
BUN="$CACHE/bun/bin/bun"
SPEC_GUARD_DIR="$CACHE/spec-guard"
PKGS="$CACHE/pkgs"
NSJAIL_CFG="$CACHE/sandbox.cfg"
# This checkout's instance.
DIR="$ROOT/.cache/sandboxes/codeapi"
RUN="$DIR/run"
LOGS="$DIR/logs"
KEYS="$DIR/keys"
ENDPOINT_JSON="$DIR/endpoint.json"
PORT="${CODEAPI_PORT:-8811}"
# One namespace per port, so two instances (or another sandbox's namespace) never collide.
NETNS="codeapi-$PORT"
JWT_ISSUER=librechat
JWT_AUDIENCE=codeapi

# Ports inside the namespace: codeapi's compose defaults; nothing outside can see them.
REDIS_PORT=6379
S3_PORT=9000
FILE_SERVER_PORT=3000
RUNNER_PORT=2000
API_PORT=3112
WORKER_HEALTH_PORT=3113
# Where the sandbox-runner sees the shared cache and NsJail, in its own mount namespace (see start).
RUNNER_VIEW=/mnt/csg

nsjail_bin() {
  # NsJail is shared with the other sandbox scripts: nsjail.sh builds it once from the tarballs.
  "$ROOT/scripts/sandboxes/nsjail.sh" | tail -n 1
}

# ---------------------------------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------------------------------

setup_apt() {
  # redis-server: codeapi's queues; socat: the one port out of the namespace; iproute2: `ip netns`;
  # gcc + libc6-dev: the static spec-guard; openssl: the JWT key pair; python3-venv: moto's venv.
  apt_install_missing redis-server socat iproute2 gcc libc6-dev openssl python3 python3-venv ca-certificates curl
}

setup_source() {
  local tarball stamp="$CACHE/.src"
  [[ -f "$stamp" && -d "$SRC/service/src" && -f "$NSJAIL_CFG" ]] && return 0
  tarball="$(sandbox_source codeapi)"
  log "codeapi: extracting $PIN_NAME"
  rm -rf "$SRC" "$CACHE"/.deps-* "$CACHE"/.build-*
  mkdir -p "$SRC"
  # --strip-components: the top folder is codeapi/ in shared/sandboxes, code-interpreter-<commit>/ in GitHub's.
  tar -xzf "$tarball" -C "$SRC" --strip-components=1 --no-same-owner
  # NsJail's config without the cgroup_* lines, the same edit codeapi's entrypoint makes when cgroup
  # v2 delegation is off: jobs are limited by rlimits and the time limit only. Delegating cgroup v2
  # would mean moving host processes between cgroups, which a test script should not do.
  sed '/^cgroup_/d' "$SRC/api/config/sandbox.cfg" >"$NSJAIL_CFG"
  touch "$stamp"
}

setup_bun() {
  local stamp="$CACHE/.bun-$BUN_VERSION" pkg=bun-linux-x64 tmp
  [[ -f "$stamp" && -x "$BUN" ]] && return 0
  case "$(uname -m)" in
    x86_64)
      # Bun's default x64 build needs AVX2; the baseline build runs on older CPUs too.
      grep -qw avx2 /proc/cpuinfo || pkg=bun-linux-x64-baseline ;;
    aarch64) pkg=bun-linux-aarch64 ;;
    *) die "no Bun build for $(uname -m)" ;;
  esac
  log "codeapi: fetching Bun $BUN_VERSION (@oven/$pkg from the npm registry)"
  # The platform package carries the binary itself, so no install script has to download anything.
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "@oven/$pkg@$BUN_VERSION" >/dev/null)
  tar -xzf "$tmp"/oven-*.tgz -C "$tmp"
  mkdir -p "$(dirname "$BUN")"
  install -m 0755 "$tmp/package/bin/bun" "$BUN"
  rm -rf "$tmp"
  "$BUN" --version >/dev/null
  touch "$stamp"
}

setup_deps() {
  # Both packages install from their frozen bun.lock (registry.npmjs.org), like their Dockerfiles;
  # afterwards nothing at start needs the network.
  local part stamp
  for part in service api; do
    stamp="$CACHE/.deps-$part-$(hash_files "$SRC/$part/package.json" "$SRC/$part/bun.lock")"
    [[ -f "$stamp" && -d "$SRC/$part/node_modules" ]] && continue
    log "codeapi: bun install ($part)"
    (cd "$SRC/$part" && "$BUN" install --frozen-lockfile >"$LOGS/setup-bun-install-$part.log" 2>&1) \
      || { tail -n 30 "$LOGS/setup-bun-install-$part.log" >&2; die "bun install failed for $part"; }
    rm -f "$CACHE"/.deps-"$part"-*
    touch "$stamp"
  done
}

setup_build() {
  # Bundle each entry point the way codeapi's Dockerfiles do: the bundles resolve their external
  # @opentelemetry imports from the package's own node_modules, which running the .ts files in place
  # cannot do for ../shared/telemetry-core.ts.
  local stamp
  stamp="$CACHE/.build-$(cd "$SRC" && find service/src api/src shared -type f -name '*.ts' -print0 \
    | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
  [[ -f "$stamp" ]] && return 0
  log "codeapi: bundling the service entry points and the sandbox-runner"
  (
    cd "$SRC/service"
    local entry
    for entry in file-server api-server worker-server; do
      "$BUN" build "./src/$entry.ts" --minify --outdir ".build-$entry" --target bun --external '@opentelemetry/*'
    done
    cd "$SRC/api"
    # Its build script calls a bare `bun`.
    PATH="$(dirname "$BUN"):$PATH" "$BUN" run build
  ) >"$LOGS/setup-build.log" 2>&1 || { tail -n 30 "$LOGS/setup-build.log" >&2; die "bundling failed"; }
  rm -f "$CACHE"/.build-*
  touch "$stamp"
}

setup_modes() {
  # bun install keeps the modes its package tarballs carry, some of them world-writable (28,000 files of
  # codeapi's node_modules). LibreCodeInterpreter's jail runs on the host's filesystem as an unprivileged
  # user, so it could rewrite code that codeapi then runs as root: nobody but root writes in the cache.
  find "$CACHE" -perm /go+w ! -type l -exec chmod go-w {} +
}

setup_spec_guard() {
  # Every job runs under /usr/local/bin/spec-guard inside the jail; the runner sees our copy there
  # through a bind mount in its own mount namespace (see start_runner), so the host is left as it is.
  [[ -x "$SPEC_GUARD_DIR/spec-guard" && "$SPEC_GUARD_DIR/spec-guard" -nt "$SRC/api/src/spec-guard.c" ]] && return 0
  log "codeapi: compiling spec-guard"
  mkdir -p "$SPEC_GUARD_DIR"
  gcc -O2 -static -o "$SPEC_GUARD_DIR/spec-guard" "$SRC/api/src/spec-guard.c"
}

setup_pkgs() {
  # The runner looks up language runtimes in <packages>/<lang>/<version>/ (pkg-info.json, run, .env,
  # .package-installed). codeapi's image builds Python 3.14.4 from source with ~50 libraries; here the
  # host's /usr/bin/python3 and /usr/bin/bash serve under the versions the API asks for (3.14.4,
  # 5.2.0), which is all the protocol tests need: the jail mounts the host's /usr read-only anyway.
  local py="$PKGS/python/3.14.4" sh="$PKGS/bash/5.2.0"
  [[ -f "$py/.package-installed" && -f "$sh/.package-installed" ]] && return 0
  log "codeapi: registering the host's python3 and bash as sandbox runtimes"
  mkdir -p "$py" "$sh"
  printf '{"language":"python","version":"3.14.4","aliases":["py","py3","python3"]}\n' >"$py/pkg-info.json"
  printf '#!/bin/bash\nexec /usr/bin/python3 "$@"\n' >"$py/run"
  printf 'PATH=/usr/local/bin:/usr/bin:/bin\n' >"$py/.env"
  printf '{"language":"bash","version":"5.2.0","aliases":["sh"]}\n' >"$sh/pkg-info.json"
  printf '#!/bin/bash\nbash "$@"\n' >"$sh/run"
  printf 'PATH=/usr/local/bin:/usr/bin:/bin\n' >"$sh/.env"
  chmod 0755 "$py/run" "$sh/run"
  chmod -R a+rX "$PKGS"
  date +%s000 >"$py/.package-installed"
  date +%s000 >"$sh/.package-installed"
}

setup_venv() {
  local stamp="$CACHE/.venv-moto-$MOTO_VERSION-waitress-$WAITRESS_VERSION"
  [[ -f "$stamp" && -x "$VENV/bin/python" ]] && return 0
  log "codeapi: python venv with moto $MOTO_VERSION (S3) and waitress $WAITRESS_VERSION"
  # The Debian python3, not a pyenv shim: a fresh machine has only that one.
  rm -rf "$VENV"
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "moto[s3,server]==$MOTO_VERSION" "waitress==$WAITRESS_VERSION" >"$LOGS/setup-pip.log" 2>&1 \
    || { tail -n 30 "$LOGS/setup-pip.log" >&2; die "pip install failed"; }
  touch "$stamp"
}

setup_node_tools() {
  # jose for mint-codeapi-token.mjs, at the version the worker pins, for machines where the worker's
  # own node_modules is not installed.
  local version stamp
  version="$(sed -n 's/.*"jose": *"\([^"]*\)".*/\1/p' "$ROOT/worker/package.json" | head -n 1)"
  version="${version:-6.2.19}"
  stamp="$DIR/.jose-$version"
  [[ -f "$stamp" && -d "$DIR/node/node_modules/jose" ]] && return 0
  log "codeapi: npm install jose@$version (for the token script)"
  mkdir -p "$DIR/node"
  npm install --silent --no-audit --no-fund --prefix "$DIR/node" "jose@$version" >"$LOGS/setup-npm.log" 2>&1 \
    || { tail -n 20 "$LOGS/setup-npm.log" >&2; die "npm install jose failed"; }
  rm -f "$DIR"/.jose-*
  touch "$stamp"
}

cmd_setup() {
  [[ "$(id -u)" == 0 ]] || die "codeapi.sh needs root (network namespaces, NsJail)"
  mkdir -p "$DIR" "$LOGS"
  # The sources first: without them nothing below is worth its minutes.
  sandbox_source codeapi >/dev/null
  setup_lock "$CACHE"
  setup_apt
  setup_source
  setup_bun
  setup_deps
  setup_build
  setup_spec_guard
  setup_pkgs
  setup_venv
  setup_node_tools
  setup_modes
  nsjail_bin >/dev/null
  log "codeapi: setup done"
}

# ---------------------------------------------------------------------------------------------------
# start / stop
# ---------------------------------------------------------------------------------------------------

SERVICES=(redis s3 file-server sandbox-runner worker api bridge-inner bridge-outer)

# codeapi settings a test may change; each is handed to every service when set in start's env.
PASSTHROUGH_ENV=(MAX_REQUESTS RATE_LIMIT_WINDOW UPLOAD_MAX_REQUESTS UPLOAD_LIMIT_WINDOW
  DOWNLOAD_MAX_REQUESTS DOWNLOAD_LIMIT_WINDOW FETCH_MAX_REQUESTS FETCH_LIMIT_WINDOW MAX_FILE_SIZE
  JOB_TIMEOUT SANDBOX_RUN_TIMEOUT SANDBOX_RUN_CPU_TIME SANDBOX_OUTPUT_MAX_SIZE SANDBOX_MAX_FILE_SIZE
  SANDBOX_MAX_OUTPUT_FILES SANDBOX_RUN_MEMORY_LIMIT EXECUTION_MANIFEST_MAX_UPLOAD_BYTES)

# The settings this start asks for, one line each; a running instance is reused only when they match.
wanted_config() {
  local v
  echo "port=$PORT kid=$(cat "$KEYS/kid" 2>/dev/null)"
  for v in "${PASSTHROUGH_ENV[@]}"; do [[ -n "${!v:-}" ]] && echo "$v=${!v}"; done
  return 0
}

pid_of() { [[ -f "$RUN/$1.pid" ]] && cat "$RUN/$1.pid"; }
alive() { local p; p="$(pid_of "$1")" && [[ -n "$p" ]] && kill -0 "$p" 2>/dev/null; }

# Runs a command inside the namespace. nsenter (not `ip netns exec`) so the process keeps the host's
# mounts: `ip netns exec` remounts /sys, which would hide the cgroup tree.
NSENTER=(nsenter "--net=/run/netns/$NETNS" --)
in_ns() { "${NSENTER[@]}" "$@"; }

# Starts one service in its own session (so stop can end its whole process group) with its log in
# logs/<name>.log, and records its pid.
spawn() {
  local name="$1"; shift
  setsid "$@" >"$LOGS/$name.log" 2>&1 </dev/null &
  echo $! >"$RUN/$name.pid"
}

wait_http() {
  # Waits for an HTTP 200 from a URL inside the namespace, or fails naming the service's log.
  local name="$1" url="$2" deadline=$((SECONDS + ${CODEAPI_START_TIMEOUT:-120}))
  until in_ns curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; do
    if ! alive "$name"; then
      tail -n 40 "$LOGS/$name.log" >&2 || true
      die "codeapi: $name exited during start (log: $LOGS/$name.log)"
    fi
    ((SECONDS < deadline)) || { tail -n 40 "$LOGS/$name.log" >&2 || true; die "codeapi: $name not ready after ${CODEAPI_START_TIMEOUT:-120}s ($url)"; }
    sleep 0.3
  done
}

ensure_keys() {
  # The JWT key pair is made once and kept, so tokens minted by a test stay valid across restarts.
  mkdir -p "$KEYS"
  chmod 700 "$KEYS"
  if [[ ! -f "$KEYS/jwt-ed25519.pem" ]]; then
    log "codeapi: generating the JWT Ed25519 key pair"
    openssl genpkey -algorithm ed25519 -out "$KEYS/jwt-ed25519.pem.tmp"   # PKCS#8 PEM
    mv "$KEYS/jwt-ed25519.pem.tmp" "$KEYS/jwt-ed25519.pem"
    rm -f "$KEYS/jwt-ed25519.pub.pem" "$KEYS/kid"
  fi
  [[ -f "$KEYS/jwt-ed25519.pub.pem" ]] || openssl pkey -in "$KEYS/jwt-ed25519.pem" -pubout -out "$KEYS/jwt-ed25519.pub.pem"
  # The kid names the key: a regenerated key gets a new kid, and a stale token fails as unknown_kid.
  [[ -f "$KEYS/kid" ]] || printf 'codeapi-e2e-%s\n' \
    "$(openssl pkey -pubin -in "$KEYS/jwt-ed25519.pub.pem" -outform DER | sha256sum | cut -c1-12)" >"$KEYS/kid"
  # The worker signs each job's execution manifest and the runner checks it, as in codeapi's compose
  # file; this pair is ours too (base64 DER, the form their env vars take).
  if [[ ! -f "$KEYS/manifest-ed25519.pem" ]]; then
    openssl genpkey -algorithm ed25519 -out "$KEYS/manifest-ed25519.pem"
  fi
}

endpoint_json() {
  local kid
  kid="$(cat "$KEYS/kid")"
  printf '{ "url": "http://127.0.0.1:%s/v1", "dialect": "codeapi", "kid": "%s", "privateKeyPem": "%s", "issuer": "%s", "audience": "%s" }\n' \
    "$PORT" "$kid" "$KEYS/jwt-ed25519.pem" "$JWT_ISSUER" "$JWT_AUDIENCE"
}

write_endpoint() {
  # The file first (atomically), then stdout: a reader that closes the pipe early must not cost the file.
  endpoint_json >"$ENDPOINT_JSON.tmp"
  mv -f "$ENDPOINT_JSON.tmp" "$ENDPOINT_JSON"
  cat "$ENDPOINT_JSON"
}

healthy() {
  local s
  for s in "${SERVICES[@]}"; do alive "$s" || return 1; done
  curl -fsS -o /dev/null --max-time 3 "http://127.0.0.1:$PORT/v1/health"
}

cmd_stop() {
  local s p _
  for s in "${SERVICES[@]}"; do
    p="$(pid_of "$s" || true)"
    [[ -n "$p" ]] || continue
    # Each service leads its own process group (setsid): TERM the group, so the runner's NsJail jobs
    # and bun's children go with it; KILL what is left after a grace period.
    kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || true
  done
  for _ in $(seq 1 50); do
    local any=0
    for s in "${SERVICES[@]}"; do alive "$s" && any=1; done
    ((any)) || break
    sleep 0.2
  done
  for s in "${SERVICES[@]}"; do
    p="$(pid_of "$s" || true)"
    [[ -n "$p" ]] && { kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null || true; }
    rm -f "$RUN/$s.pid"
  done
  # The namespace recorded at start: a stop run with another CODEAPI_PORT still removes the right one.
  ip netns del "$(cat "$RUN/netns" 2>/dev/null || echo "$NETNS")" 2>/dev/null || true
  rm -f "$RUN/api.sock" "$RUN/config" "$RUN/netns" "$ENDPOINT_JSON"
}

cmd_start() {
  [[ "$(id -u)" == 0 ]] || die "codeapi.sh needs root (network namespaces, NsJail)"
  [[ -x "$BUN" && -d "$SRC/service/.build-api-server" && -x "$VENV/bin/python" && -f "$NSJAIL_CFG" ]] \
    || die "codeapi: not set up in $CACHE; run: scripts/sandboxes/codeapi.sh setup"
  # The runner's view of the cache is mounted on a tmpfs over /mnt (in its own namespace only).
  [[ -d /mnt ]] || die "codeapi: the runner needs an (empty or not) /mnt folder to mount its view of $CACHE on"
  mkdir -p "$RUN" "$LOGS"
  ensure_keys

  if healthy 2>/dev/null && [[ "$(wanted_config)" == "$(cat "$RUN/config" 2>/dev/null)" ]]; then
    log "codeapi: already running on 127.0.0.1:$PORT"
    write_endpoint
    return 0
  fi
  # Anything half-started (a crashed service, a stale namespace) is cleared before a clean start.
  cmd_stop
  if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/" 2>/dev/null; then
    die "codeapi: 127.0.0.1:$PORT is taken by another process (set CODEAPI_PORT)"
  fi

  local nsjail t0=$SECONDS
  nsjail="$(nsjail_bin)"
  log "codeapi: starting in network namespace $NETNS"
  ip netns add "$NETNS"
  echo "$NETNS" >"$RUN/netns"
  ip -n "$NETNS" link set lo up

  # Per-start secrets for the services' own traffic: nothing outside the namespace holds them.
  local redis_pw internal_token s3_key s3_secret manifest_priv manifest_pub
  redis_pw="$(openssl rand -hex 16)"
  internal_token="$(openssl rand -hex 32)"
  s3_key="codeapi$(openssl rand -hex 4)"
  s3_secret="$(openssl rand -hex 20)"
  manifest_priv="$(openssl pkey -in "$KEYS/manifest-ed25519.pem" -outform DER | base64 -w0)"
  manifest_pub="$(openssl pkey -in "$KEYS/manifest-ed25519.pem" -pubout -outform DER | base64 -w0)"

  # The services see only this environment (env -i): nothing of the caller's leaks in by accident.
  local common=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$RUN" NODE_ENV=production
    REDIS_HOST=127.0.0.1 REDIS_PORT="$REDIS_PORT" REDIS_PASSWORD="$redis_pw"
    CODEAPI_INTERNAL_SERVICE_TOKEN="$internal_token" FILE_SERVER_URL="http://127.0.0.1:$FILE_SERVER_PORT")
  local v
  for v in "${PASSTHROUGH_ENV[@]}"; do [[ -n "${!v:-}" ]] && common+=("$v=${!v}"); done

  spawn redis "${NSENTER[@]}" redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --requirepass "$redis_pw" \
    --save '' --appendonly no --dir "$RUN"

  # moto's S3 behind waitress: Bun's HTTP client stalls on a server that closes every connection, as
  # moto's own werkzeug server does, and waitress keeps connections alive.
  spawn s3 "${NSENTER[@]}" env -i PATH=/usr/bin:/bin HOME="$RUN" \
    AWS_ACCESS_KEY_ID="$s3_key" AWS_SECRET_ACCESS_KEY="$s3_secret" AWS_DEFAULT_REGION=us-east-1 \
    "$VENV/bin/python" -c '
import sys, waitress
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
waitress.serve(DomainDispatcherApplication(create_backend_app), host="127.0.0.1",
               port=int(sys.argv[1]), threads=8, ident="moto")' "$S3_PORT"

  local deadline=$((SECONDS + 20))
  until REDISCLI_AUTH="$redis_pw" in_ns redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; do
    if ! alive redis || ((SECONDS >= deadline)); then
      tail -n 20 "$LOGS/redis.log" >&2
      die "codeapi: redis did not start"
    fi
    sleep 0.2
  done
  (cd "$SRC/service" && spawn file-server "${NSENTER[@]}" "${common[@]}" \
    FILE_SERVER_PORT="$FILE_SERVER_PORT" MINIO_BUCKET=codeapi MINIO_ENDPOINT=127.0.0.1 MINIO_PORT="$S3_PORT" \
    MINIO_USE_SSL=false MINIO_ACCESS_KEY="$s3_key" MINIO_SECRET_KEY="$s3_secret" MINIO_REGION=us-east-1 \
    "$BUN" run .build-file-server/file-server.js)

  # The runner gets its own mount namespace: a private /tmp (its job workspaces and NsJail logs), our
  # spec-guard at /usr/local/bin (the path its jobs exec), and its view of the cache and of NsJail at
  # $RUNNER_VIEW, a tmpfs of its own. Through that view neither the private /tmp (which would hide a
  # cache under /tmp) nor the folders above the cache (a mode-0700 home, which NsJail's unprivileged
  # user cannot traverse to mount the runtimes: exit 255) decide what its jobs reach. The host's
  # mounts stay untouched. HOME is the private /tmp: the checkout's run folder may be hidden under it.
  # shellcheck disable=SC2016 # the inner script's variables come from its env
  spawn sandbox-runner "${NSENTER[@]}" unshare --mount --propagation private -- \
    "${common[@]}" HOME=/tmp PORT="$RUNNER_PORT" \
    SANDBOX_PACKAGES_DIRECTORY="$RUNNER_VIEW/codeapi/pkgs" NSJAIL_PATH="$RUNNER_VIEW/nsjail/$(basename "$nsjail")" \
    NSJAIL_CONFIG="$RUNNER_VIEW/codeapi/sandbox.cfg" \
    SANDBOX_USE_CGROUPV2=false SANDBOX_LOG_LEVEL=INFO SANDBOX_OUTPUT_MAX_SIZE="${SANDBOX_OUTPUT_MAX_SIZE:-65536}" \
    SANDBOX_MAX_CONCURRENT_JOBS=8 SANDBOX_PER_JOB_UIDS=true \
    SANDBOX_RUN_TIMEOUT="${SANDBOX_RUN_TIMEOUT:-300000}" SANDBOX_RUN_CPU_TIME="${SANDBOX_RUN_CPU_TIME:-300000}" \
    SANDBOX_COMPILE_TIMEOUT=30000 \
    SANDBOX_REQUIRE_EGRESS_MANIFEST=true SANDBOX_EXECUTION_MANIFEST_PUBLIC_KEY="$manifest_pub" \
    VIEW="$RUNNER_VIEW" CACHE="$CACHE" NSJAIL_DIR="$(dirname "$nsjail")" \
    bash -c 'set -e
      # Mounts only inside the new mount namespace, never on the host.
      [[ "$(readlink /proc/self/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ]] || { echo "not in a private mount namespace" >&2; exit 1; }
      mount -t tmpfs -o size=1m,mode=0755 tmpfs "${VIEW%/*}"
      mkdir -p "$VIEW/codeapi" "$VIEW/nsjail"
      mount --bind "$CACHE" "$VIEW/codeapi"
      mount --bind "$NSJAIL_DIR" "$VIEW/nsjail"
      mount -t tmpfs -o size=1g,mode=1777 tmpfs /tmp
      mkdir -p /tmp/sandbox && chmod 711 /tmp/sandbox
      mount --bind "$VIEW/codeapi/spec-guard" /usr/local/bin
      cd "$VIEW/codeapi/src/api"
      exec "$VIEW/codeapi/bun/bin/bun" run .build/index.js'

  wait_http s3 "http://127.0.0.1:$S3_PORT/moto-api/"
  wait_http file-server "http://127.0.0.1:$FILE_SERVER_PORT/ready"
  wait_http sandbox-runner "http://127.0.0.1:$RUNNER_PORT/"

  (cd "$SRC/service" && spawn worker "${NSENTER[@]}" "${common[@]}" \
    SANDBOX_ENDPOINT="http://127.0.0.1:$RUNNER_PORT/api/v2" WORKER_HEALTH_PORT="$WORKER_HEALTH_PORT" \
    CODEAPI_EXECUTION_MANIFEST_PRIVATE_KEY="$manifest_priv" PYTHON_CONCURRENCY=2 OTHER_CONCURRENCY=8 \
    "$BUN" run .build-worker-server/worker-server.js)

  # Production auth: LibreChat's JWT, EdDSA only, our public key under our kid. No LOCAL_MODE.
  # The API builds a job's manifest claims only when it sees a manifest key (outside hardened mode),
  # so it gets the worker's key as well.
  (cd "$SRC/service" && spawn api "${NSENTER[@]}" "${common[@]}" \
    SERVICE_PORT="$API_PORT" LOCAL_MODE=false CODEAPI_AUTH_PROVIDER=librechat-jwt \
    CODEAPI_JWT_ISSUER="$JWT_ISSUER" CODEAPI_JWT_AUDIENCE="$JWT_AUDIENCE" CODEAPI_JWT_ALLOWED_ALGS=EdDSA \
    CODEAPI_JWT_PUBLIC_KEY="$(cat "$KEYS/jwt-ed25519.pub.pem")" CODEAPI_JWT_KID="$(cat "$KEYS/kid")" \
    SANDBOX_ENDPOINT="http://127.0.0.1:$RUNNER_PORT/api/v2" \
    CODEAPI_EXECUTION_MANIFEST_PRIVATE_KEY="$manifest_priv" \
    "$BUN" run .build-api-server/api-server.js)

  wait_http worker "http://127.0.0.1:$WORKER_HEALTH_PORT/ready"
  wait_http api "http://127.0.0.1:$API_PORT/v1/health"

  # The one way in: 127.0.0.1:$PORT -> unix socket (a file, so both namespaces see it) -> the API.
  rm -f "$RUN/api.sock"
  spawn bridge-inner "${NSENTER[@]}" socat "UNIX-LISTEN:$RUN/api.sock,fork,mode=600" "TCP:127.0.0.1:$API_PORT"
  local _
  for _ in $(seq 1 50); do [[ -S "$RUN/api.sock" ]] && break; sleep 0.1; done
  spawn bridge-outer socat "TCP-LISTEN:$PORT,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$RUN/api.sock"
  deadline=$((SECONDS + 20))
  until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/v1/health" 2>/dev/null; do
    ((SECONDS < deadline)) || die "codeapi: the API does not answer on 127.0.0.1:$PORT (logs: $LOGS)"
    sleep 0.2
  done
  wanted_config >"$RUN/config"
  log "codeapi: up on 127.0.0.1:$PORT in $((SECONDS - t0))s (logs: $LOGS)"
  write_endpoint
}

cmd_status() {
  if healthy; then endpoint_json; else echo "codeapi: not running" >&2; return 1; fi
}

case "${1:-}" in
  setup) cmd_setup ;;
  start) cmd_start ;;
  stop) cmd_stop; log "codeapi: stopped" ;;
  status) cmd_status ;;
  *) echo "usage: $0 setup|start|stop|status" >&2; exit 2 ;;
esac
