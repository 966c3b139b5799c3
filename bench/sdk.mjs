// Loads the SDK side of bench/run.mjs: the published @librechat/agents (CommonJS build) from
// bench/.sdk/ (installed by bench/setup.sh) or from $SDK_DIR (a folder holding
// node_modules/@librechat/agents). Nothing of the SDK is re-implemented; the only seam replaced is the
// event dispatch: `dist/cjs/utils/events.cjs`'s `safeDispatchCustomEvent` export becomes a stub that
// hands `on_tool_execute` batches to a handler set by the bench and swallows every other event
// (ToolNode reads the export at call time, so re-assigning it is enough).
import { createRequire } from 'node:module';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SDK_VERSION = '3.9.2';
const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/** Where the SDK is expected: $SDK_DIR, else bench/.sdk. */
export function sdkRoot() {
  const env = process.env.SDK_DIR;
  return env != null && env !== '' ? resolve(env) : join(BENCH_DIR, '.sdk');
}

/**
 * The installed SDK's package.json path and version, or null when absent.
 * @returns {{ root: string, pkgDir: string, version: string } | null}
 */
export function locateSdk() {
  const root = sdkRoot();
  const linked = join(root, 'node_modules', '@librechat', 'agents');
  const pj = join(linked, 'package.json');
  if (!existsSync(pj)) return null;
  const pkgDir = realpathSync(linked);
  const { version } = JSON.parse(readFileSync(pj, 'utf8'));
  return { root, pkgDir, version };
}

/**
 * @typedef {{ toolCalls: Array<{ id: string, name: string, args: object, codeSessionContext?: unknown }>, resolve: (results: unknown[]) => void, reject: (e: unknown) => void }} ToolExecuteBatch
 * @typedef {{
 *   version: string, root: string,
 *   ToolNode: any, AIMessage: any, tool: any, z: any,
 *   onToolExecute: { handler: ((batch: ToolExecuteBatch) => void) | null },
 * }} Sdk
 */

/** Loads the SDK once (CommonJS, resolved as a consumer in `root` would) and stubs its event dispatch. */
export function loadSdk() {
  const where = locateSdk();
  if (where === null) throw new Error(`no @librechat/agents under ${sdkRoot()}/node_modules (run bench/setup.sh)`);
  const consumer = createRequire(join(where.root, 'bench-consumer.cjs'));
  const inside = createRequire(join(where.pkgDir, 'package.json'));
  const main = consumer('@librechat/agents');
  const events = inside(join(where.pkgDir, 'dist', 'cjs', 'utils', 'events.cjs'));
  /** @type {Sdk['onToolExecute']} */
  const onToolExecute = { handler: null };
  events.safeDispatchCustomEvent = async function benchDispatch(event, payload) {
    if (event === 'on_tool_execute' && onToolExecute.handler !== null) onToolExecute.handler(payload);
    return true;
  };
  return {
    version: where.version,
    root: where.root,
    ToolNode: main.ToolNode,
    AIMessage: inside('@langchain/core/messages').AIMessage,
    tool: inside('@langchain/core/tools').tool,
    z: inside('zod').z,
    onToolExecute,
  };
}
