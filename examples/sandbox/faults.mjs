// Fault injection and wire statistics for tests. Faults are queued through
// /__control/faults and consumed by the next matching requests, so a test can
// say "the next exec on LCI answers 429" without touching server internals.
import { STATUS_CODES } from 'node:http';
import { newId } from './ids.mjs';
import { sendJson } from './http.mjs';

export const DIALECTS = /** @type {const} */ (['codeapi', 'librecodeinterpreter']);
const DIALECT_ALIASES = { codeapi: 'codeapi', librecodeinterpreter: 'librecodeinterpreter', lci: 'librecodeinterpreter' };
const FAULT_KINDS = new Set(['status', 'drop', 'slow', 'keepalive-error']);
const MAX_RECORDED = 100;

/**
 * @typedef {{ kind: 'status', status: number, body?: unknown, retryAfter?: number }
 *         | { kind: 'drop' }
 *         | { kind: 'slow', delayMs: number }
 *         | { kind: 'keepalive-error', afterMs?: number, message?: string }} Fault
 */

/**
 * @typedef {object} QueuedFault
 * @property {string} id
 * @property {'codeapi'|'librecodeinterpreter'|null} dialect  null = either
 * @property {string[]|null} path  leading route segments to match, null = any
 * @property {number} remaining
 * @property {number} skip  matching requests let through before the fault applies ("the second upload fails")
 * @property {Fault} fault
 */

/**
 * Validate a POST /__control/faults body.
 * @param {unknown} input
 * @param {'codeapi'|'librecodeinterpreter'|null} defaultDialect  the base it was posted under
 * @returns {{ ok: true, value: Omit<QueuedFault, 'id'> } | { ok: false, error: string }}
 */
export function parseFaultSpec(input, defaultDialect) {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, error: 'body must be a JSON object' };
  const spec = /** @type {Record<string, any>} */ (input);
  let dialect = defaultDialect;
  if (spec.dialect !== undefined && spec.dialect !== null) {
    dialect = DIALECT_ALIASES[/** @type {keyof typeof DIALECT_ALIASES} */ (spec.dialect)] ?? null;
    if (!dialect) return { ok: false, error: `dialect must be one of: ${DIALECTS.join(', ')}` };
  }
  let path = null;
  if (spec.path !== undefined && spec.path !== null) {
    if (typeof spec.path !== 'string' || !spec.path.replace(/^\/+|\/+$/g, '')) return { ok: false, error: 'path must be a non-empty string such as "exec" or "upload"' };
    path = spec.path.split('/').filter(Boolean);
  }
  const times = spec.times ?? 1;
  if (!Number.isInteger(times) || times < 1) return { ok: false, error: 'times must be a positive integer' };
  const skip = spec.skip ?? 0;
  if (!Number.isInteger(skip) || skip < 0) return { ok: false, error: 'skip must be a non-negative integer' };
  const fault = spec.fault;
  if (typeof fault !== 'object' || fault === null || !FAULT_KINDS.has(fault.kind)) {
    return { ok: false, error: `fault.kind must be one of: ${[...FAULT_KINDS].join(', ')}` };
  }
  if (fault.kind === 'status' && !(Number.isInteger(fault.status) && fault.status >= 200 && fault.status <= 599)) {
    return { ok: false, error: 'fault.status must be an integer HTTP status (200-599)' };
  }
  if (fault.kind === 'status' && fault.retryAfter !== undefined && !(Number.isFinite(fault.retryAfter) && fault.retryAfter >= 0)) {
    return { ok: false, error: 'fault.retryAfter must be a non-negative number of seconds' };
  }
  if (fault.kind === 'slow' && !(Number.isFinite(fault.delayMs) && fault.delayMs >= 0)) {
    return { ok: false, error: 'fault.delayMs must be a non-negative number' };
  }
  if (fault.kind === 'keepalive-error' && fault.afterMs !== undefined && !(Number.isFinite(fault.afterMs) && fault.afterMs >= 0)) {
    return { ok: false, error: 'fault.afterMs must be a non-negative number' };
  }
  return { ok: true, value: { dialect, path, remaining: times, skip, fault } };
}

export class FaultQueue {
  constructor() {
    /** @type {QueuedFault[]} */
    this.items = [];
  }

  /**
   * @param {Omit<QueuedFault, 'id'>} spec
   * @returns {QueuedFault}
   */
  add(spec) {
    const item = { id: newId(), ...spec };
    this.items.push(item);
    return item;
  }

