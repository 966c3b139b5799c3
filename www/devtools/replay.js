// The devtools page's replay: a trace (a gate configuration, a path, and tool calls with their results)
// run through a fresh `Gate` of the package, step by step, recording what the package itself says at
// each step: every gate site's decision and its rule (`gate.explain`), the session fields the call was
// sent with, the fold's outcome, and what the fold did to each partition (`diffSessions`). Nothing here
// decides anything about sessions; it only calls the package and keeps its answers.
//
// Runs in the browser page and in Node (tests/devtools/replay.test.mjs) alike: the package's module is
// passed in.

/** The trace format this page reads and writes. */
export const TRACE_FORMAT = 'code-session-gate.trace';
export const TRACE_VERSION = 1;

/** The clock of a replay: fixed, so that a trace replays to the same sessions every time. */
export const REPLAY_EPOCH_MS = 1767225600000;

/** A trace the page cannot replay (not the package's own typed errors). */
export class TraceError extends Error {
  /** @param {string} message @param {string} path */
  constructor(message, path) {
    super(path ? `${path}: ${message}` : message);
    this.name = 'TraceError';
    this.code = 'invalid_trace';
    this.path = path;
  }
}

const PATHS = ['direct', 'event', 'eager'];

/**
 * Checks the shape of a trace (the package checks every value it is given; this checks only what the
 * page itself reads) and returns it with defaults filled in.
 * @param {unknown} trace
 */
export function normalizeTrace(trace) {
  if (trace === null || typeof trace !== 'object' || Array.isArray(trace)) {
    throw new TraceError('a trace is a JSON object', '');
  }
  const t = /** @type {Record<string, any>} */ (trace);
  if (t.format !== undefined && t.format !== TRACE_FORMAT) {
    throw new TraceError(`format must be "${TRACE_FORMAT}"`, 'format');
  }
  if (t.version !== undefined && t.version !== TRACE_VERSION) {
    throw new TraceError(`version ${JSON.stringify(t.version)} is not supported (this page reads ${TRACE_VERSION})`, 'version');
  }
  const path = t.path ?? 'event';
  if (!PATHS.includes(path)) throw new TraceError(`must be one of ${PATHS.join(', ')}`, 'path');
  const config = t.config ?? {};
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new TraceError('must be an object (the Gate configuration)', 'config');
  }
  const agents = t.agents ?? {};
  if (agents === null || typeof agents !== 'object' || Array.isArray(agents)) {
    throw new TraceError('must be an object of agent name → { codeSessionKey? }', 'agents');
  }
  if (t.threadId !== undefined && typeof t.threadId !== 'string') {
    throw new TraceError('must be a string (configurable.thread_id)', 'threadId');
  }
  if (!Array.isArray(t.steps)) throw new TraceError('must be an array of { call, result? }', 'steps');
  t.steps.forEach((step, i) => {
    if (step === null || typeof step !== 'object' || Array.isArray(step)) {
      throw new TraceError('a step is an object { call, result?, agent?, threadId? }', `steps[${i}]`);
    }
    if (step.call === null || typeof step.call !== 'object') {
      throw new TraceError('must be a tool call { id, name, args }', `steps[${i}].call`);
    }
    if (step.agent !== undefined && !Object.hasOwn(agents, step.agent)) {
      throw new TraceError(`names no agent of "agents" (${Object.keys(agents).join(', ') || 'none'})`, `steps[${i}].agent`);
    }
  });
  return {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    ...(typeof t.title === 'string' ? { title: t.title } : {}),
    config,
    ...(t.threadId !== undefined ? { threadId: t.threadId } : {}),
    path,
    agents,
    ...(t.initialSessions !== undefined ? { initialSessions: t.initialSessions } : {}),
    steps: t.steps,
  };
}

/**
 * The "Export trace" file: the trace in the package's trace format (`code-session-gate.trace` version 1,
 * TRACE.md in the package), the one worker records and `code-session-gate-check-sdk --trace`
 * replays through an SDK release. Only the format's keys are written.
 * @param {unknown} trace
 * @returns {string}
 */
export function exportTrace(trace) {
  return `${JSON.stringify({ ...normalizeTrace(trace), recorder: { by: 'devtools' } }, null, 2)}\n`;
}

/** The per-call options of a step: its agent's partition and its thread. */
export function stepOptions(trace, step) {
  const options = {};
  const agent = step.agent !== undefined ? trace.agents[step.agent] : undefined;
  if (agent && agent.codeSessionKey !== undefined) options.codeSessionKey = agent.codeSessionKey;
  const threadId = step.threadId ?? trace.threadId;
  if (threadId !== undefined) options.threadId = threadId;
  return options;
}

/** The package's typed error as plain data (what the page shows). */
export function errorData(e) {
  if (e && e.name === 'CodeSessionGateError') {
    return { name: e.name, code: e.code, path: e.path, message: e.message };
  }
  if (e instanceof TraceError) return { name: e.name, code: e.code, path: e.path, message: e.message };
  if (e && typeof e.code === 'string') return { name: e.name ?? 'Error', code: e.code, path: e.path ?? '', message: String(e.message) };
  if (e instanceof SyntaxError) return { name: e.name, code: 'invalid_json', path: '', message: e.message };
  return { name: e?.name ?? 'Error', code: 'unexpected', path: '', message: String(e?.message ?? e) };
}

const pairsToMap = (pairs) => new Map(pairs ?? []);

/**
 * What a step's write did to every partition that either side has.
 * @param {any} pkg the package's module
 */
