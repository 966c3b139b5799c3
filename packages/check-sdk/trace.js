// The trace format (`code-session-gate.trace`, version 1): a gate configuration, an execution path and
// the tool calls of one conversation with the results the sandbox gave them. The devtools page exports
// it, the edge worker (worker/) records it (opt-in), and check-sdk replays it through an SDK release and through
// the gate. TRACE.md (shipped beside this file) documents every field.

/** The format name and the version this reader takes. */
export const TRACE_FORMAT = 'code-session-gate.trace';
export const TRACE_VERSION = 1;

const PATHS = ['direct', 'event', 'eager'];
const CONFIG_KEYS = ['profile', 'codeSessionToolNames', 'codeSessionKey', 'toolExecution', 'eagerEventToolExecution', 'sessions'];

/** A trace that cannot be read: names the file and the field. */
export class TraceFileError extends Error {
  /** @param {string} file @param {string} field @param {string} message */
  constructor(file, field, message) {
    super(`${file}: ${field ? `${field}: ` : ''}${message}`);
    this.name = 'TraceFileError';
    this.code = 'invalid_trace';
    this.file = file;
    this.field = field;
  }
}

/**
 * @typedef {{ id: string, name: string, args?: unknown }} TraceCall
 * @typedef {{ status: 'success' | 'error', artifact?: unknown }} TraceResult
 * @typedef {{ call: TraceCall, result?: TraceResult, agent?: string, threadId?: string, batch?: number | string }} TraceStep
 * @typedef {{ format: string, version: number, title?: string, config: Record<string, unknown>, path: 'direct' | 'event' | 'eager',
 *   threadId?: string, agents: Record<string, { codeSessionKey?: string }>, initialSessions?: Array<[string, unknown]>, steps: TraceStep[],
 *   recorder?: unknown }} Trace
 */

