// Dialect "librecodeinterpreter": usnavy13/LibreCodeInterpreter. Sessions are
// long-lived: a request session_id continues a session whose files persist,
// file refs are best-effort (missing ones are skipped), identity fields on
// refs are ignored, and slow runs stream keep-alive whitespace before the JSON.
import { mkdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { newId } from './ids.mjs';
import { parseJson, parseMultipart, sendJson, sendBytes } from './http.mjs';
import { LANGUAGES, runCode, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, OUTPUT_CAP } from './runner.mjs';
import { writeInto, scanDir, classify, insideDir } from './workspace.mjs';
import { sha256 } from './store.mjs';
import { lciErrorBody } from './faults.mjs';

const LCI_LANGS = new Set(['py', 'js', 'ts', 'go', 'java', 'c', 'cpp', 'php', 'rs', 'r', 'f90', 'd', 'bash']);
const ENTITY_ID_RE = /^[A-Za-z0-9_-]+$/;
const MAX_OUTPUT_FILES = 10;

/** An error that already knows its status and LCI error fields. */
class LciFailure extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {string} errorType
   * @param {unknown} [details]
   */
  constructor(status, message, errorType, details = null) {
    super(message);
    this.status = status;
    this.errorType = errorType;
    this.details = details;
  }
}

/**
 * @param {string} field
 * @param {string} message
 * @param {string} code
 */
function invalid(field, message, code) {
  return new LciFailure(422, 'Request validation failed', 'validation', [{ field, message, code }]);
}

/**
 * @typedef {object} CurrentFile  a file the session will auto-mount
 * @property {string} id
 * @property {string} sessionId   where its bytes live (another session for linked inputs)
 * @property {string} sha256
 */

/**
 * @typedef {object} LciSession
 * @property {string} id
 * @property {string|null} userId
 * @property {string|null} entityId
 * @property {number} createdAt
 * @property {string} dir
 * @property {Map<string, CurrentFile>} current  by name
 * @property {Promise<unknown>} queue            runs in one session never overlap
 */

/**
 * pydantic's FileRef.model_dump(): every Optional key present, unset ones null.
 * @param {{ id: string, name: string, sessionId: string, inherited?: boolean, modifiedFrom?: { id: string, storage_session_id: string } }} f
 */
function fileRef(f) {
  return {
    id: f.id,
    name: f.name,
    path: `/mnt/data/${f.name}`,
    session_id: f.sessionId,
    storage_session_id: f.sessionId,
    inherited: f.inherited ?? null,
    entity_id: null,
    resource_id: null,
    kind: null,
    version: null,
    modified_from: f.modifiedFrom ?? null,
  };
}

/**
 * Upload names are reduced to a safe base name, as LCI's sanitize_filename does.
 * @param {string} filename
 */
function sanitizeFilename(filename) {
  const base = posix.basename(String(filename).replaceAll('\\', '/'));
  const clean = base.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return clean || 'file';
}

/**
 * pydantic validation of ExecRequest, reduced to the fields that matter.
 * @param {unknown} value
 */
function validateExecRequest(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('body', 'Input should be a valid dictionary', 'dict_type');
  const body = /** @type {Record<string, any>} */ (value);
  for (const field of ['code', 'lang']) {
    if (body[field] === undefined) throw invalid(`body -> ${field}`, 'Field required', 'missing');
    if (typeof body[field] !== 'string') throw invalid(`body -> ${field}`, 'Input should be a valid string', 'string_type');
  }
  for (const field of ['user_id', 'session_id', 'entity_id']) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string') throw invalid(`body -> ${field}`, 'Input should be a valid string', 'string_type');
  }
  if (typeof body.entity_id === 'string' && (body.entity_id.length > 40 || !ENTITY_ID_RE.test(body.entity_id))) {
    throw invalid('body -> entity_id', "String should match pattern '^[A-Za-z0-9_-]+$' and have at most 40 characters", 'string_pattern_mismatch');
  }
  if (body.timeout !== undefined && body.timeout !== null) {
    if (!Number.isInteger(body.timeout)) throw invalid('body -> timeout', 'Input should be a valid integer', 'int_type');
    if (body.timeout < 1000 || body.timeout > 300000) throw invalid('body -> timeout', 'Input should be between 1000 and 300000', 'int_range');
  }
  const files = body.files ?? [];
  if (!Array.isArray(files)) throw invalid('body -> files', 'Input should be a valid list', 'list_type');
  files.forEach((f, i) => {
    const at = `body -> files -> ${i}`;
    if (typeof f !== 'object' || f === null || Array.isArray(f)) throw invalid(at, 'Input should be a valid dictionary', 'dict_type');
    for (const field of ['id', 'name']) {
      if (typeof f[field] !== 'string') throw invalid(`${at} -> ${field}`, f[field] === undefined ? 'Field required' : 'Input should be a valid string', f[field] === undefined ? 'missing' : 'string_type');
    }
    const sid = f.session_id ?? f.storage_session_id;
    if (typeof sid !== 'string') throw invalid(`${at} -> session_id`, 'Field required', 'missing');
  });
  return { ...body, files };
}

