// One request's tool calls as one event batch, as the SDK's ToolNode dispatches them: every call sees the
// session as it was before the batch, each dispatched call goes to the sandbox on the gate's forwarding
// path (the gate keeps each answer), and the answers are folded together once all are back. Shared by
// the Durable Object (src/conversation.js) and the plain-host runner (host.mjs), so that workerd, Node and
// Deno run the very same steps.
import { forward } from './forward.js';

/**
 * Runs `jobs` with at most `limit` of them in flight, keeping their order in the answer.
 * @template T
 * @param {(() => Promise<T>)[]} jobs
 * @param {number} limit
 * @returns {Promise<T[]>}
 */
async function pooled(jobs, limit) {
  const out = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, jobs.length)) }, lane));
  return out;
}

/** A sent ref's identity, for listing each file once per batch. */
const refIdentity = (f) => `${f.storage_session_id}\u0000${f.id}`;

/**
 * What the batch sent, once for all its calls (every call of a batch sees the same pre-batch session, so
 * listing the refs per call would repeat them call after call): each file sent, and each note about a
 * ref that was repaired or dropped.
 * @param {{ sent?: { files?: any[], refs?: any[] } }[]} settled
 */
function sentOnce(settled) {
  const files = new Map();
  const notes = new Map();
  for (const s of settled) {
    for (const f of s.sent?.files ?? []) if (!files.has(refIdentity(f))) files.set(refIdentity(f), f);
    for (const n of s.sent?.refs ?? []) {
      const key = JSON.stringify([n.index, n.id, n.action, n.reason]);
      if (!notes.has(key)) notes.set(key, n);
    }
  }
  return { files: [...files.values()], refs: [...notes.values()] };
}

/**
 * @param {import('code-session-gate').Gate} gate
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {import('code-session-gate').ToolCallInput[]} calls
 * @param {{ threadId: string, codeSessionKey?: string }} options
 * @param {{ concurrency?: number, admit?: (runs: number) => Promise<number>, blocked?: Map<string, string> }} [run]
 *   how many calls go to the sandbox at once (all by default); `admit` is asked, once the batch is planned,
 *   for the dispatched count and answers the concurrency (it throws to refuse the batch, which is then
 *   abandoned); `blocked`: expired files no call may be sent without
 * @returns {Promise<{ end: string, results: object[], sent: { files: object[], refs: object[] }, given: object[] }>}
 *   throws the gate's error when the batch cannot be planned; `given`: the file refs the answers gave
 */
export async function runBatch(gate, sandbox, calls, options, run = {}) {
  const batch = gate.beginEventBatch(calls, options);
  const byId = new Map();
  for (const r of batch.rejected) {
    byId.set(r.id, { status: 'error', error: { code: 'invalid_model_args', message: r.errorMessage } });
  }
  for (const r of batch.eager) byId.set(r.id, { status: r.matched ? 'success' : 'error' });
  let settled;
  try {
    const concurrency = run.admit && batch.dispatch.length > 0 ? await run.admit(batch.dispatch.length) : (run.concurrency ?? batch.dispatch.length);
    settled = await pooled(batch.dispatch.map((request) => () => forward(gate, batch.id, sandbox, request, run.blocked)), concurrency);
  } catch (e) {
    gate.abandon(batch.id);
    throw e;
  }
  let end;
  try {
    // The answers the gate read are what it folds: no results to hand back.
    end = gate.completeEventBatch(batch.id, { now: Date.now() });
  } catch (e) {
    // Nothing was folded; the batch must not stay pending.
    gate.abandon(batch.id);
    throw e;
  }
  const given = [];
  batch.dispatch.forEach((request, i) => {
    const s = settled[i];
    for (const f of s.artifact?.files ?? []) given.push(f);
    // The artifact is what the gate folded: a host (or the devtools page's live mode) can fold it too.
    byId.set(request.id, {
      status: s.status,
      sent: s.sent && {
        session_id: s.sent.session_id,
        runtime_session_hint: s.sent.runtime_session_hint,
        files: s.sent.files.length,
        droppedFields: s.sent.droppedFields,
      },
      output: s.output,
      error: s.error,
      artifact: s.artifact,
    });
  });
  return {
    end,
    results: calls.map((c) => ({ id: c.id, name: c.name, verdict: gate.classify(c.name), ...byId.get(c.id) })),
    sent: sentOnce(settled),
    given,
  };
}
