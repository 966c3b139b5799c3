// Side-by-side benchmark of the code-session gate, in one Node process, on three sides:
//
//   gate  the built package (pkg/node.js): `Gate` and its calls;
//   sdk   the published @librechat/agents 3.9.2's own ToolNode (bench/setup.sh installs it into
//         bench/.sdk; SDK_DIR=<folder with node_modules/@librechat/agents> overrides), driven as the
//         SDK drives itself, with only its event dispatch stubbed (bench/sdk.mjs);
//   port  a tuned plain-JavaScript port of the same behaviour (bench/port.mjs).
//
// Scenarios (inputs in bench/fixtures.mjs):
//   verdict        participation of 16 rotating mixed names: gate.verdict(name), the SDK's
//                  participatesInCodeSession(name), and a plain Set.has (the port's verdict);
//   steady context the event request fields of a participant ('bash_tool', threadId 't1') with
//                  1 / 20 / 200 files in the partition and nothing written between calls;
//   turn           context, fold of one result (inherited echoes of every file + 5 new fixed-name
//                  outputs, from a pool of 64 artifacts), context again; the partition stays bounded;
//   turn from text the same turn when the result arrives as JSON text (a sandbox's answer body): the
//                  gate folds it as a JsonText, the SDK and the port JSON.parse it first;
//   input crossing the turn's input crossing alone (JSON.stringify + UTF-8 encoding of the fold's
//                  arguments) against the port's whole turn: how much of the port ratio it takes;
//   conversation   50 tool calls in sequence on the event path, each a batch of one call whose result
//                  carries an artifact (gate: beginEventBatch / completeEventBatch; SDK: ToolNode in
//                  eventDrivenMode invoked with an AIMessage, the stubbed dispatch answering);
//   wire turn      a host forwarding one bash_tool call per event batch to codeapi (bench/wire.mjs):
//                  from the sandbox's answer body text of one call to the next call's `/exec` body
//                  text, with 1 / 20 / 200 files (codeapi ids) and answers from a pool of 64 (inherited
//                  echoes of every file + 5 new fixed-name outputs). Gate: sandboxAnswer,
//                  completeEventBatch, beginEventBatch, sandboxRequest(...).body; SDK: JSON.parse, one
//                  ToolNode.invoke whose dispatch builds the request's body as the SDK's BashExecutor
//                  does and answers with the artifact; port: readCodeapiAnswer, PortGate's batch,
//                  codeapiExecBody + JSON.stringify. "From bytes": the gate gets the answer as a
//                  Uint8Array, the SDK and the port TextDecoder.decode it first. Skipped (with a NOTE)
//                  when the package has no Gate.sandboxRequest;
//   cold start     import + first context in a fresh `node` process (gate and SDK; median of runs);
//   memory         N turns on one gate in a fresh process (bench/memory.mjs): wasm linear memory
//                  after warm-up and at the end.
//
// Each timing is mitata's measure() p50 per iteration; every scenario runs several rounds (sides
// interleaved, their order rotated) and reports the median of the round p50s, with the ratios
// gate/SDK and gate/port (gate/Set.has for the verdict). Before timing, a self-check runs turns and a
// conversation on every side and fails loudly unless all sides produce the same request fields and
// the same partition (the narrowed context files compared key by key), and wire turns on every side
// unless they build the same next-request bodies (as data; whether the texts are byte-identical is
// printed) and hold the same partitions.
//
//   node bench/run.mjs [--quick] [--json PATH]
//
// --quick: one short round and small counts (checks that the bench and the self-check work; timings
// are not meaningful); without the SDK installed it runs gate and port only. The full run needs the
// SDK (bench/setup.sh) and takes a few minutes. Results go to bench/results.json (git-ignored) or PATH.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { measure, do_not_optimize } from 'mitata';
import {
  artifactPool, conversation, makeFiles, seedMap, seedPairs, CONVERSATION_CALLS, CONVERSATION_FILES,
  CONVERSATION_TOOLS, KEY, MEMORY_FILES, OUTPUTS_PER_CALL, THREAD_ID, TOOL_EXECUTION, TOOL_NAMES, VERDICT_NAMES,
} from './fixtures.mjs';
import { importGate, PKG_ENTRY } from './pkg.mjs';
import { PortGate } from './port.mjs';
import { loadSdk, locateSdk, sdkRoot, SDK_VERSION } from './sdk.mjs';
import { gateHasWire, gateWire, portWire, sdkWire, WIRE_REQUEST } from './wire.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const SIZES = [1, 20, 200];
/** @typedef {'gate' | 'sdk' | 'port'} Side */
/** @type {Side[]} */
const SIDES = ['gate', 'sdk', 'port'];

// ------------------------------------------------------------------------------------------ options

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const jsonAt = argv.indexOf('--json');
if (jsonAt >= 0 && (argv[jsonAt + 1] == null || argv[jsonAt + 1].startsWith('--'))) fail('--json needs a PATH');
const JSON_PATH = jsonAt >= 0 ? resolve(argv[jsonAt + 1]) : join(BENCH_DIR, 'results.json');
for (const a of argv) {
  if (a.startsWith('--') && a !== '--quick' && a !== '--json') fail(`unknown option ${a} (usage: node bench/run.mjs [--quick] [--json PATH])`);
}

const MODE = QUICK
  ? { name: 'quick', rounds: 1, warmMs: 5, coldRuns: 1, memoryTurns: 20_000, memoryWarmup: 2_000 }
  : { name: 'full', rounds: 5, warmMs: 500, coldRuns: 7, memoryTurns: 1_000_000, memoryWarmup: 20_000 };

// A gc() for mitata to run before every measurement (without needing `node --expose-gc`).
setFlagsFromString('--expose-gc');
const gc = /** @type {() => void} */ (runInNewContext('gc'));

/** mitata options: a sample is a batch of calls only below 5 µs per call. */
const MEASURE = QUICK
  ? { gc, min_cpu_time: 5e6, min_samples: 3, max_samples: 40, batch_samples: 256, batch_threshold: 5_000, warmup_samples: 1 }
  : { gc, min_cpu_time: 1e9, min_samples: 12, batch_threshold: 5_000 };

