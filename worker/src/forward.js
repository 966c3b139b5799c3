// Tool calls to the sandbox on the gate's forwarding path: the gate builds each request (its body as
// text) from what the batch planned for the call, the worker sends it, and the gate reads the answer
// (bytes) and keeps its artifact for the batch's fold. A failure of any kind is a typed error and folds
// nothing.
import { readBody } from './limits.js';
import { credentialOf, credentialReuseMs } from './sandbox-files.js';
import { tracedFetch } from './trail.js';
import { runFor } from './tools.js';

/**
 * @typedef {object} SandboxSettings
 * @property {string} url          base URL, e.g. https://code.example/v1 (the request goes to `${url}/exec`)
 * @property {'codeapi' | 'librecodeinterpreter'} dialect
 * @property {string | undefined} [credential]  a static Bearer token (codeapi) or API key (librecodeinterpreter)
 * @property {() => Promise<string | undefined>} [credentialFor]  the credential of one request, minted for it
 * @property {number} [credentialTtlMs]  how long a minted credential is valid (SANDBOX_JWT_TTL_S)
 * @property {string | undefined} userId
 * @property {number} timeoutMs    the run's timeout, sent to the sandbox
 * @property {number} [runLimitMs] the run's own limit at the sandbox (codeapi's JOB_TIMEOUT; LCI: timeoutMs)
 * @property {number} deadlineMs   how long the worker waits for an answer
 * @property {number} [maxAnswerBytes]  the largest answer read (MAX_ANSWER_BYTES)
 * @property {import('./trail.js').Trail} [trail]  where the request's sandbox requests are noted (its log line)
 */

/** An error the caller sees, typed like the gate's. */
function failure(code, message, extra = {}) {
  return { code, message, ...extra };
}

/**
 * The `sandboxRequest` options a batch's calls share, with the credential minted for the batch.
 * @typedef {{ options: object, mintedAt: number }} BatchSettings
 * @param {SandboxSettings} sandbox
 * @returns {Promise<BatchSettings>}
 */
export async function requestSettings(sandbox) {
  const mintedAt = Date.now();
  const options = {
    dialect: sandbox.dialect,
    userId: sandbox.userId,
    timeoutMs: sandbox.timeoutMs,
    credential: await credentialOf(sandbox),
    // The worker tells its caller which refs it sent.
    withFiles: true,
  };
  return { options, mintedAt };
}

/**
 * The request of a call `forwardEventBatch` could not build: a host tool, whose `run` the worker makes
 * from the arguments the planner dispatched; a typed error when it cannot.
 * @param {import('code-session-gate').Gate} gate
 * @param {number} batch
 * @param {BatchSettings} settings
 * @param {{ id: string, name: string, args: Record<string, unknown> }} call  the `refused` entry
 * @returns {{ built?: any, run?: object, error?: object }}
 */
export function buildRefused(gate, batch, settings, call) {
  try {
    const run = runFor(call.name, call.args);
    return { built: gate.sandboxRequest(batch, call.id, { ...settings.options, run }), run };
  } catch (e) {
    return { error: failure(e.code ?? 'invalid_tool_input', e.message, e.path ? { path: e.path } : {}) };
  }
}

/**
 * A call's request as it may be sent now: as built, or, once the batch's credential is older than it may
 * be reused (a batch waiting on the sandbox can outlive a short SANDBOX_JWT_TTL_S), built again by the
 * gate with a fresh one.
 * @param {import('code-session-gate').Gate} gate
 * @param {number} batch
 * @param {SandboxSettings} sandbox
 * @param {BatchSettings} settings
 * @param {{ id: string, built: any, run?: object }} call
 * @returns {Promise<{ request?: any, error?: object }>}
 */
export async function current(gate, batch, sandbox, settings, call) {
  if (Date.now() - settings.mintedAt <= credentialReuseMs(sandbox)) return { request: call.built };
  try {
    const credential = await credentialOf(sandbox);
    return { request: gate.sandboxRequest(batch, call.id, { ...settings.options, credential, run: call.run }) };
  } catch (e) {
    return { error: failure(e.code ?? 'unavailable', e.message, e.path ? { path: e.path } : {}) };
  }
}