const isObj = (/** @type {unknown} */ v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks a parsed trace and returns it with its defaults; throws `TraceFileError` naming `file` and
 * the first field that is wrong.
 * @param {unknown} doc @param {string} file
 * @returns {Trace}
 */
export function readTrace(doc, file) {
  const fail = (/** @type {string} */ field, /** @type {string} */ message) => new TraceFileError(file, field, message);
  if (!isObj(doc)) throw fail('', 'a trace is a JSON object');
  const t = /** @type {Record<string, any>} */ (doc);
  if (t.format !== TRACE_FORMAT) throw fail('format', `must be "${TRACE_FORMAT}" (found ${JSON.stringify(t.format)})`);
  if (t.version !== TRACE_VERSION) throw fail('version', `${JSON.stringify(t.version)} is not a version this reader takes (${TRACE_VERSION})`);
  const path = t.path ?? 'event';
  if (!PATHS.includes(path)) throw fail('path', `must be one of ${PATHS.join(', ')}`);
  const config = t.config ?? {};
  if (!isObj(config)) throw fail('config', 'must be an object (the Gate configuration)');
  for (const k of Object.keys(config)) if (!CONFIG_KEYS.includes(k)) throw fail(`config.${k}`, `is not a Gate configuration key (${CONFIG_KEYS.join(', ')})`);
  if (config.codeSessionToolNames != null && !(Array.isArray(config.codeSessionToolNames) && config.codeSessionToolNames.every((/** @type {unknown} */ n) => typeof n === 'string'))) {
    throw fail('config.codeSessionToolNames', 'must be an array of strings');
  }
  if (config.codeSessionKey != null && typeof config.codeSessionKey !== 'string') throw fail('config.codeSessionKey', 'must be a string');
  if (config.toolExecution != null && !isObj(config.toolExecution)) throw fail('config.toolExecution', 'must be an object');
  if (config.sessions !== undefined) throw fail('config.sessions', 'a trace starts its sessions with initialSessions, not config.sessions');
  const agents = t.agents ?? {};
  if (!isObj(agents)) throw fail('agents', 'must be an object of agent name → { codeSessionKey? }');
  for (const [name, a] of Object.entries(agents)) {
    if (!isObj(a)) throw fail(`agents.${name}`, 'must be an object { codeSessionKey? }');
    if (a.codeSessionKey !== undefined && typeof a.codeSessionKey !== 'string') throw fail(`agents.${name}.codeSessionKey`, 'must be a string');
  }
  if (t.threadId !== undefined && typeof t.threadId !== 'string') throw fail('threadId', 'must be a string (configurable.thread_id)');
  if (t.initialSessions !== undefined) {
    if (!Array.isArray(t.initialSessions)) throw fail('initialSessions', 'must be an array of [key, session] pairs');
    t.initialSessions.forEach((/** @type {unknown} */ p, /** @type {number} */ i) => {
      if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string' || !isObj(p[1])) throw fail(`initialSessions[${i}]`, 'must be a [key, session] pair');
    });
  }
  if (!Array.isArray(t.steps)) throw fail('steps', 'must be an array of { call, result? }');
  t.steps.forEach((/** @type {any} */ step, /** @type {number} */ i) => {
    const at = `steps[${i}]`;
    if (!isObj(step)) throw fail(at, 'a step is an object { call, result?, agent?, threadId?, batch? }');
    if (!isObj(step.call)) throw fail(`${at}.call`, 'must be a tool call { id, name, args? }');
    if (typeof step.call.id !== 'string' || step.call.id === '') throw fail(`${at}.call.id`, 'must be a non-empty string');
    if (typeof step.call.name !== 'string') throw fail(`${at}.call.name`, 'must be a string');
    if (step.call.args !== undefined && !isObj(step.call.args) && typeof step.call.args !== 'string') throw fail(`${at}.call.args`, 'must be an object or a JSON string');
    if (step.result !== undefined) {
      if (!isObj(step.result)) throw fail(`${at}.result`, 'must be an object { status, artifact? }');
      if (step.result.status !== undefined && step.result.status !== 'success' && step.result.status !== 'error') throw fail(`${at}.result.status`, 'must be "success" or "error"');
      if (step.result.artifact !== undefined && step.result.artifact !== null && !isObj(step.result.artifact)) throw fail(`${at}.result.artifact`, 'must be an object');
    }
    if (step.agent !== undefined && !Object.hasOwn(agents, step.agent)) throw fail(`${at}.agent`, `names no agent of "agents" (${Object.keys(agents).join(', ') || 'none'})`);
    if (step.threadId !== undefined && typeof step.threadId !== 'string') throw fail(`${at}.threadId`, 'must be a string');
    if (step.batch !== undefined && typeof step.batch !== 'number' && typeof step.batch !== 'string') throw fail(`${at}.batch`, 'must be a number or a string');
  });
  const ids = new Set();
  t.steps.forEach((/** @type {any} */ step, /** @type {number} */ i) => {
    const key = `${step.batch ?? `#${i}`}\0${step.call.id}`;
    if (ids.has(key)) throw fail(`steps[${i}].call.id`, `repeats ${JSON.stringify(step.call.id)} within one batch`);
    ids.add(key);
  });
  return {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    ...(typeof t.title === 'string' ? { title: t.title } : {}),
    config,
    path,
    ...(t.threadId !== undefined ? { threadId: t.threadId } : {}),
    agents,
    ...(t.initialSessions !== undefined ? { initialSessions: t.initialSessions } : {}),
    steps: t.steps,
  };
}

/**
 * The trace's batches: consecutive steps with the same `batch` value ran as one batch; a step without
 * one is a batch of its own. Each batch carries its per-call options (the first step's agent and thread).
 * @param {Trace} trace
 */
export function batchesOf(trace) {
  /** @type {Array<{ steps: Array<{ index: number, step: TraceStep }>, codeSessionKey?: string, threadId?: string }>} */
  const out = [];
  trace.steps.forEach((step, index) => {
    const last = out[out.length - 1];
    const prev = index > 0 ? trace.steps[index - 1] : undefined;
    if (last && step.batch !== undefined && prev?.batch === step.batch) {
      last.steps.push({ index, step });
      return;
    }
    const agent = step.agent !== undefined ? trace.agents[step.agent] : undefined;
    const threadId = step.threadId ?? trace.threadId;
    out.push({
      steps: [{ index, step }],
      ...(agent?.codeSessionKey !== undefined ? { codeSessionKey: agent.codeSessionKey } : {}),
      ...(threadId !== undefined ? { threadId } : {}),
    });
  });
  return out;
}

/** A step's recorded result, as a host reports it. @param {TraceStep} step */
export const resultOf = (step) => ({
  status: step.result?.status ?? 'success',
  ...(step.result?.artifact != null ? { artifact: step.result.artifact } : {}),
});