function fail(/** @type {string} */ message) {
  console.error(`bench/run.mjs: ${message}`);
  process.exit(1);
}

// ------------------------------------------------------------------------------------------- sides

const pkg = await importGate();
const { Gate, JsonText, buildSandboxRequest } = pkg;
/** Whether the package has the forwarding path the wire turn measures (Gate.sandboxRequest / sandboxAnswer). */
const HAS_WIRE = gateHasWire(Gate);
const WIRE_SKIPPED = 'the package has no Gate.sandboxRequest / sandboxAnswer (the forwarding path): the wire turn is skipped on the gate side and not timed';

const sdkWhere = locateSdk();
/** @type {import('./sdk.mjs').Sdk | null} */
let sdk = null;
if (sdkWhere === null) {
  if (!QUICK) fail(`the SDK side is missing: no @librechat/agents under ${sdkRoot()}/node_modules. Run bench/setup.sh (or set SDK_DIR).`);
  console.log(`NOTE: no SDK under ${sdkRoot()} (run bench/setup.sh): quick mode runs the gate and the port only.\n`);
} else {
  sdk = loadSdk();
  if (sdk.version !== SDK_VERSION) console.log(`NOTE: SDK ${sdk.version} found; the bench and its port are written for ${SDK_VERSION}.\n`);
}
const activeSides = SIDES.filter((s) => s !== 'sdk' || sdk !== null);

const OPTS = Object.freeze({ threadId: THREAD_ID });
const SDK_CONFIG = { configurable: { thread_id: THREAD_ID } };
const nFiles = (/** @type {number} */ n) => `${n} file${n === 1 ? '' : 's'}`;
const config = (/** @type {number} */ n) => ({ codeSessionToolNames: TOOL_NAMES, toolExecution: TOOL_EXECUTION, sessions: seedPairs(n) });

/** A ToolNode on `sessions` (event mode with call step ids and placeholder tools when `calls` is given). */
function sdkNode(/** @type {Map<string, object>} */ sessions, /** @type {Array<{ id: string, name: string }>} */ calls = []) {
  const s = /** @type {import('./sdk.mjs').Sdk} */ (sdk);
  const opts = { tools: [], sessions, codeSessionToolNames: TOOL_NAMES, toolExecution: TOOL_EXECUTION };
  if (calls.length > 0) {
    opts.tools = [...new Set(calls.map((c) => c.name))].map((name) =>
      s.tool(async () => 'unused', { name, description: 'bench placeholder', schema: s.z.object({}).passthrough() }));
    opts.eventDrivenMode = true;
    opts.toolCallStepIds = new Map(calls.map((c) => [c.id, `step-${c.id}`]));
  }
  return new s.ToolNode(opts);
}

/** The SDK's event request fields for `name`, as its ToolNode computes them for a planned request. */
function sdkFields(/** @type {any} */ tn, /** @type {string} */ name) {
  const p = tn.participatesInCodeSession(name);
  const ctx = p || name === 'skill' || name === 'read_file' ? tn.getCodeSessionContext() : undefined;
  const hint = p ? tn.resolveRuntimeSessionHint(SDK_CONFIG) : undefined;
  return { codeSessionContext: ctx, runtimeSessionHint: hint, codeSessionBaselineId: ctx?.session_id };
}

const sdkRequestMap = new Map([['r0', { id: 'r0', name: 'bash_tool', args: {} }]]);
const sdkResult = (/** @type {object} */ artifact) => [{ toolCallId: 'r0', status: 'success', content: '', artifact }];
const gateResult = (/** @type {object} */ artifact) => [{ name: 'bash_tool', status: /** @type {const} */ ('success'), artifact }];

/**
 * One conversation runner per side: `run()` makes the 50 calls; `seen` collects each call's dispatched
 * request fields when `record` is set (for the self-check).
 */
function conversationSide(/** @type {Side} */ side, record = false) {
  const conv = conversation();
  /** @type {object[]} */
  const seen = [];
  const pick = (/** @type {any} */ r) => ({ codeSessionContext: r.codeSessionContext, runtimeSessionHint: r.runtimeSessionHint, codeSessionBaselineId: r.codeSessionBaselineId });
  if (side === 'sdk') {
    const s = /** @type {import('./sdk.mjs').Sdk} */ (sdk);
    const sessions = seedMap(CONVERSATION_FILES);
    const tn = sdkNode(sessions, conv);
    const messages = conv.map((c) => ({ messages: [new s.AIMessage({ content: '', tool_calls: [{ id: c.id, name: c.name, args: {} }] })] }));
    const results = new Map(conv.map((c) => [c.id, { toolCallId: c.id, status: 'success', content: 'ok', artifact: c.artifact }]));
    const host = (/** @type {import('./sdk.mjs').ToolExecuteBatch} */ batch) => {
      if (record) for (const r of batch.toolCalls) seen.push(pick(r));
      batch.resolve(batch.toolCalls.map((r) => results.get(r.id)));
    };
    return {
      seen,
      partition: () => sessions.get(KEY),
      async run() {
        s.onToolExecute.handler = host;
        for (const m of messages) await tn.invoke(m, SDK_CONFIG);
      },
      free() {},
    };
  }
  /** @type {{ beginEventBatch(calls: object[], opts: object): { id: number, dispatch: object[] }, completeEventBatch(id: number, opts: object): string, session(key: string): unknown }} */
  const g = side === 'gate' ? new Gate(config(CONVERSATION_FILES)) : new PortGate(config(CONVERSATION_FILES));
  const calls = conv.map((c) => [{ id: c.id, name: c.name, args: {} }]);
  const results = conv.map((c) => [{ toolCallId: c.id, status: /** @type {const} */ ('success'), artifact: c.artifact }]);
  let now = 1;
  return {
    seen,
    partition: () => g.session(KEY),
    run() {
      for (let j = 0; j < CONVERSATION_CALLS; j++) {
        const b = g.beginEventBatch(calls[j], OPTS);
        if (record) for (const r of b.dispatch) seen.push(pick(r));
        g.completeEventBatch(b.id, { requests: b.dispatch, results: results[j], now: ++now });
      }
    },
    free() { if (g instanceof Gate) g.free(); },
  };
}