function partitionChanges(pkg, before, after) {
  const keys = [...new Set([...before.keys(), ...after.keys()])];
  return keys.map((key) => ({ key, ...pkg.diffSessions(before.get(key) ?? null, after.get(key) ?? null) }));
}

/** The result a host would report for a call (`ToolExecuteResult` / a direct outcome). */
function resultOf(step) {
  const r = step.result ?? { status: 'success' };
  return { status: r.status ?? 'success', ...(r.artifact !== undefined ? { artifact: r.artifact } : {}) };
}

/** Runs one step on the direct (in-process) path. */
function runDirect(gate, call, result, options, now) {
  const batch = gate.beginDirectBatch([{ id: call.id, name: call.name }], options);
  const sent = batch.injections[0];
  try {
    gate.completeDirectBatch(batch.id, [{ id: call.id, name: call.name, ...result }], { now });
  } catch (e) {
    gate.abandon(batch.id);
    throw e;
  }
  return { sent, end: 'folded' };
}

/** Runs one step as an event batch of one call (what the SDK's ToolNode dispatches). */
function runEvent(gate, call, result, options, now) {
  const batch = gate.beginEventBatch([call], options);
  const request = batch.dispatch[0];
  if (!request) {
    const refusal = batch.rejected[0];
    const end = gate.completeEventBatch(batch.id, { now, requests: [], results: [] });
    return { sent: null, rejected: refusal?.errorMessage ?? null, end };
  }
  let end;
  try {
    end = gate.completeEventBatch(batch.id, {
      now,
      requests: batch.dispatch,
      results: [{ toolCallId: request.id, ...result }],
    });
  } catch (e) {
    gate.abandon(batch.id);
    throw e;
  }
  return { sent: request, end };
}

/** Runs one step on the eager path: prestart, settle, then the batch that consumes the prestart. */
function runEager(gate, call, result, options, now) {
  const prestart = gate.prestartEager([call], options);
  const request = prestart?.requests[0];
  if (!request) {
    // Excluded from the prestart (or the set refused): the batch dispatches it as usual.
    if (prestart) gate.settleEager(prestart.id, { requests: [], results: [] });
    return { ...runEvent(gate, call, result, options, now), prestarted: false };
  }
  gate.settleEager(prestart.id, { requests: prestart.requests, results: [{ toolCallId: request.id, ...result }] });
  const batch = gate.beginEventBatch([call], options);
  let end;
  try {
    end = gate.completeEventBatch(batch.id, { now, requests: batch.dispatch, results: [] });
  } catch (e) {
    gate.abandon(batch.id);
    throw e;
  }
  return { sent: request, end, prestarted: true, matched: batch.eager[0]?.matched ?? null };
}

const RUNNERS = { direct: runDirect, event: runEvent, eager: runEager };

/**
 * Replays `trace` on a fresh gate. Returns the gate's final snapshot and one record per step; a step
 * the package refuses records its typed error and changes nothing (the replay goes on).
 * @param {any} pkg the package's module (`code-session-gate`)
 * @param {unknown} input the trace
 * @param {{ profile?: '3.6' | '3.9', results?: Array<object | undefined> }} [override]
 *   another profile than the trace's (side by side), and results that replace the trace's (live mode)
 */
export function replay(pkg, input, override = {}) {
  const trace = normalizeTrace(input);
  const config = { ...trace.config, ...(override.profile ? { profile: override.profile } : {}) };
  if (trace.initialSessions !== undefined) config.sessions = trace.initialSessions;
  const gate = new pkg.Gate(config);
  try {
    const steps = trace.steps.map((step, i) => {
      const call = step.call;
      const options = stepOptions(trace, step);
      const now = REPLAY_EPOCH_MS + (i + 1) * 1000;
      const before = pairsToMap(gate.sessions());
      const record = { index: i, call, options, agent: step.agent ?? null };
      try {
        record.explain = gate.explain(call.name, options);
        const result = override.results?.[i] ?? resultOf(step);
        record.result = result;
        Object.assign(record, RUNNERS[trace.path](gate, call, result, options, now));
      } catch (e) {
        record.error = errorData(e);
      }
      const after = pairsToMap(gate.sessions());
      record.sessions = [...after].map(([key, session]) => ({ key, session }));
      record.changes = partitionChanges(pkg, before, after);
      return record;
    });
    return { trace, profile: gate.profile, steps, snapshot: gate.snapshot() };
  } finally {
    gate.free();
  }
}

/** The keys whose values differ between two sent objects (either may be missing). */
function differingKeys(a, b) {
  const keys = [...new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])];
  return keys.filter((k) => JSON.stringify(a?.[k]) !== JSON.stringify(b?.[k]));
}

/**
 * Where two replays of one trace differ, per step: the sites whose decision differs, whether the sent
 * session fields differ (and which), and whether the sessions after the step differ.
 */
export function compareReplays(a, b) {
  return a.steps.map((sa, i) => {
    const sb = b.steps[i];
    const sites = (sa.explain?.sites ?? [])
      .filter((site, j) => site.passes !== sb?.explain?.sites?.[j]?.passes)
      .map((site) => site.site);
    return {
      index: i,
      sites,
      sent: JSON.stringify(sa.sent ?? null) !== JSON.stringify(sb?.sent ?? null),
      sentFields: differingKeys(sa.sent, sb?.sent),
      sessions: JSON.stringify(sa.sessions) !== JSON.stringify(sb?.sessions),
      error: JSON.stringify(sa.error ?? null) !== JSON.stringify(sb?.error ?? null),
    };
  });
}
