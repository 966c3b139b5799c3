// Dialect "codeapi": the official Code API (LibreChat-AI/code-interpreter).
// Stateless executions: every /exec mints a fresh session, inputs arrive only
// as explicit, authorized file refs, outputs belong to the calling user.
import { mkdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { newId, isValidId } from './ids.mjs';
import { parseJson, parseMultipart, sendJson, sendBytes } from './http.mjs';
import { LANGUAGES, runCode, DEFAULT_TIMEOUT_MS, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS } from './runner.mjs';
import { writeInto, scanDir, classify } from './workspace.mjs';

const PROFILE = 'default';
const NAMESPACE = 'legacy';
const KINDS = ['skill', 'agent', 'user'];
// Languages the real service accepts; only those in LANGUAGES can really run here.
const CODEAPI_LANGS = new Set(['py', 'js', 'ts', 'c', 'cpp', 'java', 'php', 'rs', 'go', 'd', 'f90', 'r', 'bash']);
const RESOURCE_ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;
const HINT_RE = /^[A-Za-z0-9._:-]+$/;
const MAX_BATCH_FILES = 200;

/** An error that already knows its HTTP answer. */
class HttpFailure extends Error {
  /** @param {number} status @param {Record<string, unknown>} body */
  constructor(status, body) {
    super(String(body.error));
    this.status = status;
    this.body = body;
  }
}

/**
 * @typedef {object} Identity
 * @property {string} userId
 * @property {string} ns   storage namespace (tenant)
 */

/**
 * The token IS the user id, so tests can play several users by changing the
 * bearer string. A JWT (what LibreChat really sends) is decoded without
 * verification and its `sub` / `tenant_id` used instead, because LibreChat
 * mints a new short-lived token per call and the user must stay the same.
 * @param {string} token
 * @returns {Identity}
 */
function identityFromToken(token) {
  const parts = token.split('.');
  if (parts.length === 3) {
    try {
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
      if (claims && typeof claims.sub === 'string' && claims.sub) {
        return { userId: claims.sub, ns: typeof claims.tenant_id === 'string' && claims.tenant_id ? claims.tenant_id : NAMESPACE };
      }
    } catch { /* not a JWT after all: the whole token is the identity */ }
  }
  return { userId: token, ns: NAMESPACE };
}

/**
 * `resolveSessionKey`: who owns a storage session.
 * @param {Identity} who
 * @param {{ kind: string, id: string, version?: number }} input
 */
function sessionKey(who, input) {
  if (input.kind === 'skill') return `${who.ns}:skill:${input.id}:v:${input.version}`;
  if (input.kind === 'agent') return `${who.ns}:agent:${input.id}`;
  return `${who.ns}:user:${who.userId}`;
}

/**
 * `parseUploadSessionKeyInput`: the identity of an upload or a download.
 * @param {{ kind?: string|null, id?: string|null, version?: string|null }} raw
 * @param {string} userId
 * @returns {{ kind: string, id: string, version?: number }}
 */
function parseIdentityFields(raw, userId) {
  const { kind, id, version } = raw;
  if (typeof kind !== 'string' || !KINDS.includes(kind)) throw new HttpFailure(400, { error: `kind must be one of: ${KINDS.join(', ')}` });
  const resolvedId = typeof id === 'string' && id ? id : kind === 'user' ? userId : '';
  if (!resolvedId) throw new HttpFailure(400, { error: `id is required for kind: '${kind}'` });
  const hasVersion = version !== undefined && version !== null && version !== '';
  if (kind === 'skill') {
    if (!hasVersion) throw new HttpFailure(400, { error: "version is required for kind: 'skill'" });
    const n = Number(version);
    if (!Number.isFinite(n)) throw new HttpFailure(400, { error: "version must be a number for kind: 'skill'" });
    return { kind, id: resolvedId, version: n };
  }
  if (hasVersion) throw new HttpFailure(400, { error: "version is only valid for kind: 'skill'" });
  return { kind, id: resolvedId };
}

/**
 * `validateFileRefName`, with the real server's messages (which use `files[]`).
 * @param {string} name
 */
function validateName(name) {
  const fail = (/** @type {string} */ msg) => { throw new HttpFailure(400, { error: msg }); };
  if (!name || name === '.') fail('files[].name must not be empty');
  if (name.length > 256) fail('files[].name must not exceed 256 characters');
  if (name.includes('\0') || name.includes('\\')) fail('files[].name contains invalid path characters');
  if (name.startsWith('/')) fail('files[].name must be a relative path');
  const segments = name.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) fail('files[].name must not contain empty, current, or parent path segments');
  if (posix.normalize(name) !== name || name.endsWith('/')) fail('files[].name must be canonical and file-like');
  if (segments.length > 10) fail('files[].name exceeds maximum nesting depth of 10');
}