// -------------------------------------------------------------------------------------- self-check

/** JSON with sorted keys and without undefined values: equal texts = equal data, key order aside. */
function canon(/** @type {unknown} */ v) {
  return JSON.stringify(v, (_k, x) => (x !== null && typeof x === 'object' && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().filter((k) => x[k] !== undefined).map((k) => [k, x[k]]))
    : x));
}

/** The comparable part of a partition entry (lastUpdated is each side's clock). */
const entryView = (/** @type {any} */ e) => (e === undefined ? null : { session_id: e.session_id, files: e.files });

/** @type {string[]} */
const checked = [];
function agree(/** @type {string} */ what, /** @type {Partial<Record<Side, unknown>>} */ bySide) {
  const texts = Object.entries(bySide).map(([side, v]) => [side, canon(v)]);
  const [, first] = texts[0];
  if (texts.every(([, t]) => t === first)) return;
  console.error(`\nSELF-CHECK FAILED: the sides disagree on ${what}`);
  for (const [side, t] of texts) console.error(`  ${side.padEnd(4)} ${t.length > 1200 ? `${t.slice(0, 1200)}… (${t.length} chars)` : t}`);
  // the first file (or field) that differs, to make a long list readable
  const parsed = texts.map(([side, t]) => [side, JSON.parse(t)]);
  const files = parsed.map(([side, v]) => [side, v?.codeSessionContext?.files ?? v?.files]);
  if (files.every(([, f]) => Array.isArray(f))) {
    const len = Math.max(...files.map(([, f]) => f.length));
    for (let i = 0; i < len; i++) {
      const at = files.map(([side, f]) => [side, JSON.stringify(f[i])]);
      if (at.some(([, t]) => t !== at[0][1])) {
        console.error(`  first difference at files[${i}]:`);
        for (const [side, t] of at) console.error(`    ${side.padEnd(4)} ${t}`);
        break;
      }
    }
  }
  process.exit(1);
}

async function selfCheck() {
  const t0 = performance.now();
  const sideList = activeSides.join(', ');
  for (const n of SIZES) {
    const pool = artifactPool(n);
    const gate = new Gate(config(n));
    // The same turns folded from JSON text (the turn-text scenarios) must leave the same partition.
    const textGate = new Gate(config(n));
    const port = new PortGate(config(n));
    const sessions = seedMap(n);
    const tn = sdk === null ? null : sdkNode(sessions);
    const fields = (/** @type {string} */ name) => {
      /** @type {Partial<Record<Side, unknown>>} */
      const out = { gate: gate.contextForCall('event', name, OPTS), port: port.contextForCall('event', name, OPTS) };
      if (tn !== null) out.sdk = sdkFields(tn, name);
      return out;
    };
    const partition = () => {
      /** @type {Partial<Record<Side, unknown>>} */
      const out = { gate: entryView(gate.session(KEY)), port: entryView(port.session(KEY)) };
      if (tn !== null) out.sdk = entryView(sessions.get(KEY));
      return out;
    };
    agree(`the seeded partition (${nFiles(n)})`, partition());
    for (let t = 0; t < 4; t++) {
      for (const name of ['bash_tool', 'create_file', 'read_file', 'skill', 'web_search']) {
        agree(`the event request fields of ${name} with ${nFiles(n)} before turn ${t}`, fields(name));
      }
      const artifact = pool[t];
      gate.foldResults('event', gateResult(artifact), { now: t + 2 });
      textGate.foldResults('event', new JsonText(JSON.stringify(gateResult(artifact))), { now: t + 2 });
      port.foldResults('event', gateResult(artifact), { now: t + 2 });
      tn?.storeCodeSessionFromResults(sdkResult(artifact), sdkRequestMap);
      agree(`the partition after turn ${t} with ${nFiles(n)}`, partition());
      agree(`the partition after turn ${t} with ${nFiles(n)}, folded from JSON text`, { gate: entryView(gate.session(KEY)), port: entryView(textGate.session(KEY)) });
      const files = /** @type {any} */ (port.session(KEY)).files.length;
      if (files !== n + OUTPUTS_PER_CALL) fail(`self-check: the partition is not bounded (${files} files after turn ${t}, expected ${n + OUTPUTS_PER_CALL})`);
    }
    agree(`the event request fields after the turns with ${nFiles(n)}`, fields('bash_tool'));
    gate.free();
    textGate.free();
  }
  checked.push(`turns: context fields (5 names) and partition agree over 4 turns with ${SIZES.join(' / ')} files (${sideList}; the gate also from JSON text)`);

  // verdicts: the gate's participation bit, the SDK's participatesInCodeSession, the port's Set
  {
    const gate = new Gate(config(1));
    const port = new PortGate(config(1));
    const tn = sdk === null ? null : sdkNode(seedMap(1));
    for (const name of [...VERDICT_NAMES, '']) {
      /** @type {Partial<Record<Side, unknown>>} */
      const v = { gate: (gate.verdict(name) & 1) === 1, port: port.participates(name) };
      if (tn !== null) v.sdk = tn.participatesInCodeSession(name);
      agree(`participation of ${JSON.stringify(name)}`, v);
    }
    gate.free();
    checked.push(`verdict: participation of ${VERDICT_NAMES.length + 1} names agrees (${sideList})`);
  }

  // the conversation on the event path: every dispatched request and the final partition
  {
    /** @type {Partial<Record<Side, ReturnType<typeof conversationSide>>>} */
    const runs = {};
    for (const side of activeSides) {
      runs[side] = conversationSide(side, true);
      await runs[side].run();
    }
    for (let j = 0; j < CONVERSATION_CALLS; j++) {
      agree(`the request fields of conversation call ${j} (${CONVERSATION_TOOLS[j % CONVERSATION_TOOLS.length]})`,
        Object.fromEntries(activeSides.map((s) => [s, runs[s]?.seen[j]])));
    }
    agree('the partition after the conversation', Object.fromEntries(activeSides.map((s) => [s, entryView(runs[s]?.partition())])));
    const files = /** @type {any} */ (runs.port?.partition()).files.length;
    if (files !== CONVERSATION_FILES + OUTPUTS_PER_CALL) fail(`self-check: conversation partition not bounded (${files} files)`);
    for (const r of Object.values(runs)) r.free();
    checked.push(`conversation: ${CONVERSATION_CALLS} dispatched requests and the final partition agree (${sideList})`);
  }
  await wireSelfCheck();
  return performance.now() - t0;
}

