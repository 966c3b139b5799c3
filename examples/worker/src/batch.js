// One request's tool calls as one event batch, as the SDK's ToolNode dispatches them: every call sees the
// session as it was before the batch, each dispatched call goes to the sandbox on the gate's forwarding
// path (the gate keeps each answer), and the answers are folded together once all are back. Shared by the Durable Object (src/index.js) and the plain-host runner
// (host.mjs), so that workerd, Node and Deno run the very same steps.
import { forward } from './forward.js';

/**
 * @param {import('code-session-gate').Gate} gate
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {import('code-session-gate').ToolCallInput[]} calls
 * @param {{ threadId: string, codeSessionKey?: string }} options
 * @returns {Promise<{ end: string, results: object[] }>} throws the gate's error when the batch cannot be planned
 */
export async function runBatch(gate, sandbox, calls, options) {
  const batch = gate.beginEventBatch(calls, options);
  const byId = new Map();
  for (const r of batch.rejected) {
    byId.set(r.id, { status: 'error', error: { code: 'invalid_model_args', message: r.errorMessage } });
  }
  for (const r of batch.eager) byId.set(r.id, { status: r.matched ? 'success' : 'error' });
  let settled;
  try {
    settled = await Promise.all(batch.dispatch.map((request) => forward(gate, batch.id, sandbox, request)));
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
  batch.dispatch.forEach((request, i) => {
    const s = settled[i];
    // The artifact is what the gate folded: a host (or the devtools page's live mode) can fold it too.
    byId.set(request.id, {
      status: s.status,
      sent: s.sent,
      output: s.output,
      error: s.error,
      artifact: s.artifact,
    });
  });
  return {
    end,
    results: calls.map((c) => ({ id: c.id, name: c.name, verdict: gate.classify(c.name), ...byId.get(c.id) })),
  };
}
