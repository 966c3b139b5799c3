// The wire turn of bench/run.mjs, per side: a host forwarding one bash_tool call per event batch to
// codeapi, from the sandbox's answer body text of one call to the next call's `/exec` body text.
//
//   gate  `sandboxAnswer(batch, id, { status: 200, body })` for the pending batch, `completeEventBatch(batch,
//         { now })` (it folds what sandboxAnswer holds), then `forwardEventBatch([call], options, opts)`
//         (the batch and its request in one call), its request's `body`; the new batch stays pending for
//         the next turn's answer. "Per call" (and a package without forwardEventBatch): `beginEventBatch`
//         and `sandboxRequest(batch, id, opts).body` in its place.
//   sdk   `JSON.parse(body)` into the artifact `{ session_id, files? }` (as the SDK's BashExecutor shapes
//         the answer of `/exec`), then one `ToolNode.invoke` of a one-call AIMessage in event mode: its
//         dispatch (bench/sdk.mjs's stub) hands the request to the host, which builds that request's
//         `/exec` body and answers with the artifact, which the ToolNode folds. The body is built as the
//         SDK builds it (see `sdkExecBody`). The request a ToolNode dispatches is planned before its
//         result is folded, so the body a turn returns trails its fold by one turn (`lag: 1`): the same
//         work per turn (a parse, a fold, a plan and a body), one turn later.
//   port  `readCodeapiAnswer` (JSON.parse and the package's checks), the fold with PortGate's own event
//         batch (beginEventBatch / completeEventBatch), then `codeapiExecBody` and `JSON.stringify`.
//
// "From bytes": the gate gets the answer as a Uint8Array (made once per pool entry); the SDK and the
// port `new TextDecoder().decode` it first, as a host holding the response's `arrayBuffer()` would.
import {
  KEY, THREAD_ID, TOOL_EXECUTION, TOOL_NAMES, WIRE_CALL, WIRE_TIMEOUT_MS, WIRE_USER, wireAnswerPool, wireSeedMap, wireSeedPairs,
} from './fixtures.mjs';
import { PortGate, codeapiExecBody, readCodeapiAnswer } from './port.mjs';

/** The sandbox request options of every wire turn (gate and port). */
export const WIRE_REQUEST = Object.freeze({ dialect: /** @type {const} */ ('codeapi'), userId: WIRE_USER, timeoutMs: WIRE_TIMEOUT_MS });
const OPTS = Object.freeze({ threadId: THREAD_ID });
const SDK_CONFIG = { configurable: { thread_id: THREAD_ID } };
const CALLS = Object.freeze([WIRE_CALL]);

/**
 * What a side read of the last answer (for the self-check).
 * @typedef {{ stdout: string, stderr: string, exitCode?: unknown, sessionId: string, files: number }} AnswerView
 */
/**
 * One side of the wire turn on a partition of `n` stored files.
 * @typedef {{
 *   first: string | undefined,
 *   lag: 0 | 1,
 *   turn: () => string | Promise<string>,
 *   partition: () => unknown,
 *   answer: () => AnswerView | undefined,
 *   request: () => any,
 *   free: () => void,
 * }} WireSide
 * `first` is the body of the request planned before the first turn (undefined on the SDK side, whose
 * first turn returns it); `lag` the turns by which a turn's body trails its fold; `request()` the request
 * the side last planned (gate: with `sandboxRequest`'s whole answer under `sandboxRequest`).
 */

/** Whether the package has the forwarding path (`Gate.prototype.sandboxRequest` / `sandboxAnswer`). */
export function gateHasWire(/** @type {any} */ Gate) {
  return typeof Gate?.prototype?.sandboxRequest === 'function' && typeof Gate.prototype.sandboxAnswer === 'function';
}

/** The configuration of every side's gate (participants, stateful sessions, the seeded partition). */
const wireConfig = (/** @type {number} */ n) => ({ codeSessionToolNames: TOOL_NAMES, toolExecution: TOOL_EXECUTION, sessions: wireSeedPairs(n) });