/**
 * The wire turn on every side (each also from bytes): the body of every next request (compared as data,
 * and as text against the reference side, the gate's or else the port's), the partition and what was read
 * of the answer after every turn; on the gate side also that `sandboxRequest(...).body` is the text of
 * `buildSandboxRequest`'s body for the request the batch dispatched, with no ref left out or repaired.
 */
async function wireSelfCheck() {
  const TURNS = 4;
  /** @type {Map<string, boolean>} per side: every body text equal to the reference side's */
  const identical = new Map();
  /** @type {Map<string, string>} per side: the key order of its first body */
  const keyOrder = new Map();
  const reference = HAS_WIRE ? 'gate' : 'port';
  for (const n of SIZES) {
    /** @type {Record<string, import('./wire.mjs').WireSide>} */
    const sides = {};
    if (HAS_WIRE) {
      sides.gate = gateWire(Gate, n);
      sides['gate from bytes'] = gateWire(Gate, n, true);
      sides['gate per call'] = gateWire(Gate, n, false, true);
    }
    if (sdk !== null) {
      sides.sdk = sdkWire(sdk, sdkNode, n);
      sides['sdk from bytes'] = sdkWire(sdk, sdkNode, n, true);
    }
    sides.port = portWire(n);
    sides['port from bytes'] = portWire(n, true);
    /** @type {Record<string, string[]>} the bodies of the requests planned after 0 … TURNS answers */
    const bodies = {};
    /** @type {Record<string, unknown[]>} the partition after 1 … TURNS answers (index 0 unused) */
    const partitions = {};
    /** @type {Record<string, unknown[]>} what was read of answer 1 … TURNS */
    const read = {};
    for (const [name, w] of Object.entries(sides)) {
      const list = (bodies[name] = w.first === undefined ? [] : [w.first]);
      partitions[name] = [];
      read[name] = [];
      // A side that hands out its dispatched request (the per-call API) has it checked; the forwarded
      // batch's bodies are held to that side's by the comparisons below.
      if (name.startsWith('gate') && w.request() !== undefined) checkGateRequest(name, n, 0, w.request());
      for (let t = 1; t <= TURNS + w.lag; t++) {
        list.push(await w.turn());
        if (t <= TURNS) {
          partitions[name][t] = structuredClone(entryView(w.partition()));
          read[name][t] = structuredClone(w.answer());
        }
        if (name.startsWith('gate') && w.request() !== undefined) checkGateRequest(name, n, t, w.request());
      }
      w.free();
    }
    for (let k = 0; k <= TURNS; k++) {
      agree(`the wire turn's next request body after ${k} answer${k === 1 ? '' : 's'} with ${nFiles(n)}`,
        Object.fromEntries(Object.entries(bodies).map(([side, list]) => [side, JSON.parse(list[k])])));
      for (const [side, list] of Object.entries(bodies)) {
        if (side === reference) continue;
        identical.set(side, (identical.get(side) ?? true) && list[k] === bodies[reference][k]);
      }
    }
    for (const [side, list] of Object.entries(bodies)) if (!keyOrder.has(side)) keyOrder.set(side, Object.keys(JSON.parse(list[0])).join(', '));
    for (let t = 1; t <= TURNS; t++) {
      agree(`the partition after wire turn ${t} with ${nFiles(n)}`, Object.fromEntries(Object.entries(partitions).map(([side, p]) => [side, p[t]])));
      agree(`what was read of the sandbox's answer in wire turn ${t} with ${nFiles(n)}`, Object.fromEntries(Object.entries(read).map(([side, r]) => [side, r[t]])));
      const files = /** @type {any} */ (partitions.port[t]).files.length;
      if (files !== n + OUTPUTS_PER_CALL) fail(`self-check: the wire turn's partition is not bounded (${files} files after turn ${t}, expected ${n + OUTPUTS_PER_CALL})`);
    }
  }
  const sideNames = [...identical.keys()];
  checked.push(`wire turn: next-request bodies (as data), partitions and answers agree over ${TURNS} turns with ${SIZES.join(' / ')} files `
    + `(${[reference, ...sideNames].join(', ')})${HAS_WIRE ? "; the gate's body is buildSandboxRequest's, no ref left out" : ''}`);
  checked.push(`wire turn: body texts byte-identical to the ${reference}'s: `
    + sideNames.map((side) => `${side} ${identical.get(side) ? 'yes' : 'no'}`).join(', '));
  const orders = new Map();
  for (const [side, order] of keyOrder) orders.set(order, [...(orders.get(order) ?? []), side]);
  for (const [order, list] of orders) checked.push(`wire turn: body key order ${order} (${list.join(', ')})`);
  if (!HAS_WIRE) checked.push(`wire turn: NOTE ${WIRE_SKIPPED}`);
}

/**
 * The gate's request of a wire turn: its body must be the text of `buildSandboxRequest`'s body for the
 * request the batch dispatched, and with the bench's valid refs nothing may be dropped or repaired.
 */
