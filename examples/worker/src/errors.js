// Every answer the worker refuses with has one shape, `{ error: { code, message } }`, so that a host can
// branch on `code` (stable) and show `message` (for people). Nothing here echoes a caller's credential.

/**
 * A refusal that already knows its HTTP answer; thrown by the steps of a request and turned into a
 * response once, where the request is handled.
 */
export class Refusal extends Error {
  /**
   * @param {number} status
   * @param {string} code      stable, documented in examples/worker/README.md
   * @param {string} message
   * @param {Record<string, string>} [headers]
   */
  constructor(status, code, message, headers = {}) {
    super(message);
    this.name = 'Refusal';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * A JSON error answer.
 * @param {number} status
 * @param {string} code
 * @param {string} message
 * @param {Record<string, string>} [headers]
 */
export function problem(status, code, message, headers = {}) {
  return Response.json({ error: { code, message } }, { status, headers });
}

/** The answer for a `Refusal`. @param {Refusal} r */
export const refused = (r) => problem(r.status, r.code, r.message, r.headers);
