// Files in and out of the sandbox through its own upload and download endpoints, in either dialect
// (the project's spec, hosts-and-wire.md §1.4 and §3): the worker holds the sandbox credential, so a host
// never needs it. The gate speaks `/exec` only; these two requests are the host's, as LibreChat's are.
import { Refusal } from './errors.js';
import { readBody } from './limits.js';
import { tracedFetch } from './trail.js';

/**
 * What an id must be before it goes into a sandbox URL: both servers mint URL-safe ids (nanoids), and
 * nothing else — no `.`, `/` or `%` — may become a path segment, so no ref can steer a request to
 * another route of the sandbox.
 */
export const URL_SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The credential header of each dialect, for a request made for `sandbox.userId`: codeapi takes a
 * Bearer token (minted per request under `SANDBOX_AUTH = "codeapi-jwt"`), LibreCodeInterpreter an API key.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @returns {Promise<Record<string, string>>}
 */
export async function credentialHeaders(sandbox) {
  const credential = await credentialOf(sandbox);
  if (!credential) return {};
  return sandbox.dialect === 'codeapi' ? { authorization: `Bearer ${credential}` } : { 'x-api-key': credential };
}

/**
 * The credential of one request: minted for it when the settings can (`credentialFor`), else the static one.
 * @param {import('./forward.js').SandboxSettings} sandbox
 */
export function credentialOf(sandbox) {
  return sandbox.credentialFor ? sandbox.credentialFor() : Promise.resolve(sandbox.credential);
}

/** The longest a minted credential is reused for one request's sandbox calls. */
const CREDENTIAL_REUSE_MS = 60_000;

/**
 * How long a credential minted for one request may serve its later sandbox calls: a minute, or half the
 * credential's sure lifetime when that is shorter (the sandbox refuses an expired token, and a token's
 * `iat` is a whole second, so it may live up to a second less than its TTL; a call sent at the end of the
 * window still arrives well before the expiry). `Infinity` for a static credential.
 * @param {import('./forward.js').SandboxSettings} sandbox
 */
export function credentialReuseMs(sandbox) {
  if (!sandbox.credentialFor) return Infinity;
  const ttl = sandbox.credentialTtlMs;
  return ttl === undefined ? CREDENTIAL_REUSE_MS : Math.min(CREDENTIAL_REUSE_MS, Math.max(0, ttl - 1000) / 2);
}

/** A sandbox answer that is not what was asked for → the worker's refusal, the status kept in the message. */
async function fromSandbox(res, what) {
  const detail = `${what}: the sandbox answered ${res.status}`;
  await res.body?.cancel();
  if (res.status === 403) return new Refusal(403, 'forbidden_file_ref', `${detail} (the sandbox does not let this user read the file)`);
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
    return await tracedFetch(sandbox.trail, what, url, { ...init, signal: AbortSignal.timeout(sandbox.deadlineMs) });
  } catch (e) {
    const timedOut = e?.name === 'TimeoutError' || e?.name === 'AbortError';
    throw new Refusal(timedOut ? 504 : 502, 'sandbox_unavailable', timedOut ? `${what}: no answer within ${sandbox.deadlineMs} ms` : `${what}: the sandbox could not be reached`);
  }
}

/**
 * `${sandbox.url}/<route>/<ids…>`, each id checked to be URL-safe first and the URL built checked to
 * stay under that route: a ref (from a sandbox answer or a caller) never chooses another route.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} route
 * @param {unknown[]} ids
 */
export function sandboxUrl(sandbox, route, ids) {
  for (const id of ids) {
    if (typeof id !== 'string' || !URL_SAFE_ID.test(id)) {
      throw new Refusal(400, 'invalid_file_ref', `the file's ref holds an id the sandbox never mints (${JSON.stringify(id)}): nothing was sent`);
    }
  }
  const base = `${sandbox.url}/${route}/`;
  const url = new URL(base + ids.join('/'));
  if (!url.href.startsWith(base) || url.pathname.split('/').length !== new URL(base).pathname.split('/').length + ids.length - 1) {
    throw new Refusal(400, 'invalid_file_ref', `the file's ref leads out of the sandbox's ${route} route: nothing was sent`);
  }
  return url;
}

/** Files in one codeapi `/upload/batch` request (codeapi's MAX_BATCH_FILES). */
export const UPLOAD_BATCH_FILES = 200;

/**
 * The form of an upload: codeapi resolves a file's owner from the identity fields, which must come
 * before the file parts.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {{ name: string, bytes: Uint8Array, contentType: string }[]} files
 */
function uploadForm(sandbox, user, files) {
  const form = new FormData();
  if (sandbox.dialect === 'codeapi') {
    form.append('kind', 'user');
    form.append('id', user);
  }
  for (const f of files) form.append('file', new Blob([f.bytes], { type: f.contentType }), f.name);
  return form;
}