function checkGateRequest(/** @type {string} */ side, /** @type {number} */ n, /** @type {number} */ t, /** @type {any} */ planned) {
  const { sandboxRequest: got, ...request } = planned;
  const expected = buildSandboxRequest({ ...WIRE_REQUEST, tool: request.name, modelArgs: request.args, context: request });
  const text = JSON.stringify(expected.body);
  const where = `${side}, ${nFiles(n)}, after wire turn ${t}`;
  if (got.body !== text) {
    console.error(`\nSELF-CHECK FAILED: sandboxRequest(...).body is not JSON.stringify(buildSandboxRequest(...).body) (${where})`);
    console.error(`  sandboxRequest      ${got.body.length > 1200 ? `${got.body.slice(0, 1200)}… (${got.body.length} chars)` : got.body}`);
    console.error(`  buildSandboxRequest ${text.length > 1200 ? `${text.slice(0, 1200)}… (${text.length} chars)` : text}`);
    process.exit(1);
  }
  if (got.endpoint !== 'exec' || (got.refs ?? []).length > 0 || (got.droppedFields ?? []).length > 0) {
    fail(`self-check: sandboxRequest (${where}) answered endpoint ${got.endpoint}, refs ${JSON.stringify(got.refs)}, droppedFields ${JSON.stringify(got.droppedFields)} (expected exec, [], [])`);
  }
}

// ------------------------------------------------------------------------------------- scenarios

/**
 * @typedef {{ id: string, label: string, note?: string, budgets?: Array<{ ratio: 'gate/sdk' | 'gate/port', max: number }>,
 *   fns: Partial<Record<Side, () => unknown>>, free: () => void }} Case
 */

/** Issue 5's budgets (gate/SDK) by partition size; every steady context and turn is also held to ≤ 1.5× the port. */
const STEADY_SDK_BUDGET = /** @type {Record<number, number>} */ ({ 20: 0.05, 200: 0.01 });
const TURN_SDK_BUDGET = /** @type {Record<number, number>} */ ({ 1: 1.0, 20: 0.5, 200: 0.25 });
/** The wire turn's budgets (the forwarding issue): gate/port and gate/SDK by partition size. */
const WIRE_PORT_BUDGET = /** @type {Record<number, number>} */ ({ 1: 2.0, 20: 1.0, 200: 1.0 });
const WIRE_SDK_BUDGET = /** @type {Record<number, number>} */ ({ 20: 0.5, 200: 0.25 });