/** The answer pool as text, or as UTF-8 bytes (encoded once per entry). */
function answers(/** @type {number} */ n, /** @type {boolean} */ bytes) {
  const texts = wireAnswerPool(n);
  if (!bytes) return texts;
  const encoder = new TextEncoder();
  return texts.map((t) => encoder.encode(t));
}

/**
 * The gate side.
 * @param {any} Gate the package's Gate class
 * @returns {WireSide}
 */
export function gateWire(Gate, /** @type {number} */ n, bytes = false, perCall = false) {
  if (!perCall && typeof Gate.prototype.forwardEventBatch === 'function') return gateForwardedWire(Gate, n, bytes);
  const g = new Gate(wireConfig(n));
  const pool = answers(n, bytes);
  const id = WIRE_CALL.id;
  let now = 1;
  let i = 0;
  let b = g.beginEventBatch(CALLS, OPTS);
  let req = g.sandboxRequest(b.id, id, WIRE_REQUEST);
  /** @type {AnswerView | undefined} */
  let last;
  return {
    first: req.body,
    lag: 0,
    turn() {
      last = g.sandboxAnswer(b.id, id, { status: 200, body: pool[i++ & 63] });
      g.completeEventBatch(b.id, { now: ++now });
      b = g.beginEventBatch(CALLS, OPTS);
      req = g.sandboxRequest(b.id, id, WIRE_REQUEST);
      return req.body;
    },
    partition: () => g.session(KEY),
    answer: () => last,
    request: () => ({ ...b.dispatch[0], sandboxRequest: req }),
    free: () => g.free(),
  };
}

/**
 * The gate side as a forwarding host drives it: `forwardEventBatch` plans the batch and builds the
 * call's request in one call (no dispatched request: `request()` is undefined).
 * @param {any} Gate the package's Gate class
 * @returns {WireSide}
 */
function gateForwardedWire(Gate, /** @type {number} */ n, bytes = false) {
  const g = new Gate(wireConfig(n));
  const pool = answers(n, bytes);
  const id = WIRE_CALL.id;
  let now = 1;
  let i = 0;
  let b = g.forwardEventBatch(CALLS, OPTS, WIRE_REQUEST);
  /** @type {AnswerView | undefined} */
  let last;
  return {
    first: b.requests[0].body,
    lag: 0,
    turn() {
      last = g.sandboxAnswer(b.id, id, { status: 200, body: pool[i++ & 63] });
      g.completeEventBatch(b.id, { now: ++now });
      b = g.forwardEventBatch(CALLS, OPTS, WIRE_REQUEST);
      return b.requests[0].body;
    },
    partition: () => g.session(KEY),
    answer: () => last,
    request: () => undefined,
    free: () => g.free(),
  };
}

/**
 * The `/exec` body the SDK sends for a bash_tool request of the event path, built as LibreChat's event
 * handler and the SDK's BashExecutor (3.9.2) build it, written here from reading them:
 *
 * - the handler puts the request's `codeSessionContext.files` (when non-empty) on the call as
 *   `_injected_files` and its `runtimeSessionHint` as `_runtime_session_hint`;
 * - BashExecutor's body is `lang: 'bash'`, `code` (the command), the model's `args` when given, the model's
 *   other arguments (less `intent`, `runtime_session_hint`, `workspace_instance_id`), the factory's execution
 *   params (here `user_id` and `timeout`, what the gate is given as userId / timeoutMs), then
 *   `runtime_session_hint` (stateful sessions and a profile other than `default`; the factory sets no hint
 *   of its own, so the injected one), then `files` from `_injected_files`.
 *
 * The refs are the ones the ToolNode put in the context, unchanged: its own narrowing (`toInjectedFileRef`,
 * not exported) already made them in `getCodeSessionContext`, and the SDK checks nothing more before
 * sending (no codeapi id or name rules: a ref codeapi refuses goes out as it is). The key order is the
 * SDK's, not the package's (`files` last).
 */
function sdkExecBody(/** @type {any} */ request) {
  const files = request.codeSessionContext?.files;
  const injected = files != null && files.length > 0 ? files : undefined;
  const hint = request.runtimeSessionHint;
  const { command, intent: _intent, runtime_session_hint: _modelHint, workspace_instance_id: _instance, args, ...rest } = request.args;
  /** @type {Record<string, unknown>} */
  const body = { lang: 'bash', code: command, ...(args != null ? { args } : {}), ...rest, user_id: WIRE_USER, timeout: WIRE_TIMEOUT_MS };
  if (TOOL_EXECUTION.sandbox.statefulSessions === true && typeof hint === 'string' && hint !== '') body.runtime_session_hint = hint;
  if (injected !== undefined) body.files = injected;
  return body;
}