  /**
   * Consume one use of the first fault matching this request.
   * @param {'codeapi'|'librecodeinterpreter'} dialect
   * @param {string[]} segments  route segments after the dialect base
   * @returns {Fault|null}
   */
  take(dialect, segments) {
    const index = this.items.findIndex((item) =>
      (item.dialect === null || item.dialect === dialect) &&
      (item.path === null || item.path.every((seg, i) => segments[i] === seg)));
    if (index < 0) return null;
    const item = this.items[index];
    if (item.skip > 0) {
      item.skip -= 1;
      return null;
    }
    item.remaining -= 1;
    if (item.remaining <= 0) this.items.splice(index, 1);
    return item.fault;
  }

  clear() {
    this.items = [];
  }
}

export class Stats {
  constructor() {
    this.reset();
  }

  reset() {
    this.requests = { codeapi: 0, librecodeinterpreter: 0 };
    this.exec = { codeapi: 0, librecodeinterpreter: 0 };
    /** @type {Array<{ dialect: string, at: string, headers: Record<string, unknown>, body: unknown }>} */
    this.execRequests = [];
    /** @type {string[]} every request's method and path as sent (`GET /codeapi/download/…`), last ones */
    this.paths = [];
  }

  /** @param {string} method @param {string} url the request line's target, unresolved */
  recordPath(method, url) {
    this.paths.push(`${method} ${url}`);
    if (this.paths.length > 10 * MAX_RECORDED) this.paths.splice(0, this.paths.length - 10 * MAX_RECORDED);
  }

  /** @param {'codeapi'|'librecodeinterpreter'} dialect */
  recordRequest(dialect) {
    this.requests[dialect] += 1;
  }

  /**
   * Keep what reached the wire, parsed when it is JSON, so tests can assert
   * on exactly what a client sent.
   * @param {'codeapi'|'librecodeinterpreter'} dialect
   * @param {import('node:http').IncomingHttpHeaders} headers
   * @param {Buffer} body
   */
  recordExec(dialect, headers, body) {
    this.exec[dialect] += 1;
    let parsed;
    try { parsed = JSON.parse(body.toString('utf8')); } catch { parsed = body.toString('utf8'); }
    this.execRequests.push({ dialect, at: new Date().toISOString(), headers: { ...headers }, body: parsed });
    if (this.execRequests.length > MAX_RECORDED) this.execRequests.splice(0, this.execRequests.length - MAX_RECORDED);
  }

  toJSON() {
    return { requests: this.requests, exec: this.exec, execRequests: this.execRequests, paths: this.paths };
  }
}

/**
 * The LCI error body (pydantic ErrorResponse.model_dump(): every key present).
 * @param {string} error
 * @param {string} errorType
 * @param {{ details?: unknown, requestId?: string|null }} [extra]
 */
export function lciErrorBody(error, errorType, extra = {}) {
  return {
    error,
    error_type: errorType,
    details: extra.details ?? null,
    request_id: extra.requestId === undefined ? newId() : extra.requestId,
    timestamp: Date.now() / 1000,
  };
}

const LCI_STATUS_DEFAULTS = {
  400: ['Validation failed', 'validation'],
  401: ['Invalid or missing API key', 'authentication'],
  403: ['Access denied', 'authorization'],
  404: ['Not Found', 'resource_not_found'],
  408: ['Code execution timed out after 30 seconds', 'timeout'],
  409: ['Resource conflict', 'resource_conflict'],
  413: ['File exceeds maximum size', 'resource_exhausted'],
  422: ['Request validation failed', 'validation'],
  429: ['Rate limit exceeded', 'rate_limited'],
  500: ['An unexpected error occurred', 'internal_server'],
  502: ['External service error', 'external_service'],
  503: ['Code Execution service is currently unavailable', 'service_unavailable'],
  504: ['Gateway Timeout', 'timeout'],
};

/**
 * A realistic body for an injected status, in the dialect's own error shape.
 * @param {'codeapi'|'librecodeinterpreter'} dialect
 * @param {number} status
 * @param {number} retryAfter
 * @param {string[]} segments
 * @returns {unknown}
 */
export function defaultFaultBody(dialect, status, retryAfter, segments) {
  if (dialect === 'librecodeinterpreter') {
    const [message, type] = LCI_STATUS_DEFAULTS[/** @type {keyof typeof LCI_STATUS_DEFAULTS} */ (status)] ?? [STATUS_CODES[status] ?? 'Error', 'internal_server'];
    return lciErrorBody(message, type);
  }
  switch (status) {
    case 400: return { error: 'bad_request', message: 'Injected bad request' };
    case 401: return { error: 'Bearer token is required' };
    // The read routes say "Unauthorized"; /exec says "Unauthorized file reference".
    case 403: return { error: segments[0] === 'exec' ? 'Unauthorized file reference' : 'Unauthorized' };
    case 404: return { error: 'File not found', details: 'The file may have expired or does not exist' };
    case 409: return { error: 'execution_profile_mismatch' };
    case 413: return { error: 'File size limit exceeded' };
    case 429: return { error: 'rate_limited', retry_after_seconds: retryAfter };
    case 500: return { error: 'Internal server error' };
    case 502: return { error: 'sandbox_execution_failed', message: 'Sandbox execution failed' };
    case 503: return { error: 'sandbox_setup_failed', message: 'Sandbox setup failed' };
    case 504: return { error: 'Upload timeout' };
    default: return { error: STATUS_CODES[status] ?? 'Error' };
  }
}