/** @returns {Case[]} */
function buildCases() {
  /** @type {Case[]} */
  const cases = [];
  let sink = 0;

  {
    const names = VERDICT_NAMES;
    const gate = new Gate(config(1));
    const set = new Set(['execute_code', 'bash_tool', 'run_tools_with_code', 'run_tools_with_bash', ...TOOL_NAMES]);
    const tn = sdk === null ? null : sdkNode(seedMap(1));
    let i = 0;
    let j = 0;
    let k = 0;
    cases.push({
      id: 'verdict',
      label: 'verdict, 16 mixed names',
      note: 'port column = Set.has',
      budgets: [{ ratio: 'gate/port', max: 2 }],
      fns: {
        gate: () => do_not_optimize(gate.verdict(names[i++ & 15])),
        ...(tn && { sdk: () => do_not_optimize(tn.participatesInCodeSession(names[j++ & 15])) }),
        port: () => do_not_optimize(set.has(names[k++ & 15])),
      },
      free: () => gate.free(),
    });
  }

  for (const n of SIZES) {
    const gate = new Gate(config(n));
    const port = new PortGate(config(n));
    const tn = sdk === null ? null : sdkNode(seedMap(n));
    cases.push({
      id: `steady-${n}`,
      label: `steady context, ${nFiles(n)}`,
      budgets: [...(STEADY_SDK_BUDGET[n] === undefined ? [] : [{ ratio: 'gate/sdk', max: STEADY_SDK_BUDGET[n] }]), { ratio: 'gate/port', max: 1.5 }],
      fns: {
        gate: () => do_not_optimize(gate.contextForCall('event', 'bash_tool', OPTS)),
        ...(tn && { sdk: () => do_not_optimize(sdkFields(tn, 'bash_tool')) }),
        port: () => do_not_optimize(port.contextForCall('event', 'bash_tool', OPTS)),
      },
      free: () => gate.free(),
    });
  }

  for (const n of SIZES) {
    const gate = new Gate(config(n));
    const port = new PortGate(config(n));
    const sessions = seedMap(n);
    const tn = sdk === null ? null : sdkNode(sessions);
    const forGate = artifactPool(n).map(gateResult);
    const forPort = artifactPool(n).map(gateResult);
    const forSdk = artifactPool(n).map(sdkResult);
    let i = 0;
    let j = 0;
    let k = 0;
    cases.push({
      id: `turn-${n}`,
      label: `turn, ${nFiles(n)} (+${OUTPUTS_PER_CALL} outputs)`,
      budgets: [{ ratio: 'gate/sdk', max: TURN_SDK_BUDGET[n] }, { ratio: 'gate/port', max: 1.5 }],
      fns: {
        gate: () => {
          const t = ++i;
          gate.contextForCall('event', 'bash_tool', OPTS);
          gate.foldResults('event', forGate[t & 63], { now: t });
          return do_not_optimize(gate.contextForCall('event', 'bash_tool', OPTS));
        },
        ...(tn && {
          sdk: () => {
            sink ^= sdkFields(tn, 'bash_tool').codeSessionContext === undefined ? 1 : 0;
            tn.storeCodeSessionFromResults(forSdk[++j & 63], sdkRequestMap);
            return do_not_optimize(sdkFields(tn, 'bash_tool'));
          },
        }),
        port: () => {
          const t = ++k;
          port.contextForCall('event', 'bash_tool', OPTS);
          port.foldResults('event', forPort[t & 63], { now: t });
          return do_not_optimize(port.contextForCall('event', 'bash_tool', OPTS));
        },
      },
      free: () => gate.free(),
    });
  }

  // The same turn when the result arrives as JSON text (a sandbox's answer body): the gate folds it as
  // a JsonText; the SDK and the port parse it first, as they must.
  for (const n of SIZES) {
    const gate = new Gate(config(n));
    const port = new PortGate(config(n));
    const tn = sdk === null ? null : sdkNode(seedMap(n));
    const resultTexts = artifactPool(n).map((a) => JSON.stringify(gateResult(a)));
    const artifactTexts = artifactPool(n).map((a) => JSON.stringify(a));
    let i = 0;
    let j = 0;
    let k = 0;
    cases.push({
      id: `turn-text-${n}`,
      label: `turn from JSON text, ${nFiles(n)} (+${OUTPUTS_PER_CALL} outputs)`,
      note: 'the result arrives as JSON text: gate folds it as a JsonText; SDK and port JSON.parse it first',
      budgets: [{ ratio: 'gate/sdk', max: TURN_SDK_BUDGET[n] }, { ratio: 'gate/port', max: 1.5 }],
      fns: {
        gate: () => {
          const t = ++i;
          gate.contextForCall('event', 'bash_tool', OPTS);
          gate.foldResults('event', new JsonText(resultTexts[t & 63]), { now: t });
          return do_not_optimize(gate.contextForCall('event', 'bash_tool', OPTS));
        },
        ...(tn && {
          sdk: () => {
            sink ^= sdkFields(tn, 'bash_tool').codeSessionContext === undefined ? 1 : 0;
            tn.storeCodeSessionFromResults(sdkResult(JSON.parse(artifactTexts[++j & 63])), sdkRequestMap);
            return do_not_optimize(sdkFields(tn, 'bash_tool'));
          },
        }),
        port: () => {
          const t = ++k;
          port.contextForCall('event', 'bash_tool', OPTS);
          port.foldResults('event', JSON.parse(resultTexts[t & 63]), { now: t });
          return do_not_optimize(port.contextForCall('event', 'bash_tool', OPTS));
        },
      },
      free: () => gate.free(),
    });
  }

  // The floor of a JSON-text crossing: what any turn of the gate pays in JavaScript before the module
  // reads a byte (the fold's arguments stringified and UTF-8 encoded, as `foldResults` does), against
  // the port's whole turn. Not a budget: it shows how much of the port ratio the crossing alone takes.
  {
    const encoder = new TextEncoder();
    let into = new Uint8Array(1 << 16);
    for (const n of SIZES) {
      const port = new PortGate(config(n));
      const forFloor = artifactPool(n).map(gateResult);
      const forPort = artifactPool(n).map(gateResult);
      let i = 0;
      let k = 0;
      cases.push({
        id: `crossing-${n}`,
        label: `turn input crossing alone, ${nFiles(n)}`,
        note: "gate column: JSON.stringify + UTF-8 encoding of the fold's arguments only (no gate work); port column: the port's whole turn",
        fns: {
          gate: () => {
            const t = ++i;
            const text = JSON.stringify(forFloor[t & 63]) + JSON.stringify({ now: t });
            if (into.length < text.length * 3) into = new Uint8Array(text.length * 3);
            return do_not_optimize(encoder.encodeInto(text, into).written);
          },
          port: () => {
            const t = ++k;
            port.contextForCall('event', 'bash_tool', OPTS);
            port.foldResults('event', forPort[t & 63], { now: t });
            return do_not_optimize(port.contextForCall('event', 'bash_tool', OPTS));
          },
        },
        free: () => {},
      });
    }
  }

  // The wire turn (bench/wire.mjs): from the sandbox's answer body of one call to the next call's
  // request body, the answer as text, then as bytes.
  for (const bytes of HAS_WIRE ? [false, true] : []) {
    for (const n of SIZES) {
      const gate = gateWire(Gate, n, bytes);
      const tn = sdk === null ? null : sdkWire(sdk, sdkNode, n, bytes);
      const port = portWire(n, bytes);
      cases.push({
        id: `wire-${bytes ? 'bytes-' : ''}${n}`,
        label: `wire turn${bytes ? ' from bytes' : ''}, ${nFiles(n)}`,
        note: bytes
          ? 'the answer as a Uint8Array: the gate takes the bytes; SDK and port TextDecoder.decode them, then as in the wire turn'
          : 'codeapi answer body text -> fold -> next /exec body text; gate: sandboxAnswer, completeEventBatch, forwardEventBatch; '
            + 'SDK: JSON.parse, ToolNode.invoke (its dispatch builds the body); port: parse, PortGate batch, body',
        budgets: [
          ...(WIRE_SDK_BUDGET[n] === undefined ? [] : [{ ratio: /** @type {const} */ ('gate/sdk'), max: WIRE_SDK_BUDGET[n] }]),
          { ratio: 'gate/port', max: WIRE_PORT_BUDGET[n] },
        ],
        fns: {
          gate: () => do_not_optimize(gate.turn()),
          ...(tn && { sdk: tn.turn }),
          port: () => do_not_optimize(port.turn()),
        },
        free: () => gate.free(),
      });
    }
  }

  // The same wire turn through the per-call API (beginEventBatch, then sandboxRequest for the call), as
  // a host that also hands the dispatched requests out drives it: reported, no budget of its own.
  for (const n of HAS_WIRE ? SIZES : []) {
    const gate = gateWire(Gate, n, false, true);
    const port = portWire(n);
    cases.push({
      id: `wire-calls-${n}`,
      label: `wire turn, per call, ${nFiles(n)}`,
      note: 'the gate through beginEventBatch and sandboxRequest instead of forwardEventBatch',
      fns: {
        gate: () => do_not_optimize(gate.turn()),
        port: () => do_not_optimize(port.turn()),
      },
      free: () => gate.free(),
    });
  }

  {
    /** @type {Partial<Record<Side, ReturnType<typeof conversationSide>>>} */
    const runs = Object.fromEntries(activeSides.map((s) => [s, conversationSide(s)]));
    cases.push({
      id: 'conversation',
      label: `conversation, ${CONVERSATION_CALLS} event calls`,
      note: `${CONVERSATION_FILES} files, 1 call per batch`,
      budgets: [{ ratio: 'gate/sdk', max: 0.5 }],
      fns: Object.fromEntries(activeSides.map((s) => [s, /** @type {any} */ (runs[s]).run])),
      free: () => { for (const r of Object.values(runs)) r.free(); },
    });
  }
  do_not_optimize(sink);
  return cases;
}