/**
 * @param {object} ctx
 * @param {import('./store.mjs').ObjectStore} ctx.store
 * @param {string} ctx.execRoot
 * @param {string} ctx.scratchRoot
 * @param {Set<() => void>} ctx.active  kill switches of running jobs
 * @param {string} ctx.apiKey
 * @param {number} ctx.keepaliveMs
 * @param {(msg: string) => void} ctx.log
 */
export function createLci({ store, execRoot, scratchRoot, active, apiKey, keepaliveMs, log }) {
  /** @type {Map<string, LciSession>} */
  const sessions = new Map();

  /** @param {{ userId?: string|null, entityId?: string|null }} meta */
  async function createSession(meta) {
    const id = newId();
    const dir = join(execRoot, id);
    await mkdir(dir, { recursive: true });
    /** @type {LciSession} */
    const session = { id, userId: meta.userId ?? null, entityId: meta.entityId ?? null, createdAt: Date.now(), dir, current: new Map(), queue: Promise.resolve() };
    sessions.set(id, session);
    return session;
  }

  /** @param {import('node:http').IncomingMessage} req */
  function authenticated(req) {
    const header = req.headers['x-api-key'];
    if (typeof header === 'string') return header === apiKey;
    const basic = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!basic) return false;
    const decoded = Buffer.from(basic.trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? decoded : decoded.slice(0, colon);
    const pass = colon < 0 ? '' : decoded.slice(colon + 1);
    return user === apiKey || pass === apiKey;
  }

  /**
   * Session selection, in the server's order of preference.
   * @param {Record<string, any>} body
   */
  async function selectSession(body) {
    const requested = body.session_id ? sessions.get(body.session_id) : undefined;
    if (requested) return requested;
    const userId = body.user_id ?? null;
    for (const ref of body.files) {
      const owner = sessions.get(ref.session_id ?? ref.storage_session_id);
      // Only the same user may continue a session found through a file ref,
      // so agent uploads are not shared across users.
      if (owner && owner.userId === userId) return owner;
    }
    if (body.entity_id) {
      let latest;
      for (const s of sessions.values()) if (s.entityId === body.entity_id && (!latest || s.createdAt >= latest.createdAt)) latest = s;
      if (latest) return latest;
    }
    return createSession({ userId, entityId: body.entity_id ?? null });
  }

  /**
   * Mount, run, collect. Throws LciFailure for answers other than 200.
   * @param {Record<string, any>} body
   * @param {LciSession} session
   */
  async function execute(body, session) {
    /** @type {Map<string, { sha256: string, ref: { id: string, sessionId: string } }>} */
    const mounted = new Map();
    // Everything the session already holds is mounted again (and restored if
    // a previous run deleted it), which is what makes LCI sessions feel stateful.
    for (const [name, cur] of session.current) {
      const abs = insideDir(session.dir, name);
      const onDisk = await readFile(abs).catch(() => null);
      if (!onDisk || sha256(onDisk) !== cur.sha256) {
        const record = store.get(cur.sessionId, cur.id);
        if (!record) continue;
        try {
          await writeInto(session.dir, name, await store.read(record));
        } catch (err) {
          log(`lci: could not restore ${name}: ${/** @type {Error} */ (err).message}`);
          continue;
        }
      }
      mounted.set(name, { sha256: cur.sha256, ref: { id: cur.id, sessionId: cur.sessionId } });
    }
    // Explicit refs win over what the session holds under the same name.
    const seen = new Set();
    for (const ref of body.files) {
      const sid = ref.session_id ?? ref.storage_session_id;
      const owner = sessions.get(sid);
      let record = owner ? store.get(sid, ref.id) : undefined;
      if (!record && owner) {
        const byName = owner.current.get(ref.name);
        record = byName ? store.get(byName.sessionId, byName.id) : store.list(sid).filter((r) => r.name === ref.name).at(-1);
      }
      if (!record) {
        log(`lci: file not found, skipped: ${sid}/${ref.id} (${ref.name})`);
        continue;
      }
      const key = `${record.sessionId}\0${record.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      try {
        await writeInto(session.dir, record.name, await store.read(record));
      } catch (err) {
        log(`lci: could not mount ${record.name}: ${/** @type {Error} */ (err).message}`);
        continue;
      }
      mounted.set(record.name, { sha256: record.sha256, ref: { id: record.id, sessionId: record.sessionId } });
      // Linked into the session: later runs auto-mount it too.
      session.current.set(record.name, { id: record.id, sessionId: record.sessionId, sha256: record.sha256 });
    }

    const timeoutMs = Math.min(MAX_TIMEOUT_MS, body.timeout ?? DEFAULT_TIMEOUT_MS);
    const args = Array.isArray(body.args) ? body.args.filter((a) => typeof a === 'string') : typeof body.args === 'string' ? [body.args] : [];
    const run = await runCode({ lang: body.lang, code: body.code, args, dir: session.dir, scratchRoot, timeoutMs, active });
    if (run.spawnError) throw new LciFailure(503, `Unexpected error during code execution: ${run.spawnError.message}`, 'service_unavailable');
    if (run.timedOut) throw new LciFailure(408, `Code execution timed out after ${Math.round(timeoutMs / 1000)} seconds`, 'timeout');

    const { unchanged, changed, created } = classify(await scanDir(session.dir), mounted);
    const files = [];
    for (const { file, input } of unchanged) files.push({ name: file.name, ref: fileRef({ id: input.ref.id, name: file.name, sessionId: input.ref.sessionId, inherited: true }) });
    let budget = MAX_OUTPUT_FILES;
    const fresh = [...changed.map((c) => ({ file: c.file, input: c.input })), ...created.map((file) => ({ file, input: null }))]
      .sort((a, b) => (a.file.name < b.file.name ? -1 : a.file.name > b.file.name ? 1 : 0));
    for (const { file, input } of fresh) {
      if (budget === 0) { log(`lci: output file limit (${MAX_OUTPUT_FILES}) reached, not collected: ${file.name}`); continue; }
      budget -= 1;
      const rec = await store.put(session.id, { name: file.name, fromPath: file.abs, sha256: file.sha256 });
      session.current.set(file.name, { id: rec.id, sessionId: session.id, sha256: rec.sha256 });
      files.push({
        name: file.name,
        ref: fileRef({ id: rec.id, name: file.name, sessionId: session.id, modifiedFrom: input ? { id: input.ref.id, storage_session_id: input.ref.sessionId } : undefined }),
      });
    }
    files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const mark = (/** @type {string} */ text, /** @type {boolean} */ cut) => (cut ? `${text}\n[output truncated at ${OUTPUT_CAP} bytes]` : text);
    return { session_id: session.id, files: files.map((f) => f.ref), stdout: mark(run.stdout, run.stdoutTruncated), stderr: mark(run.stderr, run.stderrTruncated) };
  }

  /**
   * Answer with the result, or — once the run outlives keepaliveMs — commit
   * to 200, send a space every keepaliveMs, then the JSON (or an error JSON).
   * @param {import('node:http').ServerResponse} res
   * @param {() => Promise<unknown>} task
   */
  async function withKeepalive(res, task) {
    let streaming = false;
    /** @type {NodeJS.Timeout|undefined} */
    let timer;
    const tick = () => {
      if (res.destroyed) return;
      if (!streaming) { streaming = true; res.writeHead(200, { 'content-type': 'application/json' }); }
      res.write(' ');
      timer = setTimeout(tick, keepaliveMs);
    };
    timer = setTimeout(tick, keepaliveMs);
    try {
      const result = await task();
      clearTimeout(timer);
      if (streaming) { if (!res.destroyed) res.end(JSON.stringify(result)); } else sendJson(res, 200, result);
    } catch (err) {
      clearTimeout(timer);
      const failure = err instanceof LciFailure ? err : null;
      if (!failure) log(`lci: exec failed: ${/** @type {Error} */ (err).stack ?? err}`);
      if (streaming) {
        if (!res.destroyed) res.end(JSON.stringify(lciErrorBody(/** @type {Error} */ (err).message, 'execution', { requestId: null })));
      } else if (failure) {
        sendJson(res, failure.status, lciErrorBody(failure.message, failure.errorType, { details: failure.details }));
      } else {
        sendJson(res, 500, lciErrorBody('An unexpected error occurred', 'internal_server'));
      }
    }
  }

  /**
   * @param {Buffer} raw
   * @param {import('node:http').ServerResponse} res
   */
  async function exec(raw, res) {
    const parsed = parseJson(raw);
    if (!parsed.ok) throw invalid('body', 'JSON decode error', 'json_invalid');
    const body = validateExecRequest(parsed.value);
    if (!LCI_LANGS.has(body.lang) || !LANGUAGES[body.lang]) {
      throw new LciFailure(400, `Unsupported programming language: ${body.lang}`, 'validation', [{ field: 'lang', message: `Language '${body.lang}' is not supported`, code: 'unsupported_language' }]);
    }
    if (!body.code.trim()) {
      throw new LciFailure(400, 'Code cannot be empty', 'validation', [{ field: 'code', message: 'Code field is required and cannot be empty', code: 'empty_code' }]);
    }
    await withKeepalive(res, async () => {
      const session = await selectSession(body);
      const run = session.queue.then(() => execute(body, session));
      session.queue = run.catch(() => {});
      return run;
    });
  }

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {Buffer} raw
   * @param {import('node:http').ServerResponse} res
   * @param {boolean} batch
   */
  async function upload(req, raw, res, batch) {
    const contentType = String(req.headers['content-type'] ?? '');
    let entries = [];
    if (contentType.includes('multipart/form-data')) {
      try { entries = await parseMultipart(raw, contentType); } catch { entries = []; }
    }
    const uploads = entries.filter((e) => 'bytes' in e && (e.name === 'file' || e.name === 'files'));
    if (uploads.length === 0) throw invalid('body -> files', 'Field required', 'missing');
    const field = (/** @type {string} */ name) => entries.find((e) => !('bytes' in e) && e.name === name);
    const entityField = field('entity_id');
    const session = await createSession({ entityId: entityField && 'value' in entityField ? entityField.value : null });
    const files = [];
    for (const entry of uploads) {
      if (!('bytes' in entry)) continue;
      const name = sanitizeFilename(entry.filename);
      const rec = await store.put(session.id, { name, bytes: entry.bytes, mime: entry.type });
      session.current.set(name, { id: rec.id, sessionId: session.id, sha256: rec.sha256 });
      files.push(batch ? { status: 'success', filename: name, fileId: rec.id } : { filename: name, fileId: rec.id });
    }
    const answer = { message: 'success', session_id: session.id, storage_session_id: session.id, files };
    sendJson(res, 200, batch ? { ...answer, succeeded: files.length, failed: 0 } : answer);
  }

  /**
   * @param {string} sid
   * @param {URLSearchParams} query
   */
  function listFiles(sid, query) {
    const session = sessions.get(sid);
    if (!session) return [];
    const records = [...session.current.entries()]
      .filter(([, cur]) => cur.sessionId === sid)
      .map(([, cur]) => store.get(cur.sessionId, cur.id))
      .filter((r) => r !== undefined);
    const detail = query.get('detail');
    if (detail === 'summary') return records.map((r) => ({ name: `${sid}/${r.id}`, lastModified: r.lastModified.toISOString() }));
    if (detail === 'simple') return records.map((r) => ({ id: r.id, name: r.name, path: `/mnt/data/${r.name}` }));
    return records.map((r) => ({
      name: r.name, id: r.id, session_id: sid, content: null, size: r.size, lastModified: r.lastModified.toISOString(),
      etag: `"${r.id}"`, metadata: { 'content-type': r.mime, 'original-filename': r.name }, contentType: r.mime,
    }));
  }

  /** @param {string} sid @param {string} fid */
  function findRecord(sid, fid) {
    const record = sessions.has(sid) ? store.get(sid, fid) : undefined;
    if (!record) throw new LciFailure(404, 'File not found', 'resource_not_found');
    return record;
  }

  return {
    name: /** @type {const} */ ('librecodeinterpreter'),
    headers: {},
    sessions,

    /**
     * @param {import('node:http').IncomingMessage} req
     * @param {import('node:http').ServerResponse} res
     * @param {{ segments: string[], query: URLSearchParams, body: Buffer }} route
     */
    async handle(req, res, { segments, query, body }) {
      try {
        if (!authenticated(req)) {
          sendJson(res, 401, { error: 'Invalid or missing API key', error_type: 'authentication', timestamp: Date.now() / 1000 });
          return;
        }
        const route = `${req.method} ${segments[0] ?? ''}`;
        if (route === 'POST exec' && segments.length === 1) return await exec(body, res);
        if (route === 'POST upload' && segments.length === 1) return await upload(req, body, res, false);
        if (route === 'POST upload' && segments[1] === 'batch' && segments.length === 2) return await upload(req, body, res, true);
        if (route === 'GET files' && segments.length === 2) { sendJson(res, 200, listFiles(segments[1], query)); return; }
        if (route === 'GET download' && segments.length === 3) {
          const record = findRecord(segments[1], segments[2]);
          sendBytes(res, await store.read(record), {
            'content-type': record.mime,
            'content-disposition': `attachment; filename="${posix.basename(record.name).replace(/[^A-Za-z0-9._-]/g, '_')}"`,
          });
          return;
        }
        if (route === 'GET sessions' && segments[2] === 'objects' && segments.length === 4) {
          const record = findRecord(segments[1], segments[3]);
          sendJson(res, 200, { lastModified: record.lastModified.toISOString() });
          return;
        }
        sendJson(res, 404, lciErrorBody('Not Found', 'resource_not_found'));
      } catch (err) {
        if (err instanceof LciFailure) { sendJson(res, err.status, lciErrorBody(err.message, err.errorType, { details: err.details })); return; }
        throw err;
      }
    },

    internalError() {
      return lciErrorBody('An unexpected error occurred', 'internal_server');
    },
  };
}