/**
 * The SDK side: its own ToolNode in event mode, its dispatch answered by the host stub of bench/sdk.mjs.
 * @param {import('./sdk.mjs').Sdk} sdk
 * @param {(sessions: Map<string, object>, calls: Array<{ id: string, name: string }>) => any} makeNode a ToolNode in event mode for `calls`
 * @returns {WireSide}
 */
export function sdkWire(sdk, makeNode, /** @type {number} */ n, bytes = false) {
  const sessions = wireSeedMap(n);
  const tn = makeNode(sessions, [WIRE_CALL]);
  const message = { messages: [new sdk.AIMessage({ content: '', tool_calls: [{ id: WIRE_CALL.id, name: WIRE_CALL.name, args: { ...WIRE_CALL.args } }] })] };
  const pool = answers(n, bytes);
  const decoder = new TextDecoder();
  let i = 0;
  let body = '';
  /** @type {any} */
  let parsed;
  /** @type {any} */
  let dispatched;
  /** @type {object} */
  let artifact;
  /** The host: builds the request's body, answers with the artifact of the sandbox's answer. */
  const host = (/** @type {import('./sdk.mjs').ToolExecuteBatch} */ batch) => {
    dispatched = batch.toolCalls[0];
    body = JSON.stringify(sdkExecBody(dispatched));
    batch.resolve([{ toolCallId: dispatched.id, status: 'success', content: parsed.stdout, artifact }]);
  };
  return {
    first: undefined,
    lag: 1,
    async turn() {
      const a = pool[i++ & 63];
      parsed = JSON.parse(typeof a === 'string' ? a : decoder.decode(a));
      // BashExecutor's artifact: files only when there are any
      artifact = parsed.files != null && parsed.files.length > 0
        ? { session_id: parsed.session_id, files: parsed.files }
        : { session_id: parsed.session_id };
      sdk.onToolExecute.handler = host;
      await tn.invoke(message, SDK_CONFIG);
      return body;
    },
    partition: () => sessions.get(KEY),
    answer: () => parsed && {
      stdout: parsed.stdout ?? '', stderr: parsed.stderr ?? '', ...(typeof parsed.code === 'number' ? { exitCode: parsed.code } : {}),
      sessionId: parsed.session_id, files: parsed.files?.length ?? 0,
    },
    request: () => dispatched,
    free() {},
  };
}

/**
 * The port side.
 * @returns {WireSide}
 */
export function portWire(/** @type {number} */ n, bytes = false) {
  const port = new PortGate(wireConfig(n));
  const pool = answers(n, bytes);
  const decoder = new TextDecoder();
  const id = WIRE_CALL.id;
  let now = 1;
  let i = 0;
  let b = port.beginEventBatch(CALLS, OPTS);
  /** @type {ReturnType<typeof readCodeapiAnswer> | undefined} */
  let last;
  return {
    first: JSON.stringify(codeapiExecBody(b.dispatch[0], WIRE_REQUEST)),
    lag: 0,
    turn() {
      const a = pool[i++ & 63];
      last = readCodeapiAnswer(200, typeof a === 'string' ? a : decoder.decode(a));
      port.completeEventBatch(b.id, { results: [{ toolCallId: id, status: 'success', artifact: last.artifact }], now: ++now });
      b = port.beginEventBatch(CALLS, OPTS);
      return JSON.stringify(codeapiExecBody(b.dispatch[0], WIRE_REQUEST));
    },
    partition: () => port.session(KEY),
    answer: () => last && {
      stdout: last.stdout, stderr: last.stderr, ...(last.exitCode !== undefined ? { exitCode: last.exitCode } : {}),
      sessionId: last.artifact.session_id, files: last.artifact.files?.length ?? 0,
    },
    request: () => b.dispatch[0],
    free() {},
  };
}