/** Runs `fn` for about `ms` milliseconds (JIT warm-up before the first round). */
async function warm(/** @type {() => unknown} */ fn, /** @type {number} */ ms) {
  const end = performance.now() + ms;
  let n = 0;
  do {
    const r = fn();
    if (r instanceof Promise) await r;
    n++;
  } while (performance.now() < end || n < 2);
}

const median = (/** @type {number[]} */ xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// ------------------------------------------------------------------------------------ cold start

/** Median wall time of `node args` and of the in-process span it prints ({ ms }). */
function coldStart(/** @type {string[]} */ args, /** @type {number} */ runs, /** @type {string} */ label) {
  const walls = [];
  const spans = [];
  for (let r = 0; r < runs; r++) {
    let out;
    for (let attempt = 0; ; attempt++) {
      const t0 = performance.now();
      out = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: BENCH_DIR, timeout: 120_000 });
      const wall = performance.now() - t0;
      if (out.status === 0) {
        walls.push(wall);
        break;
      }
      if (attempt >= 2) fail(`cold start (${label}) failed: ${out.stderr || out.error?.message}`);
    }
    const last = out.stdout.trim().split('\n').pop();
    const span = last ? JSON.parse(last).ms : undefined;
    if (typeof span === 'number') spans.push(span);
  }
  return { runs, wallMs: median(walls), importAndFirstCallMs: spans.length > 0 ? median(spans) : null };
}

function coldStarts() {
  const files = JSON.stringify(makeFiles(5));
  const cfg = `{ codeSessionToolNames: ${JSON.stringify(TOOL_NAMES)}, toolExecution: ${JSON.stringify(TOOL_EXECUTION)} }`;
  const entry = `{ session_id: 'exec-seed', files: ${files}, lastUpdated: 1 }`;
  const gateCode = [
    'const t0 = performance.now();',
    `const { Gate } = await import(${JSON.stringify(PKG_ENTRY)});`,
    `const g = new Gate({ ...${cfg}, sessions: [['execute_code', ${entry}]] });`,
    "const f = g.contextForCall('event', 'bash_tool', { threadId: 't1' });",
    'const ms = performance.now() - t0;',
    "if (f.codeSessionContext === undefined) throw new Error('no context');",
    'console.log(JSON.stringify({ ms }));',
  ].join('\n');
  /** @type {Record<string, unknown>} */
  const out = { node: coldStart(['-e', '0'], MODE.coldRuns, 'node') };
  out.gate = coldStart(['--input-type=module', '-e', gateCode], MODE.coldRuns, 'gate');
  if (sdk !== null) {
    const sdkCode = [
      'const t0 = performance.now();',
      `const { ToolNode } = require('node:module').createRequire(${JSON.stringify(join(sdk.root, 'cold-start.cjs'))})('@librechat/agents');`,
      `const tn = new ToolNode({ tools: [], ...${cfg}, sessions: new Map([['execute_code', ${entry}]]) });`,
      "const p = tn.participatesInCodeSession('bash_tool');",
      "const ctx = p ? tn.getCodeSessionContext() : undefined; const hint = p ? tn.resolveRuntimeSessionHint({ configurable: { thread_id: 't1' } }) : undefined;",
      'const ms = performance.now() - t0;',
      "if (ctx === undefined || hint !== 't1') throw new Error('no context');",
      'console.log(JSON.stringify({ ms }));',
    ].join('\n');
    out.sdk = coldStart(['-e', sdkCode], MODE.coldRuns, 'sdk');
  }
  return out;
}

// ----------------------------------------------------------------------------------------- memory

function memoryRun() {
  const args = [join(BENCH_DIR, 'memory.mjs'), '--turns', String(MODE.memoryTurns), '--warmup', String(MODE.memoryWarmup)];
  for (let attempt = 0; ; attempt++) {
    const out = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 600_000 });
    if (out.status === 0) return JSON.parse(out.stdout.trim().split('\n').pop() ?? 'null');
    if (attempt >= 2) fail(`memory run failed: ${out.stderr || out.error?.message}`);
  }
}

// ---------------------------------------------------------------------------------------- printing

