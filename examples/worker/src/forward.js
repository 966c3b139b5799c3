// One tool call to the sandbox: the gate builds the request from the call's context, the worker sends
// it, the gate reads the answer. A failure of any kind is a typed error and folds nothing.
import { buildSandboxRequest, readSandboxResponse } from 'code-session-gate';
import { runFor } from './tools.js';

/**
 * @typedef {object} SandboxSettings
 * @property {string} url          base URL, e.g. https://code.example/v1 (the request goes to `${url}/exec`)
 * @property {'codeapi' | 'librecodeinterpreter'} dialect
 * @property {string | undefined} credential  Bearer token (codeapi) or API key (librecodeinterpreter)
 * @property {string | undefined} userId
 * @property {number} timeoutMs    the run's timeout, sent to the sandbox
 * @property {number} deadlineMs   how long the worker waits for an answer
 */

/** An error the caller sees, typed like the gate's. */
function failure(code, message, extra = {}) {
  return { code, message, ...extra };
}

/**
 * Runs one dispatched request (`ToolCallRequest` of an event batch) in the sandbox.
 * @param {SandboxSettings} sandbox
 * @param {import('code-session-gate').ToolCallRequest} request
 * @returns {Promise<{ result: import('code-session-gate').ToolExecuteResult, sent?: object, output?: object, error?: object }>}
 */
export async function forward(sandbox, request) {
  const { id, name, args } = request;
  let built;
  try {
    built = buildSandboxRequest({
      dialect: sandbox.dialect,
      tool: name,
      run: runFor(name, args),
      modelArgs: args,
      context: request,
      userId: sandbox.userId,
      timeoutMs: sandbox.timeoutMs,
      credential: sandbox.credential,
    });
  } catch (e) {
    const error = failure(e.code ?? 'invalid_tool_input', e.message, e.path ? { path: e.path } : {});
    return { result: { toolCallId: id, status: 'error', errorMessage: error.message }, error };
  }
  const { body, headers, droppedFields, refs } = built;
  const sent = {
    session_id: body.session_id,
    runtime_session_hint: body.runtime_session_hint,
    files: (body.files ?? []).map((f) => ({ name: f.name, id: f.id, storage_session_id: f.storage_session_id, kind: f.kind, ...(f.version !== undefined ? { version: f.version } : {}) })),
    droppedFields,
    refs,
  };
  let status;
  let text;
  let retryAfter;
  try {
    const res = await fetch(`${sandbox.url}/${built.endpoint}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(sandbox.deadlineMs),
    });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    text = await res.text();
  } catch (e) {
    const timedOut = e?.name === 'TimeoutError' || e?.name === 'AbortError';
    const error = failure(
      'unavailable',
      timedOut
        ? `the sandbox did not answer within ${sandbox.deadlineMs} ms`
        : `the sandbox could not be reached: ${e?.message ?? e}`,
      { reason: timedOut ? 'timeout' : 'connection' },
    );
    return { result: { toolCallId: id, status: 'error', errorMessage: error.message }, sent, error };
  }
  try {
    const answer = readSandboxResponse({ dialect: sandbox.dialect, status, body: text, retryAfter });
    const output = { stdout: answer.stdout, stderr: answer.stderr, exitCode: answer.exitCode };
    // A run that exits non-zero is still the tool's answer (the model reads stderr); its files fold.
    return {
      result: { toolCallId: id, status: 'success', content: answer.stdout, artifact: answer.artifact },
      sent,
      output,
    };
  } catch (e) {
    const extra = { status: e.status };
    if (e.retryAfterSeconds !== undefined) extra.retryAfterSeconds = e.retryAfterSeconds;
    const error = failure(e.code, e.message, extra);
    return { result: { toolCallId: id, status: 'error', errorMessage: error.message }, sent, error };
  }
}
