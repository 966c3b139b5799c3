// JSON text: `JsonText`, the text the host already holds (a sandbox's answer, a queued message), passed
// to the gate as it is instead of as the objects it would parse into, and how the layer tells one (of
// this copy of the package or of another) from any other value; and strings written as JSON strings.
import { gateError } from './errors.js';

/** `s` as a JSON string: as it is between quotes when nothing in it needs an escape (the usual case). */
function quoteOnce(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/**
 * Short strings written lately, quoted: keys, file ids, names and storage ids recur in every call of a
 * conversation (each echo repeats its file's), and a lookup costs less than looking at each character
 * again. Bounded: it starts over when full.
 */
const quoted = new Map();
const QUOTED_MAX = 4096;
const QUOTED_LENGTH = 256;

/** `s` as a JSON string. */
export function quote(s) {
  if (s.length > QUOTED_LENGTH) return quoteOnce(s);
  let q = quoted.get(s);
  if (q === undefined) {
    q = quoteOnce(s);
    if (quoted.size >= QUOTED_MAX) quoted.clear();
    quoted.set(s, q);
  }
  return q;
}

/** An unpaired UTF-16 surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export const isWellFormed = typeof String.prototype.isWellFormed === 'function'
  ? (/** @type {string} */ s) => s.isWellFormed()
  // `search` starts at 0 whatever the global expression's lastIndex.
  : (/** @type {string} */ s) => s.search(LONE_SURROGATES) < 0;

/** Marks a JsonText of any copy of the package (its ESM and CommonJS entries each have the class). */
const JSON_TEXT_BRAND = Symbol.for('code-session-gate.JsonText');
export const NOT_JSON_TEXT = 0;
const OWN_JSON_TEXT = 1;
export const FOREIGN_JSON_TEXT = 2;

/**
 * JSON text the host already holds (a sandbox's answer, a queued message), passed to the gate as it is
 * instead of as the objects it would parse into: the gate reads it as it is, without the writing of
 * JSON text an object argument costs. The module accepts it as `foldResults`' `results` and
 * `updateSession`'s `artifact` and refuses it as any other argument (`invalid_type`); nested in an
 * object it is refused here, as JSON cannot hold it. The module parses the text as it parses
 * any argument, so every refusal an object would get names the same path here; JSON text cannot hold
 * what the writer refuses in objects (non-finite numbers, functions), and an unpaired surrogate in the
 * text is escaped here so that the module refuses it (`lone_surrogate`) at its path.
 */
export class JsonText {
  #text;

  /** @param {string} text the JSON text (not empty) */
  constructor(text) {
    if (typeof text !== 'string') {
      throw gateError('invalid_type', 'text', `text: expected a string of JSON, got ${text === null ? 'null' : typeof text}`);
    }
    if (text.length === 0) throw gateError('invalid_json', 'text', 'text: an empty text is not JSON');
    this.#text = isWellFormed(text)
      ? text
      : text.replace(LONE_SURROGATES, (u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`);
    Object.freeze(this);
  }

  /** The JSON text as the module reads it (unpaired surrogates escaped). */
  get text() {
    return this.#text;
  }

  /** `JSON.stringify` of a host object that holds one writes the text as a string. */
  toJSON() {
    return this.#text;
  }

  /** Recognised by every copy of the package, so that another copy's JsonText is named, not misread. */
  get [JSON_TEXT_BRAND]() {
    return true;
  }
}

/**
 * Whether `v` is a JsonText of this copy, of another copy (the other entry of a dual ESM/CommonJS
 * install), or none; none for a value that cannot be inspected (a revoked Proxy: the writer names it).
 */
export function jsonTextKind(v) {
  if (v === null || typeof v !== 'object') return NOT_JSON_TEXT;
  try {
    if (v instanceof JsonText) return OWN_JSON_TEXT;
    return v[JSON_TEXT_BRAND] === true ? FOREIGN_JSON_TEXT : NOT_JSON_TEXT;
  } catch {
    return NOT_JSON_TEXT;
  }
}

/** The refusal of a JsonText inside an object (`kind` OWN) or of another copy's (`kind` FOREIGN). */
export function misplacedJsonText(kind, path) {
  const why = kind === FOREIGN_JSON_TEXT
    ? 'of another copy of the package (its ESM and CommonJS entries are two): make it with the entry this gate came from'
    : 'stands only as a whole argument, where the operation takes one';
  return gateError('invalid_type', path, `${path || 'the value'}: a JsonText ${why}`);
}