/**
 * @typedef {{ id: string, resource_id: string, storage_session_id: string, name: string, kind: string, version?: number }} RequestFile
 */

/**
 * `validateRequestedFiles`: rebuilds each ref from known fields only.
 * @param {unknown} files
 * @returns {RequestFile[]}
 */
function validateRequestedFiles(files) {
  if (files === undefined || files === null) return [];
  if (!Array.isArray(files)) throw new HttpFailure(400, { error: 'files must be an array' });
  return files.map((file, i) => {
    const fail = (/** @type {string} */ msg) => { throw new HttpFailure(400, { error: msg }); };
    if (typeof file !== 'object' || file === null || Array.isArray(file)) fail(`files[${i}] must be an object`);
    const { id, resource_id, storage_session_id, name, kind, version } = file;
    if (!isValidId(id)) fail(`files[${i}].id is invalid`);
    if (typeof resource_id !== 'string' || !RESOURCE_ID_RE.test(resource_id)) fail(`files[${i}].resource_id is invalid`);
    if (!isValidId(storage_session_id)) fail(`files[${i}].storage_session_id is invalid`);
    if (typeof name !== 'string') fail(`files[${i}].name must be a string`);
    validateName(name);
    if (typeof kind !== 'string' || !KINDS.includes(kind)) fail(`files[${i}].kind must be one of: ${KINDS.join(', ')}`);
    if (kind === 'skill') {
      if (typeof version !== 'number' || !Number.isFinite(version)) fail(`files[${i}].version is required for kind: 'skill'`);
    } else if (version !== undefined) {
      // JSON null lands here too: "absent" means absent.
      fail(`files[${i}].version is only valid for kind: 'skill'`);
    }
    /** @type {RequestFile} */
    const ref = { id, resource_id, storage_session_id, name, kind };
    if (version !== undefined) ref.version = version;
    return ref;
  });
}

/**
 * Drop exact duplicates, let the last user-kind ref per name win, and refuse
 * two different shared-kind inputs aimed at one destination.
 * @param {RequestFile[]} files
 * @returns {RequestFile[]}
 */