/**
 * Apply a fault to the current request.
 * @param {Fault} fault
 * @param {object} ctx
 * @param {import('node:http').IncomingMessage} ctx.req
 * @param {import('node:http').ServerResponse} ctx.res
 * @param {'codeapi'|'librecodeinterpreter'} ctx.dialect
 * @param {string[]} ctx.segments
 * @param {number} ctx.keepaliveMs
 * @param {Record<string, string>} ctx.headers  headers the dialect puts on every answer
 * @returns {Promise<boolean>}  true when the fault answered (or killed) the request
 */
export async function applyFault(fault, { req, res, dialect, segments, keepaliveMs, headers }) {
  switch (fault.kind) {
    case 'drop':
      req.socket.destroy();
      return true;
    case 'slow':
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      return false;
    case 'status': {
      const retryAfter = fault.retryAfter ?? 1;
      const extra = { ...headers };
      if (fault.status === 429 || fault.status === 503 || fault.retryAfter !== undefined) extra['retry-after'] = String(Math.ceil(retryAfter));
      const body = fault.body !== undefined ? fault.body : defaultFaultBody(dialect, fault.status, retryAfter, segments);
      sendJson(res, fault.status, body, extra);
      return true;
    }
    case 'keepalive-error': {
      // The LCI streaming quirk: 200 and whitespace first, the error last.
      const afterMs = fault.afterMs ?? keepaliveMs * 2;
      res.writeHead(200, { ...headers, 'content-type': 'application/json' });
      res.write(' ');
      const interval = setInterval(() => { if (!res.destroyed) res.write(' '); }, Math.max(1, Math.min(keepaliveMs, afterMs)));
      await new Promise((resolve) => setTimeout(resolve, afterMs));
      clearInterval(interval);
      if (!res.destroyed) res.end(JSON.stringify(lciErrorBody(fault.message ?? 'Injected execution failure', 'execution', { requestId: null })));
      return true;
    }
    default:
      return false;
  }
}

/**
 * Serve /__control/*. Only loopback peers may use it.
 * @param {object} ctx
 * @param {import('node:http').IncomingMessage} ctx.req
 * @param {import('node:http').ServerResponse} ctx.res
 * @param {string[]} ctx.segments  route segments after "__control"
 * @param {Buffer} ctx.body
 * @param {'codeapi'|'librecodeinterpreter'|null} ctx.dialect  base the control path was used under
 * @param {FaultQueue} ctx.faults
 * @param {Stats} ctx.stats
 */
export function handleControl({ req, res, segments, body, dialect, faults, stats, store }) {
  const peer = req.socket.remoteAddress ?? '';
  if (!['127.0.0.1', '::ffff:127.0.0.1', '::1'].includes(peer)) {
    sendJson(res, 403, { error: 'control API is only available from 127.0.0.1' });
    return;
  }
  const route = `${req.method} ${segments.join('/')}`;
  if (route === 'POST faults') {
    let input;
    try { input = JSON.parse(body.toString('utf8')); } catch { sendJson(res, 400, { error: 'body must be JSON' }); return; }
    const parsed = parseFaultSpec(input, dialect);
    if (!parsed.ok) { sendJson(res, 400, { error: parsed.error }); return; }
    const queued = faults.add(parsed.value);
    sendJson(res, 200, { queued, pending: faults.items.length });
  } else if (route === 'GET faults') {
    sendJson(res, 200, { faults: faults.items });
  } else if (route === 'POST reset') {
    faults.clear();
    stats.reset();
    sendJson(res, 200, { ok: true });
  } else if (route === 'POST expire') {
    // `{ storage_session_id? }`: that storage session's files expire now (every session's without one).
    let input = {};
    try { input = body.length ? JSON.parse(body.toString('utf8')) : {}; } catch { sendJson(res, 400, { error: 'body must be JSON' }); return; }
    sendJson(res, 200, { expired: store.expire(input.storage_session_id) });
  } else if (route === 'GET stats') {
    sendJson(res, 200, stats.toJSON());
  } else {
    sendJson(res, 404, { error: 'unknown control route; use POST faults, GET faults, POST reset, POST expire, GET stats' });
  }
}