function fmtTime(/** @type {number | null | undefined} */ ns) {
  if (ns == null) return '-';
  if (ns < 1e3) return `${ns.toFixed(ns < 10 ? 2 : 1)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}
const fmtRatio = (/** @type {number | null} */ r) => (r == null ? '-' : r < 0.01 ? r.toExponential(1) : r.toFixed(r < 10 ? 2 : 1));
const fmtBytes = (/** @type {number} */ b) => `${(b / 2 ** 20).toFixed(2)} MiB`;

/** @param {string[][]} rows */
function table(rows, right = new Set([1, 2, 3, 4, 5])) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (/** @type {string[]} */ r) => r.map((cell, c) => (right.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd();
  console.log(line(rows[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(line(r));
}

// -------------------------------------------------------------------------------------------- main

const cpu = cpus()[0]?.model ?? 'unknown';
console.log(`code-session-gate bench (${MODE.name}): node ${process.version}, ${cpus().length} × ${cpu}`);
console.log(`sides: gate = pkg/node.js, sdk = ${sdk === null ? 'missing' : `@librechat/agents ${sdk.version} (${sdk.root})`}, port = bench/port.mjs`);
if (!HAS_WIRE) console.log(`NOTE: ${WIRE_SKIPPED}.`);

const selfCheckMs = await selfCheck();
console.log(`\nself-check passed (${(selfCheckMs / 1000).toFixed(1)} s):`);
for (const c of checked) console.log(`  ${c}`);

const cases = buildCases();
console.log(`\nwarming up, then ${MODE.rounds} round${MODE.rounds === 1 ? '' : 's'} of ${cases.length} scenarios × ${activeSides.length} sides`);
for (const c of cases) for (const fn of Object.values(c.fns)) await warm(fn, MODE.warmMs);

/** @type {Map<string, Partial<Record<Side, number[]>>>} */
const p50s = new Map(cases.map((c) => [c.id, {}]));
for (let round = 0; round < MODE.rounds; round++) {
  const t0 = performance.now();
  for (const c of cases) {
    const sides = /** @type {Side[]} */ (Object.keys(c.fns));
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    for (const side of order) {
      const stats = await measure(/** @type {() => unknown} */ (c.fns[side]), { ...MEASURE });
      const bySide = /** @type {Partial<Record<Side, number[]>>} */ (p50s.get(c.id));
      (bySide[side] ??= []).push(stats.p50);
    }
  }
  console.log(`  round ${round + 1}/${MODE.rounds}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
for (const c of cases) c.free();

console.log(`cold start: ${MODE.coldRuns} fresh process${MODE.coldRuns === 1 ? '' : 'es'} per side`);
const cold = coldStarts();
console.log(`memory: ${MODE.memoryTurns.toLocaleString('en-US')} turns on one gate in a fresh process`);
const memory = memoryRun();

const scenarios = cases.map((c) => {
  const by = /** @type {Partial<Record<Side, number[]>>} */ (p50s.get(c.id));
  /** @type {Partial<Record<Side, { p50Ns: number, roundP50sNs: number[] }>>} */
  const sides = {};
  for (const [side, xs] of Object.entries(by)) sides[/** @type {Side} */ (side)] = { p50Ns: median(xs), roundP50sNs: xs };
  const g = sides.gate?.p50Ns;
  /** @type {Record<string, number | null>} */
  const ratios = {
    'gate/sdk': g != null && sides.sdk ? g / sides.sdk.p50Ns : null,
    'gate/port': g != null && sides.port ? g / sides.port.p50Ns : null,
  };
  if (c.id === 'verdict') ratios['gate/Set.has'] = ratios['gate/port'];
  const budgets = (c.budgets ?? []).map((b) => {
    const r = ratios[b.ratio];
    return { ...b, ...(c.id === 'verdict' ? { ratioLabel: 'gate/Set.has' } : {}), ok: r == null ? null : r <= b.max };
  });
  return { id: c.id, label: c.label, note: c.note, sides, ratios, budgets };
});

console.log(`\nmedian of ${MODE.rounds} round p50${MODE.rounds === 1 ? '' : 's'} per iteration${QUICK ? ' (quick mode: not meaningful)' : ''}`);
table([
  ['scenario', 'gate', 'SDK', 'port', 'gate/SDK', 'gate/port', 'budget'],
  ...scenarios.map((s) => [
    s.label,
    fmtTime(s.sides.gate?.p50Ns),
    fmtTime(s.sides.sdk?.p50Ns),
    fmtTime(s.sides.port?.p50Ns),
    fmtRatio(s.ratios['gate/sdk']),
    fmtRatio(s.ratios['gate/port']),
    s.budgets.map((b) => `${b.ratioLabel ?? b.ratio} ≤ ${b.max}: ${b.ok === null ? 'n/a' : b.ok ? 'ok' : 'OVER'}`).join(', '),
  ]),
], new Set([1, 2, 3, 4, 5]));
{
  const shown = new Set();
  for (const s of scenarios) {
    if (s.note && !shown.has(s.note)) console.log(`  ${s.label}${s.id.match(/-\d+$/) ? ' (and its other sizes)' : ''}: ${s.note}`);
    if (s.note) shown.add(s.note);
  }
}

console.log('\ncold start (median): import + first context in a fresh process; wall = whole `node` process');
table([
  ['side', 'import + first call', 'process wall'],
  ...Object.entries(cold).map(([side, r]) => {
    const x = /** @type {{ importAndFirstCallMs: number | null, wallMs: number }} */ (r);
    return [side === 'node' ? 'node -e 0' : side, x.importAndFirstCallMs == null ? '-' : `${x.importAndFirstCallMs.toFixed(1)} ms`, `${x.wallMs.toFixed(1)} ms`];
  }),
], new Set([1, 2]));

console.log(`\nmemory: ${memory.turns.toLocaleString('en-US')} turns on one gate (partition ${memory.partitionFiles} files), ${(memory.ms / 1000).toFixed(1)} s`);
table([
  ['', 'wasm memory', 'rss', 'heapUsed', 'arrayBuffers'],
  ...[['before', memory.before], [`after ${memory.warmup.toLocaleString('en-US')} turns`, memory.afterWarmup], ['end', memory.end]].map(([label, m]) => [
    label, fmtBytes(m.wasmBytes), fmtBytes(m.rss), fmtBytes(m.heapUsed), fmtBytes(m.arrayBuffers),
  ]),
], new Set([1, 2, 3, 4]));
const grew = memory.end.wasmBytes - memory.afterWarmup.wasmBytes;
console.log(`  wasm memory growth after warm-up: ${grew} bytes${grew === 0 ? ' (bounded)' : ''}`);

const report = {
  meta: {
    mode: MODE.name,
    date: new Date().toISOString(),
    node: process.version,
    cpu,
    cpus: cpus().length,
    sdk: sdk === null ? null : { version: sdk.version, root: sdk.root },
    rounds: MODE.rounds,
    mitata: { ...MEASURE, gc: true },
    unit: 'ns per iteration (mitata p50, median over rounds)',
    durationS: performance.now() / 1000, // since the process started
    wireTurn: HAS_WIRE ? 'run' : `skipped: ${WIRE_SKIPPED}`,
  },
  selfCheck: checked,
  scenarios,
  coldStartMs: cold,
  memory: { ...memory, seededFiles: MEMORY_FILES, source: 'wasm memory = memoryBytes(), the bytes of the module linear memory' },
};
writeFileSync(JSON_PATH, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwrote ${JSON_PATH} (${report.meta.durationS.toFixed(0)} s in all)`);
