#!/usr/bin/env bash
# Installs the SDK side of the benchmark: the published @librechat/agents 3.9.2 (its own ToolNode and
# its dependencies) into bench/.sdk/ (git-ignored), where bench/run.mjs looks for it by default
# (SDK_DIR=<folder with node_modules/@librechat/agents> overrides). Idempotent: does nothing when that
# version is already installed.
#
#   bench/setup.sh
set -euo pipefail

SDK_VERSION=3.9.2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="$here/.sdk"
installed="$dir/node_modules/@librechat/agents/package.json"

if [[ -f "$installed" ]] && [[ "$(node -p "require(process.argv[1]).version" "$installed")" == "$SDK_VERSION" ]]; then
  echo "bench/setup.sh: @librechat/agents $SDK_VERSION already installed in bench/.sdk"
  exit 0
fi

mkdir -p "$dir"
# A package.json of its own keeps npm from walking up to the repository's package.json.
cat > "$dir/package.json" <<JSON
{
  "name": "code-session-gate-bench-sdk",
  "private": true,
  "description": "The SDK side of bench/run.mjs (installed by bench/setup.sh)",
  "dependencies": { "@librechat/agents": "$SDK_VERSION" }
}
JSON
echo "bench/setup.sh: installing @librechat/agents $SDK_VERSION into bench/.sdk (takes a while)"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error
node -e "
  const v = require(process.argv[1]).version;
  if (v !== process.argv[2]) { console.error('bench/setup.sh: installed version ' + v + ', expected ' + process.argv[2]); process.exit(1); }
  console.log('bench/setup.sh: @librechat/agents ' + v + ' ready in bench/.sdk');
" "$installed" "$SDK_VERSION"