function resolveDestinations(files) {
  const seen = new Set();
  const unique = files.filter((f) => {
    const key = `${f.storage_session_id}\0${f.id}\0${f.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const lastUser = new Map();
  unique.forEach((f, i) => { if (f.kind === 'user') lastUser.set(f.name, i); });
  const kept = unique.filter((f, i) => f.kind !== 'user' || lastUser.get(f.name) === i);
  const byName = new Set();
  for (const f of kept) {
    if (byName.has(f.name)) throw new HttpFailure(400, { error: 'bad_request', message: `Conflicting input destinations: ${f.name}` });
    byName.add(f.name);
  }
  return kept;
}

/**
 * @param {object} ctx
 * @param {import('./store.mjs').ObjectStore} ctx.store
 * @param {string} ctx.execRoot
 * @param {string} ctx.scratchRoot
 * @param {Set<() => void>} ctx.active  kill switches of running jobs
 * @param {(msg: string) => void} ctx.log
 * @param {ReturnType<typeof import('./jwt.mjs').jwtVerifier>} [ctx.jwt]  codeapi's production auth, when asked for
 */
export function createCodeapi({ store, execRoot, scratchRoot, active, log, jwt }) {
  const headers = { 'x-codeapi-execution-profile': PROFILE };
  const send = (/** @type {import('node:http').ServerResponse} */ res, /** @type {number} */ status, /** @type {unknown} */ body) => sendJson(res, status, body, headers);

  /** @param {import('node:http').IncomingMessage} req @returns {Identity} */
  function authenticate(req) {
    const apiKey = req.headers['x-api-key'] ?? '';
    const bearer = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1]?.trim();
    if ([apiKey, bearer].filter(Boolean).length > 1) throw new HttpFailure(400, { error: 'Ambiguous authentication headers' });
    if (apiKey || !bearer) throw new HttpFailure(401, { error: 'Bearer token is required' });
    if (jwt) {
      try {
        const claims = jwt.check(bearer);
        return { userId: claims.sub, ns: typeof claims.tenant_id === 'string' && claims.tenant_id ? claims.tenant_id : NAMESPACE };
      } catch (e) {
        throw new HttpFailure(401, /** @type {any} */ (e).body ?? { error: 'Unauthorized' });
      }
    }
    return identityFromToken(bearer);
  }

  /**
   * @param {Identity} who
   * @param {Buffer} raw
   * @param {import('node:http').ServerResponse} res
   */
  async function exec(who, raw, res) {
    const parsed = parseJson(raw);
    if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
      throw new HttpFailure(400, { error: 'Invalid JSON body' });
    }
    const body = /** @type {Record<string, any>} */ (parsed.value);
    const { lang, code } = body;
    if (typeof lang !== 'string' || !CODEAPI_LANGS.has(lang) || !LANGUAGES[lang]) throw new HttpFailure(400, { error: `Unsupported language: ${lang}` });
    const hint = body.runtime_session_hint;
    if (hint !== undefined && hint !== null) {
      if (typeof hint !== 'string') throw new HttpFailure(400, { error: 'runtime_session_hint must be a string' });
      if (hint.length > 128) throw new HttpFailure(400, { error: 'runtime_session_hint must be at most 128 characters' });
      if (hint.length > 0 && !HINT_RE.test(hint)) throw new HttpFailure(400, { error: 'runtime_session_hint may only contain letters, digits, ".", "_", ":", and "-"' });
    }
    const files = validateRequestedFiles(body.files);
    // Authorization: the sessionKey derived from the ref must equal the owner
    // recorded for its storage session, and the object must exist under it.
    const records = files.map((f) => {
      const key = sessionKey(who, { kind: f.kind, id: f.resource_id, version: f.version });
      const record = store.get(f.storage_session_id, f.id);
      if (store.owner(f.storage_session_id) !== key || !record || record.uploadKey !== key) {
        log(`codeapi: unauthorized file reference ${f.storage_session_id}/${f.id} (${f.name}) for ${key}`);
        throw new HttpFailure(403, { error: 'Unauthorized file reference' });
      }
      return record;
    });
    let timeoutMs = DEFAULT_TIMEOUT_MS;
    if (body.timeout !== undefined && body.timeout !== null) {
      if (typeof body.timeout !== 'number' || !Number.isFinite(body.timeout) || body.timeout <= 0) throw new HttpFailure(400, { error: 'timeout must be a positive number of milliseconds' });
      timeoutMs = Math.min(MAX_TIMEOUT_MS, Math.max(MIN_TIMEOUT_MS, body.timeout));
    }
    if (typeof code !== 'string' || code.trim() === '') throw new HttpFailure(400, { error: 'bad_request', message: 'code must be a non-empty string' });
    const args = body.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new HttpFailure(400, { error: 'args must be an array of strings' });
    const byRef = new Map(files.map((f, i) => [f, records[i]]));
    const inputs = resolveDestinations(files);

    // The request's session_id (if any) is never read: one fresh id is both
    // the job id and the storage session of everything this run produces.
    const sessionId = newId();
    const outputKey = sessionKey(who, { kind: 'user', id: who.userId });
    store.setOwner(sessionId, outputKey);
    const dir = join(execRoot, sessionId);
    await mkdir(dir, { recursive: true });

    /** @type {Map<string, { sha256: string, ref: { id: string, storage_session_id: string } }>} */
    const mounted = new Map();
    try {
      for (const f of inputs) {
        const record = /** @type {import('./store.mjs').FileRecord} */ (byRef.get(f));
        await writeInto(dir, f.name, await store.read(record));
        mounted.set(f.name, { sha256: record.sha256, ref: { id: f.id, storage_session_id: f.storage_session_id } });
      }
    } catch (err) {
      throw new HttpFailure(503, { error: 'mount_failed', message: /** @type {Error} */ (err).message });
    }

    const run = await runCode({ lang, code, args, dir, scratchRoot, timeoutMs, active });
    if (run.spawnError) throw new HttpFailure(502, { error: 'sandbox_execution_failed', message: run.spawnError.message });

    const { unchanged, changed, created } = classify(await scanDir(dir), mounted);
    const out = [];
    for (const { file, input } of unchanged) out.push({ name: file.name, entry: { id: input.ref.id, name: file.name, storage_session_id: input.ref.storage_session_id, inherited: true } });
    for (const { file, input } of changed) {
      const rec = await store.put(sessionId, { name: file.name, fromPath: file.abs, sha256: file.sha256, uploadKey: outputKey });
      out.push({ name: file.name, entry: { id: rec.id, name: file.name, storage_session_id: sessionId, modified_from: { id: input.ref.id, storage_session_id: input.ref.storage_session_id } } });
    }
    for (const file of created) {
      const rec = await store.put(sessionId, { name: file.name, fromPath: file.abs, sha256: file.sha256, uploadKey: outputKey });
      out.push({ name: file.name, entry: { id: rec.id, name: file.name, storage_session_id: sessionId } });
    }
    out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

    // Piston-style status: null for a clean exit, a two-letter code otherwise.
    let status = null;
    let message = null;
    if (run.timedOut) { status = 'TO'; message = `Execution timed out after ${timeoutMs} ms`; }
    else if (run.stdoutTruncated) { status = 'OL'; message = 'stdout length exceeded'; }
    else if (run.stderrTruncated) { status = 'EL'; message = 'stderr length exceeded'; }
    else if (run.signal) { status = 'SG'; message = `Killed by signal ${run.signal}`; }
    else if (run.code !== 0) { status = 'RE'; }
    send(res, 200, {
      session_id: sessionId,
      stdout: run.stdout,
      stderr: run.stderr,
      files: out.map((o) => o.entry),
      code: run.code,
      signal: run.signal,
      message,
      status,
      wall_time: run.wallTimeMs,
    });
  }

  /**
   * POST /upload and /upload/batch. Identity fields are applied as they
   * appear, so fields placed after a file part do not apply to it.
   * @param {Identity} who
   * @param {import('node:http').IncomingMessage} req
   * @param {Buffer} raw
   * @param {import('node:http').ServerResponse} res
   * @param {boolean} batch
   */
  async function upload(who, req, raw, res, batch) {
    const contentType = String(req.headers['content-type'] ?? '');
    if (!contentType.includes('multipart/form-data')) throw new HttpFailure(400, { error: 'Invalid content type. Must be multipart/form-data.' });
    let entries;
    try {
      entries = await parseMultipart(raw, contentType);
    } catch {
      throw new HttpFailure(500, { error: 'Error processing upload' });
    }
    const storageSessionId = newId();
    /** @type {{ kind?: string, id?: string, version?: string }} */
    const fields = {};
    let readOnly = false;
    let filesLimitReached = false;
    const results = [];
    for (const entry of entries) {
      if (!('bytes' in entry)) {
        if (entry.name === 'kind' || entry.name === 'id' || entry.name === 'version') fields[entry.name] = entry.value;
        else if (entry.name === 'read_only') readOnly = entry.value.toLowerCase() === 'true';
        continue;
      }
      if (batch && results.length >= MAX_BATCH_FILES) { filesLimitReached = true; continue; }
      let key;
      try {
        key = sessionKey(who, parseIdentityFields(fields, who.userId));
      } catch (err) {
        if (!batch || !(err instanceof HttpFailure)) throw err;
        results.push({ status: 'error', filename: entry.filename, error: err.message });
        continue;
      }
      store.setOwner(storageSessionId, key);
      const rec = await store.put(storageSessionId, { name: entry.filename, bytes: entry.bytes, mime: entry.type, uploadKey: key, readOnly });
      results.push(batch ? { status: 'success', filename: entry.filename, fileId: rec.id } : { filename: entry.filename, fileId: rec.id });
    }
    if (!batch) {
      send(res, 200, { message: 'success', storage_session_id: storageSessionId, files: results });
      return;
    }
    if (results.length === 0) throw new HttpFailure(400, { error: 'No files provided' });
    const succeeded = results.filter((r) => r.status === 'success').length;
    const failed = results.length - succeeded;
    const message = failed === 0 ? 'success' : succeeded === 0 ? 'error' : 'partial_success';
    send(res, message === 'error' ? 400 : 200, {
      message,
      storage_session_id: storageSessionId,
      files: results,
      succeeded,
      failed,
      ...(filesLimitReached ? { filesLimitReached: true, maxFiles: MAX_BATCH_FILES } : {}),
    });
  }

  /**
   * `sessionAuth` for the read routes.
   * @param {Identity} who
   * @param {string|undefined} sid
   * @param {string|undefined} fid
   * @param {URLSearchParams} query
   */
  function authorizeRead(who, sid, fid, query) {
    if (!isValidId(sid) || (fid !== undefined && fid.length > 0 && !isValidId(fid))) throw new HttpFailure(400, { error: 'Bad request' });
    for (const name of ['kind', 'id', 'version']) {
      if (query.getAll(name).length > 1) throw new HttpFailure(400, { error: 'Bad request' });
    }
    const key = sessionKey(who, parseIdentityFields({ kind: query.get('kind'), id: query.get('id'), version: query.get('version') ?? undefined }, who.userId));
    if (store.owner(sid) !== key) throw new HttpFailure(403, { error: 'Unauthorized' });
    const record = fid ? store.get(sid, fid) : undefined;
    if (!record || record.uploadKey !== key) throw new HttpFailure(404, { error: 'File not found', details: 'The file may have expired or does not exist' });
    return record;
  }

  return {
    name: /** @type {const} */ ('codeapi'),
    headers,

    /**
     * @param {import('node:http').IncomingMessage} req
     * @param {import('node:http').ServerResponse} res
     * @param {{ segments: string[], query: URLSearchParams, body: Buffer }} route
     */
    async handle(req, res, { segments, query, body }) {
      try {
        const who = authenticate(req);
        const expected = req.headers['x-codeapi-expected-profile'];
        if (expected !== undefined && expected !== PROFILE) {
          throw new HttpFailure(409, { error: 'execution_profile_mismatch' });
        }
        const route = `${req.method} ${segments[0] ?? ''}`;
        if (route === 'POST exec' && segments.length === 1) return await exec(who, body, res);
        if (route === 'POST upload' && segments.length === 1) return await upload(who, req, body, res, false);
        if (route === 'POST upload' && segments[1] === 'batch' && segments.length === 2) return await upload(who, req, body, res, true);
        if (route === 'GET download' && segments.length === 3) {
          const record = authorizeRead(who, segments[1], segments[2], query);
          sendBytes(res, await store.read(record), { ...headers, 'content-type': record.mime });
          return;
        }
        if (route === 'DELETE files' && segments.length === 3) {
          const record = authorizeRead(who, segments[1], segments[2], query);
          store.remove(record);
          send(res, 200, { message: 'File deleted successfully' });
          return;
        }
        if (route === 'GET sessions' && segments[2] === 'objects' && segments.length === 4) {
          const record = authorizeRead(who, segments[1], segments[3], query);
          send(res, 200, { id: record.id, name: record.name, storage_session_id: record.sessionId, size: record.size, lastModified: record.lastModified.toISOString(), contentType: record.mime });
          return;
        }
        send(res, 404, { error: 'Not found' });
      } catch (err) {
        if (err instanceof HttpFailure) { send(res, err.status, err.body); return; }
        throw err;
      }
    },

    internalError() {
      return { error: 'Internal server error' };
    },
  };
}