/**
 * POSTs an upload form to `route` and reads the answer's files and storage session; a refusal of the
 * whole request is the worker's typed refusal.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {string} route
 * @param {FormData} form
 * @returns {Promise<{ files: any[], storage: unknown }>}
 */
async function postUpload(sandbox, user, route, form) {
  const res = await send(sandbox, `${sandbox.url}/${route}`, {
    method: 'POST',
    headers: { ...(await credentialHeaders(sandbox)), 'user-id': user },
    body: form,
  }, 'upload');
  if (res.status !== 200) throw await fromSandbox(res, 'upload');
  let answer;
  try {
    answer = await res.json();
  } catch {
    throw new Refusal(502, 'sandbox_error', 'upload: the sandbox\'s answer is not JSON');
  }
  return { files: Array.isArray(answer?.files) ? answer.files : [], storage: answer?.storage_session_id ?? answer?.session_id };
}

/**
 * The ref of one uploaded file (kind `user`), named as the sandbox stored it.
 * @param {any} file
 * @param {unknown} storage
 */
function uploadedRef(file, storage) {
  if (typeof file?.fileId !== 'string' || typeof file?.filename !== 'string' || typeof storage !== 'string') {
    throw new Refusal(502, 'sandbox_error', 'upload: the sandbox\'s answer has no file id, name or storage session');
  }
  return { id: file.fileId, resource_id: file.fileId, name: file.filename, storage_session_id: storage, kind: 'user' };
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
  const { files, storage } = await postUpload(sandbox, user, 'upload', uploadForm(sandbox, user, [{ name, bytes, contentType }]));
  return uploadedRef(files[0], storage);
}

/**
 * Uploads several files as `user`'s, in order, and returns their refs in the same order. codeapi takes
 * up to UPLOAD_BATCH_FILES in one `/upload/batch` request (one request against its per-user upload
 * limit, all the files in one new storage session); a file it refuses fails the whole call, naming the
 * file. LibreCodeInterpreter gets one `/upload` per file.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {{ name: string, bytes: Uint8Array, contentType: string }[]} files
 */
export async function uploadFiles(sandbox, user, files) {
  const refs = [];
  if (sandbox.dialect !== 'codeapi' || files.length === 1) {
    for (const f of files) refs.push(await uploadFile(sandbox, user, f.name, f.bytes, f.contentType));
    return refs;
  }
  for (let i = 0; i < files.length; i += UPLOAD_BATCH_FILES) {
    const chunk = files.slice(i, i + UPLOAD_BATCH_FILES);
    const { files: answered, storage } = await postUpload(sandbox, user, 'upload/batch', uploadForm(sandbox, user, chunk));
    if (answered.length !== chunk.length) {
      throw new Refusal(502, 'sandbox_error', `upload: the sandbox answered ${answered.length} files for ${chunk.length} sent`);
    }
    chunk.forEach((f, j) => {
      const file = answered[j];
      if (file?.status !== 'success') {
        throw new Refusal(502, 'sandbox_error', `upload: the sandbox refused ${JSON.stringify(f.name)}: ${String(file?.error ?? 'no reason given')}`);
      }
      refs.push(uploadedRef(file, storage));
    });
  }
  return refs;
}

/**
 * codeapi authorizes a read by the identity that owns the storage session: `?kind=&id=` (and `version`
 * for a skill) of the ref's owner. LibreCodeInterpreter reads nothing of it.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {URL} url
 * @param {string} user
 * @param {{ id: string, kind?: string, resource_id?: string, version?: number }} ref
 */
function ownerQuery(sandbox, url, user, ref) {
  if (sandbox.dialect === 'codeapi') {
    const kind = ref.kind === 'skill' || ref.kind === 'agent' ? ref.kind : 'user';
    url.searchParams.set('kind', kind);
    url.searchParams.set('id', kind === 'user' ? user : (ref.resource_id ?? ref.id));
    if (kind === 'skill' && ref.version !== undefined) url.searchParams.set('version', String(ref.version));
  }
  return url;
}

/**
 * Whether the sandbox still has a file: `{ state: 'present', lastModified? }`, `{ state: 'missing' }` —
 * 404, or codeapi's 403 once the session's key has expired (the same answer as for a ref that was never
 * the user's, which the worker never sends) — or `{ state: 'unknown', detail }` when the sandbox could
 * not say (another status, no answer): the caller decides; `{ state: 'limited' }` for its 429 (with its
 * Retry-After), which the caller answers as the request's own 429.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {{ id: string, storage_session_id: string, kind?: string, resource_id?: string, version?: number }} ref
 * @returns {Promise<{ state: 'present', lastModified?: number } | { state: 'missing' } | { state: 'limited', retryAfter?: string } | { state: 'unknown', detail: string }>}
 */
