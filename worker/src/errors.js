// Every answer the worker refuses with has one shape, `{ error: { code, message, requestId } }`, so that a
// host can branch on `code` (stable), show `message` (for people) and quote `requestId` (the same id is in
// the `x-request-id` header and in the worker's log line). Nothing here echoes a caller's credential, a
// setting's value or an exception's own text: what went wrong inside is logged under the request id, and
// the answer says only which code it was.

/** The response header (and the `error.requestId` field) that names the request in the worker's log. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** A refusal's code as a header too, so that the request's log line can say how it ended without reading the body. */
export const ERROR_CODE_HEADER = 'x-error-code';

/**
 * A refusal that already knows its HTTP answer; thrown by the steps of a request and turned into a
 * response once, where the request is handled. `detail` is for the log only, never for the answer.
 */
export class Refusal extends Error {
  /**
   * @param {number} status
   * @param {string} code      stable, documented in worker/README.md
   * @param {string} message   what the caller reads
   * @param {Record<string, string>} [headers]
   * @param {{ detail?: string }} [more]  `detail`: logged with the request id, never answered
   */
  constructor(status, code, message, headers = {}, more = {}) {
    super(message);
    this.name = 'Refusal';
    this.status = status;
    this.code = code;
    this.headers = headers;
    this.detail = more.detail;
  }
}

/**
 * A JSON error answer.
 * @param {number} status
 * @param {string} code
 * @param {string} message
 * @param {{ headers?: Record<string, string>, requestId?: string }} [o]
 */
export function problem(status, code, message, { headers = {}, requestId } = {}) {
  // The contract's Error shape (src/contract.js): these three fields, nothing else.
  const error = { code, message, ...(requestId ? { requestId } : {}) };
  return Response.json({ error }, { status, headers: { ...headers, [ERROR_CODE_HEADER]: code, ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}) } });
}

/**
 * One line of the worker's log (Workers Logs, `wrangler tail`): JSON, never a token, credential or file byte.
 * @param {'error' | 'warn' | 'info'} level
 * @param {Record<string, unknown>} fields
 */
export function logLine(level, fields) {
  const line = JSON.stringify({ level, ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
}

/**
 * The answer for a `Refusal`; its `detail`, when it has one, goes to the log under the request id.
 * @param {Refusal} r
 * @param {string} [requestId]
 */
export function refused(r, requestId) {
  if (r.detail !== undefined) logLine(r.status >= 500 ? 'error' : 'warn', { requestId, code: r.code, detail: r.detail });
  return problem(r.status, r.code, r.message, { headers: r.headers, requestId });
}

/**
 * The answer for anything a step threw: a `Refusal` as it says; anything else is a 500 `internal` whose
 * cause is logged with the request id and never answered (an exception's text can hold a URL with its
 * password, a key's description, a path).
 * @param {unknown} e
 * @param {string} [requestId]
 */
export function answerFor(e, requestId) {
  if (e instanceof Refusal) return refused(e, requestId);
  logLine('error', { requestId, code: 'internal', detail: String(/** @type {any} */ (e)?.stack ?? e) });
  return problem(500, 'internal', 'the worker failed; its log says why under this request id', { requestId });
}
