// One request's tool calls as one event batch, as the SDK's ToolNode dispatches them: every call sees the
// session as it was before the batch, the gate plans the batch and builds every dispatched call's sandbox
// request in one call (`forwardEventBatch`: no context lists cross), each goes to the sandbox and the gate
// keeps its answer, and the answers are folded together once all are back. Shared by
// the Durable Object (src/conversation.js) and the plain-host runner (host.mjs), so that workerd, Node and
// Deno run the very same steps.
import { buildRefused, current, requestSettings, send } from './forward.js';
import { pooled } from './pool.js';

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
 * @returns {Promise<{ end: string, results: object[], sent: { files: object[], refs: object[] }, inherited: object[], written: object[], artifacts: Map<string, object> }>}
 *   throws the gate's error when the batch cannot be planned. Each call's `artifact` lists the files that
 *   call wrote; the ones it was given and answered back unchanged (inherited echoes, the same for every
 *   call of the batch, a thousand on a full partition) are listed once, in `inherited`, and counted per
 *   call (`artifact.inherited`). `written`: every file the calls wrote (not inherited), each once;
 *   `artifacts`: each dispatched call's artifact as the sandbox answered it (a recorded trace keeps these)
 */
export async function runBatch(gate, sandbox, calls, options, run = {}) {
  const settings = await requestSettings(sandbox);
  const batch = gate.forwardEventBatch(calls, options, settings.options);
  const byId = new Map();
  for (const r of batch.rejected) {
    byId.set(r.id, { status: 'error', error: { code: 'invalid_model_args', message: r.errorMessage } });
  }
  for (const r of batch.eager) byId.set(r.id, { status: r.matched ? 'success' : 'error' });
  // Every dispatched call: those whose request the gate built, then the host tools' (their `run` is the
  // worker's); one that cannot be built is answered with its error, and counted as the rest.
  const dispatched = batch.requests.map((built) => ({ id: built.id, built }));
  for (const call of batch.refused) dispatched.push({ id: call.id, ...buildRefused(gate, batch.id, settings, call) });
  let settled;
  try {
    const concurrency = run.admit && dispatched.length > 0 ? await run.admit(dispatched.length) : (run.concurrency ?? dispatched.length);
    const tasks = dispatched.map((call) => async () => {
      if (call.built === undefined) return { status: 'error', error: call.error };
      const built = await current(gate, batch.id, sandbox, settings, call);
      return built.error ? { status: 'error', error: built.error } : send(gate, batch.id, sandbox, call.id, built.request, run.blocked);
    });
    settled = await pooled(tasks, concurrency);
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
  const written = new Map();
  const inherited = new Map();
  const artifacts = new Map();
  dispatched.forEach(({ id }, i) => {
    const s = settled[i];
    if (s.artifact) artifacts.set(id, s.artifact);
    const artifact = s.artifact && compact(s.artifact, written, inherited);
    // The artifact is what the gate folded: a host (or the devtools page's live mode) can fold it too,
    // with the batch's `inherited` files before the call's own.
    byId.set(id, {
      status: s.status,
      sent: s.sent && {
        session_id: s.sent.session_id,
        runtime_session_hint: s.sent.runtime_session_hint,
        files: s.sent.files.length,
        droppedFields: s.sent.droppedFields,
      },
      output: s.output,
      error: s.error,
      artifact,
    });
  });
  return {
    end,
    results: calls.map((c) => ({ id: c.id, name: c.name, verdict: gate.classify(c.name), ...byId.get(c.id) })),
    sent: sentOnce(settled),
    inherited: [...inherited.values()],
    written: [...written.values()],
    artifacts,
  };
}

/**
 * A call's artifact as the answer lists it: the files it wrote, and the count of the inherited echoes,
 * which go to the batch's `inherited` (each once, by identity and name); `written` collects the written
 * files by identity and name.
 * @param {any} artifact
 * @param {Map<string, any>} written
 * @param {Map<string, any>} inherited
 */
function compact(artifact, written, inherited) {
  if (!Array.isArray(artifact.files)) return artifact;
  const own = [];
  let echoes = 0;
  for (const f of artifact.files) {
    const key = `${refIdentity(f)}\u0000${f?.name}`;
    if (f?.inherited === true) {
      echoes += 1;
      if (!inherited.has(key)) inherited.set(key, f);
    } else {
      own.push(f);
      if (!written.has(key)) written.set(key, f);
    }
  }
  return { ...artifact, files: own, inherited: echoes };
}
