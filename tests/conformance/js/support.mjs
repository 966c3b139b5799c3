// Comparison and printing for the wasm half of the conformance runner: deep equality with object key
// order ignored and array order significant, the differing paths, compact JSON with sorted keys.

/** The `now` every writing op runs with; entries stamped with it are the ones the op wrote. */
export const NOW = 8.64e15;

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

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

/** @param {unknown} v @returns {string} */
export function show(v) {
  if (v === undefined) return 'undefined';
  const sort = (x) => {
    if (Array.isArray(x)) return x.map(sort);
    if (isObj(x)) return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort(x[k])]));
    return x;
  };
  return JSON.stringify(sort(v));
}

/** @returns {string[]} the paths at which `actual` differs from `expected` */
export function diff(expected, actual, at = '$', out = []) {
  if (deepEqual(expected, actual)) return out;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) diff(expected[i], actual[i], `${at}[${i}]`, out);
    return out;
  }
  if (isObj(expected) && isObj(actual)) {
    for (const k of [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort()) {
      if (actual[k] === undefined) out.push(`${at}.${k}: expected ${show(expected[k])}, actual <absent>`);
      else if (expected[k] === undefined) out.push(`${at}.${k}: expected <absent>, actual ${show(actual[k])}`);
      else diff(expected[k], actual[k], `${at}.${k}`, out);
    }
    return out;
  }
  out.push(`${at}: expected ${show(expected)}, actual ${show(actual)}`);
  return out;
}

/** `[[key, entry], …]` with `lastUpdated` dropped from the entries stamped with `NOW`. */
export function stripWritten(pairs) {
  if (pairs == null) return pairs;
  return pairs.map(([k, entry]) => {
    if (entry.lastUpdated !== NOW) return [k, entry];
    const { lastUpdated: _written, ...rest } = entry;
    return [k, rest];
  });
}

/** A JSON round trip: plain data, `undefined` keys dropped. */
export const plain = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