/**
 * Sends one dispatched call's built request (`forwardEventBatch`'s or `sandboxRequest`'s answer) to the
 * sandbox, and has the gate read the answer for batch `batch`.
 * @param {import('code-session-gate').Gate} gate
 * @param {number} batch
 * @param {SandboxSettings} sandbox
 * @param {string} id  the call's id
 * @param {any} built  the call's request
 * @param {Map<string, string>} [blocked] files (identity → name) the sandbox no longer has and the worker
 *   cannot give it again: a call that would send one is not sent (`file_expired`)
 * @returns {Promise<{ status: 'success' | 'error', sent?: object, output?: object, error?: object, artifact?: object }>}
 */
export async function send(gate, batch, sandbox, id, built, blocked = new Map()) {
  const sent = {
    session_id: built.sessionId,
    runtime_session_hint: built.runtimeSessionHint,
    files: (built.files ?? []).map((f) => ({ name: f.name, id: f.id, storage_session_id: f.storage_session_id, kind: f.kind, ...(f.version !== undefined ? { version: f.version } : {}) })),
    droppedFields: built.droppedFields,
    refs: built.refs,
  };
  const gone = sent.files.filter((f) => blocked.has(`${f.storage_session_id}\u0000${f.id}`)).map((f) => f.name);
  if (gone.length > 0) {
    const message = `the sandbox no longer has ${gone.map((n) => JSON.stringify(n)).join(', ')} and the worker keeps no copy: upload ${gone.length > 1 ? 'them' : 'it'} again (PUT …/files/<name>); the call was not run without ${gone.length > 1 ? 'them' : 'it'}`;
    return { status: 'error', sent, error: failure('file_expired', message, { files: gone }) };
  }
  let status;
  let bytes;
  let retryAfter;
  try {
    const res = await tracedFetch(sandbox.trail, 'exec', `${sandbox.url}/${built.endpoint}`, {
      method: 'POST',
      headers: built.headers,
      body: built.body,
      signal: AbortSignal.timeout(sandbox.deadlineMs),
    });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    bytes = await readBody(res, sandbox.maxAnswerBytes ?? Infinity, 'a sandbox answer (MAX_ANSWER_BYTES)');
  } catch (e) {
    if (e?.code === 'payload_too_large') {
      // The run happened; its answer is not read, so its files are not folded: said, not hidden.
      return { status: 'error', sent, error: failure('answer_too_large', `${e.message}: the run's output and files were not read into the session`) };
    }
    const timedOut = e?.name === 'TimeoutError' || e?.name === 'AbortError';
    const error = failure(
      'unavailable',
      timedOut
        ? `the sandbox did not answer within ${sandbox.deadlineMs} ms (SANDBOX_DEADLINE_MS): the run may still finish there, and the files it writes are not in the session`
        : `the sandbox could not be reached: ${e?.message ?? e}`,
      { reason: timedOut ? 'timeout' : 'connection' },
    );
    return { status: 'error', sent, error };
  }
  try {
    // The artifact is asked for only because the worker reports it (the devtools page's live mode
    // folds it too); the gate folds its own copy when the batch completes.
    const answer = gate.sandboxAnswer(batch, id, { status, body: bytes, retryAfter, withArtifact: true });
    const output = { stdout: answer.stdout, stderr: answer.stderr, exitCode: answer.exitCode, ...(answer.run ? { run: answer.run } : {}) };
    // A run that exits non-zero is still the tool's answer (the model reads stderr); its files fold.
    // One the sandbox stopped (output limit, timeout, signal) is not a success, though what it wrote
    // before the stop is folded all the same: a file is never lost for how the run ended.
    const stopped = answer.run?.stopped;
    if (stopped !== undefined) {
      const message = `the sandbox stopped the run (${answer.run.status}${answer.run.message ? `: ${answer.run.message}` : ''}); its output may be cut, the files it wrote are in the session`;
      return { status: 'error', sent, output, artifact: answer.artifact, error: failure(`run_${stopped}`, message) };
    }
    return { status: 'success', sent, output, artifact: answer.artifact };
  } catch (e) {
    const extra = { status: e.status };
    if (e.retryAfterSeconds !== undefined) extra.retryAfterSeconds = e.retryAfterSeconds;
    return { status: 'error', sent, error: failure(e.code, e.message, extra) };
  }
}
