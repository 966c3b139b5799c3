// Files in and out of the sandbox through its own upload and download endpoints, in either dialect
// (the project's spec, hosts-and-wire.md §1.4 and §3): the worker holds the sandbox credential, so a host
// never needs it. The gate speaks `/exec` only; these two requests are the host's, as LibreChat's are.
import { Refusal } from './errors.js';

/**
 * The credential header of each dialect: codeapi takes a Bearer token, LibreCodeInterpreter an API key.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @returns {Record<string, string>}
 */
function credentialHeaders(sandbox) {
  if (!sandbox.credential) return {};
  return sandbox.dialect === 'codeapi' ? { authorization: `Bearer ${sandbox.credential}` } : { 'x-api-key': sandbox.credential };
}

/** A sandbox answer that is not what was asked for → the worker's refusal, the status kept in the message. */
async function fromSandbox(res, what) {
  const detail = `${what}: the sandbox answered ${res.status}`;
  await res.body?.cancel();
  if (res.status === 404) return new Refusal(404, 'file_gone', `${detail} (the file has expired or was removed there)`);
  if (res.status === 413) return new Refusal(413, 'payload_too_large', `${detail} (over the sandbox's own file size limit)`);
  if (res.status === 429) {
    const retry = res.headers.get('retry-after');
    return new Refusal(429, 'sandbox_rate_limited', detail, retry ? { 'retry-after': retry } : {});
  }
  return new Refusal(502, 'sandbox_error', detail);
}

/** fetch, with the worker's deadline; an unreachable or slow sandbox is a typed refusal. */
async function send(sandbox, url, init, what) {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(sandbox.deadlineMs) });
  } catch (e) {
    const timedOut = e?.name === 'TimeoutError' || e?.name === 'AbortError';
    throw new Refusal(timedOut ? 504 : 502, 'sandbox_unavailable', timedOut ? `${what}: no answer within ${sandbox.deadlineMs} ms` : `${what}: the sandbox could not be reached`);
  }
}

/**
 * Uploads one file as `user`'s and returns the ref the sandbox gave it (kind `user`), named as the
 * sandbox stored it (LibreCodeInterpreter reduces names to a safe base name).
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {string} name
 * @param {Uint8Array} bytes
 * @param {string} contentType
 */
export async function uploadFile(sandbox, user, name, bytes, contentType) {
  const form = new FormData();
  // codeapi resolves a file's owner from the identity fields, which must come before the file part.
  if (sandbox.dialect === 'codeapi') {
    form.append('kind', 'user');
    form.append('id', user);
  }
  form.append('file', new Blob([bytes], { type: contentType }), name);
  const res = await send(sandbox, `${sandbox.url}/upload`, {
    method: 'POST',
    headers: { ...credentialHeaders(sandbox), 'user-id': user },
    body: form,
  }, 'upload');
  if (res.status !== 200) throw await fromSandbox(res, 'upload');
  let answer;
  try {
    answer = await res.json();
  } catch {
    throw new Refusal(502, 'sandbox_error', 'upload: the sandbox\'s answer is not JSON');
  }
  const file = answer?.files?.[0];
  const storage = answer?.storage_session_id ?? answer?.session_id;
  if (typeof file?.fileId !== 'string' || typeof file?.filename !== 'string' || typeof storage !== 'string') {
    throw new Refusal(502, 'sandbox_error', 'upload: the sandbox\'s answer has no file id, name or storage session');
  }
  return { id: file.fileId, resource_id: file.fileId, name: file.filename, storage_session_id: storage, kind: 'user' };
}

/**
 * The sandbox's answer for a file of the caller's partition: its bytes as a stream, with the sandbox's
 * content type and length.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {{ id: string, storage_session_id?: string, kind?: string, resource_id?: string, version?: number }} ref
 * @returns {Promise<Response>}
 */
export async function downloadFile(sandbox, user, ref) {
  const path = `${sandbox.url}/download/${encodeURIComponent(ref.storage_session_id ?? '')}/${encodeURIComponent(ref.id)}`;
  let query = '';
  if (sandbox.dialect === 'codeapi') {
    // codeapi authorizes a read by the identity that owns the storage session.
    const kind = ref.kind === 'skill' || ref.kind === 'agent' ? ref.kind : 'user';
    const params = new URLSearchParams({ kind, id: kind === 'user' ? user : (ref.resource_id ?? ref.id) });
    if (kind === 'skill' && ref.version !== undefined) params.set('version', String(ref.version));
    query = `?${params}`;
  }
  const res = await send(sandbox, path + query, { headers: { ...credentialHeaders(sandbox), 'user-id': user } }, 'download');
  if (res.status !== 200) throw await fromSandbox(res, 'download');
  const headers = { 'content-type': res.headers.get('content-type') ?? 'application/octet-stream' };
  const length = res.headers.get('content-length');
  if (length !== null) headers['content-length'] = length;
  return new Response(res.body, { headers });
}
