// Plain-data comparison for check-sdk: deep equality (object key order ignored, array order significant,
// keys whose value is undefined count as absent), the paths at which two answers differ, and compact
// printing with sorted keys.

/** @param {unknown} v @returns {v is Record<string, unknown>} */
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A JSON round trip: plain data, undefined keys dropped. @param {unknown} v */
export const plain = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/** @param {unknown} a @param {unknown} b @returns {boolean} */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => b[k] !== undefined && deepEqual(a[k], b[k]));
  }
  return Number.isNaN(a) && Number.isNaN(b);
}

/** Compact JSON with sorted keys. @param {unknown} v @returns {string} */
export function show(v) {
  if (v === undefined) return '<absent>';
  /** @param {unknown} x @returns {unknown} */
  const sort = (x) => {
    if (Array.isArray(x)) return x.map(sort);
    if (isObj(x)) return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort(x[k])]));
    return x;
  };
  return JSON.stringify(sort(v));
}

/**
 * The paths at which `b` differs from `a`, each as `{ path, a, b }`.
 * @param {unknown} a @param {unknown} b
 * @returns {Array<{ path: string, a: unknown, b: unknown }>}
 */
export function diff(a, b, at = '$', out = /** @type {Array<{ path: string, a: unknown, b: unknown }>} */ ([])) {
  if (deepEqual(a, b)) return out;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diff(a[i], b[i], `${at}[${i}]`, out);
    return out;
  }
  if (isObj(a) && isObj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) diff(a[k], b[k], `${at}.${k}`, out);
    return out;
  }
  out.push({ path: at, a, b });
  return out;
}

/**
 * The `exec_wire` view of an answer: only what a vector's `expect` lists (body keys it includes or
 * excludes, the route, the headers it names, the artifact), so that two answers compare on the same
 * keys. With no `expect`, the whole answer.
 * @param {any} expect @param {any} answer
 */
export function wireView(expect, answer) {
  if (answer == null || expect == null) return answer;
  const body = answer.body ?? {};
  /** @type {Record<string, unknown>} */
  const out = {};
  const includes = {};
  for (const k of Object.keys(expect.includes ?? {})) includes[k] = body[k];
  out.includes = includes;
  if (expect.excludes) out.excludes = expect.excludes.filter((/** @type {string} */ k) => !(k in body));
  if ('endpoint' in expect) out.endpoint = answer.endpoint;
  if (expect.headers) {
    const h = {};
    for (const k of Object.keys(expect.headers)) h[k] = answer.headers?.[k.toLowerCase()] ?? null;
    out.headers = h;
  }
  if ('artifact' in expect) out.artifact = answer.artifact ?? null;
  return plain(out);
}

/** A vector's `exec_wire` expectation in the shape `wireView` gives an answer that meets it. @param {any} expect */
export function wireExpect(expect) {
  /** @type {Record<string, unknown>} */
  const out = { includes: expect.includes ?? {} };
  if (expect.excludes) out.excludes = expect.excludes;
  if ('endpoint' in expect) out.endpoint = expect.endpoint;
  if (expect.headers) out.headers = expect.headers;
  if ('artifact' in expect) out.artifact = expect.artifact;
  return plain(out);
}