export async function probeFile(sandbox, user, ref) {
  let url;
  try {
    url = ownerQuery(sandbox, sandboxUrl(sandbox, 'sessions', [ref.storage_session_id, 'objects', ref.id]), user, ref);
  } catch {
    return { state: 'missing' };
  }
  let res;
  try {
    res = await send(sandbox, url, { headers: { ...(await credentialHeaders(sandbox)), 'user-id': user } }, 'file check');
  } catch (e) {
    return { state: 'unknown', detail: e.message };
  }
  if (res.status === 404 || res.status === 403) {
    await res.body?.cancel();
    return { state: 'missing' };
  }
  if (res.status === 429) {
    await res.body?.cancel();
    const retryAfter = res.headers.get('retry-after');
    return retryAfter ? { state: 'limited', retryAfter } : { state: 'limited' };
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return { state: 'unknown', detail: `the sandbox answered ${res.status}` };
  }
  const answer = await res.json().catch(() => ({}));
  const lastModified = Date.parse(answer?.lastModified ?? '');
  return Number.isFinite(lastModified) ? { state: 'present', lastModified } : { state: 'present' };
}

/**
 * Deletes a file in the sandbox, best effort: `'deleted'`, `'unsupported'` (LibreCodeInterpreter has no
 * delete route), or `'failed'`.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {{ id: string, storage_session_id: string, kind?: string, resource_id?: string, version?: number }} ref
 * @returns {Promise<'deleted' | 'unsupported' | 'failed'>}
 */
export async function deleteFile(sandbox, user, ref) {
  if (sandbox.dialect !== 'codeapi') return 'unsupported';
  try {
    const url = ownerQuery(sandbox, sandboxUrl(sandbox, 'files', [ref.storage_session_id, ref.id]), user, ref);
    const res = await send(sandbox, url, { method: 'DELETE', headers: { ...(await credentialHeaders(sandbox)), 'user-id': user } }, 'delete');
    await res.body?.cancel();
    return res.status === 200 || res.status === 404 ? 'deleted' : 'failed';
  } catch {
    return 'failed';
  }
}

/**
 * A file's bytes from the sandbox, up to `max` (a longer one is `null`: not kept), for the worker's own copy.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {{ id: string, storage_session_id: string, kind?: string, resource_id?: string, version?: number }} ref
 * @param {number} max
 * @returns {Promise<{ bytes: Uint8Array, contentType: string } | null>}
 */
export async function fetchFile(sandbox, user, ref, max) {
  const url = ownerQuery(sandbox, sandboxUrl(sandbox, 'download', [ref.storage_session_id, ref.id]), user, ref);
  const res = await send(sandbox, url, { headers: { ...(await credentialHeaders(sandbox)), 'user-id': user } }, 'download');
  if (res.status !== 200) {
    await res.body?.cancel();
    return null;
  }
  try {
    return { bytes: await readBody(res, max, 'a kept file (MAX_FILE_BYTES)'), contentType: res.headers.get('content-type') ?? 'application/octet-stream' };
  } catch {
    return null;
  }
}

/** A file name as an RFC 6266 `filename*` value (its last path segment). @param {string} name */
const dispositionName = (name) => encodeURIComponent(name.split('/').pop() ?? name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * A file served as an attachment that no browser renders in the worker's origin (`Content-Disposition:
 * attachment`, `nosniff`, `Content-Security-Policy: sandbox`), whether its bytes come from the sandbox or
 * from the worker's kept copy.
 * @param {{ name: string }} ref
 * @param {ReadableStream | Uint8Array | null} body
 * @param {string | null} contentType
 * @param {string | number | null} length
 */
export function attachment(ref, body, contentType, length) {
  /** @type {Record<string, string>} */
  const headers = {
    'content-type': contentType ?? 'application/octet-stream',
    'content-disposition': `attachment; filename*=UTF-8''${dispositionName(ref.name)}`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': 'sandbox',
    'cache-control': 'private, no-store',
  };
  if (length !== null) headers['content-length'] = String(length);
  return new Response(body, { headers });
}

/**
 * The sandbox's answer for a file of the caller's partition: its bytes as a stream, with the sandbox's
 * content type and length, as an `attachment`. A file the sandbox no longer has (or no longer lets this
 * user read: codeapi's 403 once its storage key expired) is the typed refusal `file_gone` /
 * `forbidden_file_ref`, which the caller may answer from the kept bytes instead.
 * @param {import('./forward.js').SandboxSettings} sandbox
 * @param {string} user
 * @param {{ id: string, name: string, storage_session_id?: string, kind?: string, resource_id?: string, version?: number }} ref
 * @returns {Promise<Response>}
 */
export async function downloadFile(sandbox, user, ref) {
  const url = ownerQuery(sandbox, sandboxUrl(sandbox, 'download', [ref.storage_session_id, ref.id]), user, ref);
  const res = await send(sandbox, url, { headers: { ...(await credentialHeaders(sandbox)), 'user-id': user } }, 'download');
  if (res.status !== 200) throw await fromSandbox(res, 'download');
  return attachment(ref, res.body, res.headers.get('content-type'), res.headers.get('content-length'));
}
