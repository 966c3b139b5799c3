// A trace replayed on both sides, batch by batch: what each call was sent (the session fields of its
// invoke params on the direct path, of its request on the event and eager paths) and the session map
// after each batch. `lastUpdated` is left out of the sessions: the SDK stamps its own clock.

import { plain } from './compare.js';
import { pick } from './gate.js';
import { batchesOf, resultOf } from './trace.js';

const SENT = {
  direct: ['session_id', '_injected_files', '_runtime_session_hint'],
  event: ['codeSessionContext', 'runtimeSessionHint', 'codeSessionBaselineId'],
  eager: ['codeSessionContext', 'runtimeSessionHint', 'codeSessionBaselineId'],
};

/** @param {any} pairs */
const unstamped = (pairs) =>
  pairs == null ? null : plain(pairs.map(([/** @type {string} */ k, /** @type {any} */ e]) => [k, (({ lastUpdated: _t, ...rest }) => rest)(e)]));

/**
 * @typedef {{ sent: unknown, sessions?: unknown, error?: string }} StepAnswer
 */

/**
 * The gate's answers for every step, under `profile`.
 * @param {any} pkg @param {import('./trace.js').Trace} trace @param {string} profile
 * @returns {StepAnswer[]}
 */
export function replayOnGate(pkg, trace, profile) {
  /** @type {Record<string, unknown>} */
  const config = { ...trace.config, profile };
  if (trace.initialSessions !== undefined) config.sessions = trace.initialSessions;
  let gate;
  try {
    gate = new pkg.Gate(config);
  } catch (e) {
    // The gate refuses the configuration: every step answers with that refusal.
    const err = /** @type {any} */ (e);
    const error = `${err?.name ?? 'Error'}${err?.code ? ` ${err.code}` : ''}: ${err?.message ?? err}`;
    return trace.steps.map(() => ({ sent: null, error }));
  }
  const keys = SENT[trace.path];
  /** @type {StepAnswer[]} */
  const out = [];
  try {
    for (const [b, batch] of batchesOf(trace).entries()) {
      const now = 1767225600000 + (b + 1) * 1000;
      /** @type {Record<string, unknown>} */
      const options = {};
      if (batch.codeSessionKey !== undefined) options.codeSessionKey = batch.codeSessionKey;
      if (batch.threadId !== undefined) options.threadId = batch.threadId;
      const calls = batch.steps.map(({ step }) => ({ id: step.call.id, name: step.call.name, args: step.call.args ?? {} }));
      const answers = (/** @type {any[]} */ requests) =>
        requests.map((r) => ({ toolCallId: r.id, ...resultOf(/** @type {any} */ (batch.steps.find(({ step }) => step.call.id === r.id)).step) }));
      /** @type {Map<string, unknown>} */
      const sent = new Map();
      try {
        if (trace.path === 'direct') {
          const run = gate.beginDirectBatch(calls.map(({ id, name }) => ({ id, name })), options);
          calls.forEach((c, i) => sent.set(c.id, pick(run.injections[i], keys)));
          gate.completeDirectBatch(run.id, batch.steps.map(({ step }) => ({ id: step.call.id, name: step.call.name, ...resultOf(step) })), { now });
        } else {
          if (trace.path === 'eager') {
            const pre = gate.prestartEager(calls, options);
            if (pre !== null) {
              for (const r of pre.requests) sent.set(r.id, pick(r, keys));
              gate.settleEager(pre.id, { requests: pre.requests, results: answers(pre.requests) });
            }
          }
          const run = gate.beginEventBatch(calls, options);
          for (const r of run.dispatch) if (!sent.has(r.id)) sent.set(r.id, pick(r, keys));
          gate.completeEventBatch(run.id, { requests: run.dispatch, results: answers(run.dispatch), now });
        }
        batch.steps.forEach(({ step }) => out.push({ sent: sent.get(step.call.id) ?? null }));
      } catch (e) {
        const err = /** @type {any} */ (e);
        batch.steps.forEach(() => out.push({ sent: null, error: `${err?.name ?? 'Error'}${err?.code ? ` ${err.code}` : ''}: ${err?.message ?? err}` }));
      }
      out[out.length - 1].sessions = unstamped(gate.sessions());
    }
  } finally {
    gate.free?.();
  }
  return out;
}

/**
 * The SDK's answers for every step.
 * @param {ReturnType<typeof import('./sdk.js').createDrivers>} d @param {import('./trace.js').Trace} trace
 * @returns {Promise<StepAnswer[]>}
 */
export async function replayOnSdk(d, trace) {
  const sessions = new Map(structuredClone(trace.initialSessions ?? []));
  const keys = SENT[trace.path];
  const config = /** @type {Record<string, any>} */ (trace.config);
  /** @type {StepAnswer[]} */
  const out = [];
  for (const batch of batchesOf(trace)) {
    const calls = batch.steps.map(({ step }) => ({ id: step.call.id, name: step.call.name, args: typeof step.call.args === 'string' ? safeParse(step.call.args) : structuredClone(step.call.args ?? {}) }));
    const outcomes = new Map(batch.steps.map(({ step }) => [step.call.id, resultOf(step)]));
    const common = {
      sessions,
      key: batch.codeSessionKey ?? config.codeSessionKey ?? undefined,
      toolNames: config.codeSessionToolNames ?? undefined,
      toolExecution: config.toolExecution == null ? undefined : structuredClone(config.toolExecution),
      threadId: batch.threadId,
    };
    const answer = (/** @type {any} */ req) => d.hostResult(req.id, outcomes.get(req.id));
    /** @type {Map<string, unknown>} */
    const sent = new Map();
    try {
      if (trace.path === 'direct') {
        const seen = await d.directBatch({ ...common, calls, outcomes });
        for (const [id, tc] of seen) sent.set(id, pick(tc, keys));
      } else {
        /** @type {Record<string, unknown> | undefined} */
        let eager;
        if (trace.path === 'eager') {
          const pre = await d.prestart({ ...common, calls, excludeToolNames: config.eagerEventToolExecution?.excludeToolNames ?? undefined }, (x) => d.hostOf(x, answer));
          for (const r of pre.dispatched) sent.set(r.id, pick(r, keys));
          eager = { eagerEventToolExecution: { enabled: true }, eagerEventToolExecutions: pre.graph.eagerEventToolExecutions, eagerEventToolSuppressions: pre.graph.eagerEventToolSuppressions };
        }
        const dispatched = await d.eventBatch({ ...common, calls, host: (x) => d.hostOf(x, answer), eager });
        for (const r of dispatched) if (!sent.has(r.id)) sent.set(r.id, pick(r, keys));
      }
      batch.steps.forEach(({ step }) => out.push({ sent: sent.get(step.call.id) ?? null }));
    } catch (e) {
      const err = /** @type {any} */ (e);
      batch.steps.forEach(() => out.push({ sent: null, error: `${err?.name ?? 'Error'}: ${err?.message ?? err}` }));
    }
    out[out.length - 1].sessions = unstamped([...sessions]);
  }
  return out;
}

/** @param {string} text */
function safeParse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
