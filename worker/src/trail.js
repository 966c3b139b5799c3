// What one request did at the sandbox, for its log line (src/index.js): each request to the sandbox with
// its kind, status and time, never a URL, a header or a byte of a body. Bounded: a request that checks a
// thousand files logs the first TRAIL_MAX requests and the count of the rest.

/** Sandbox requests logged one by one per worker request; the rest are counted. */
export const TRAIL_MAX = 64;
/** The header that carries a conversation's trail to the worker's fetch, which logs it and strips it. */
export const TRAIL_HEADER = 'x-code-session-gate-trail';

/** One request's sandbox requests. */
export class Trail {
  constructor() {
    /** @type {{ op: string, status: number | string, ms: number }[]} */
    this.sandbox = [];
    this.more = 0;
    /** Tool calls in the request, when it has any. */
    this.calls = undefined;
  }

  /**
   * Notes one sandbox request: `status` the HTTP status, or what happened instead (`timeout`, `unreachable`).
   * @param {string} op @param {number | string} status @param {number} startedMs
   */
  note(op, status, startedMs) {
    if (this.sandbox.length < TRAIL_MAX) this.sandbox.push({ op, status, ms: Date.now() - startedMs });
    else this.more += 1;
  }

  /** The header value (JSON). */
  toHeader() {
    return JSON.stringify({ ...(this.calls !== undefined ? { calls: this.calls } : {}), sandbox: this.sandbox, ...(this.more > 0 ? { more: this.more } : {}) });
  }
}

/**
 * `fetch` to the sandbox, noted in `trail` (when there is one) as `op`.
 * @param {Trail | undefined} trail
 * @param {string} op
 * @param {string | URL} url
 * @param {RequestInit} init
 */
export async function tracedFetch(trail, op, url, init) {
  const started = Date.now();
  try {
    const res = await fetch(url, init);
    trail?.note(op, res.status, started);
    return res;
  } catch (e) {
    const name = /** @type {any} */ (e)?.name;
    trail?.note(op, name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable', started);
    throw e;
  }
}
