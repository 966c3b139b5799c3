// The page's state in its URL: `#state=<base64url of the state's JSON>`, so that a link restores the
// same trace, view and playground input. Also the JSON files the page imports and exports.

/** The URL fragment key of the shared state. */
export const HASH_KEY = 'state';

/** UTF-8 JSON → base64url (no padding). */
export function encodeState(state) {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** base64url → the state; throws a `SyntaxError` naming what is wrong. */
export function decodeState(text) {
  let binary;
  try {
    binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    throw new SyntaxError('the shared state in the URL is not base64url');
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  let json;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SyntaxError('the shared state in the URL is not UTF-8');
  }
  return JSON.parse(json);
}

/** The shared state of a URL fragment (`location.hash`), or `null` when it holds none. */
export function stateFromHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const value = params.get(HASH_KEY);
  return value ? decodeState(value) : null;
}

/** The URL fragment that holds `state`. */
export function hashOf(state) {
  return `#${HASH_KEY}=${encodeState(state)}`;
}

/**
 * Parses a JSON document read from a file or a text box. A syntax error becomes a `SyntaxError` whose
 * message names the line and column (the engine's own message varies by browser).
 * @param {string} text
 * @param {string} what e.g. "trace.json"
 */
export function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec(String(e.message));
    let where = '';
    if (m) {
      const before = text.slice(0, Number(m[1]));
      const line = before.split('\n').length;
      const column = before.length - before.lastIndexOf('\n');
      where = ` at line ${line}, column ${column}`;
    }
    throw new SyntaxError(`${what} is not valid JSON${where}: ${e.message}`);
  }
}

/** Offers `text` as a download named `filename`. */
export function download(filename, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
