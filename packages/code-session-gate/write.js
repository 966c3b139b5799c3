// The arguments' JSON text, written as the host's values are read: the one place JavaScript must decide
// something the module cannot see. Each value is read exactly once (so a getter or Proxy trap cannot
// have one answer checked and another sent), and what JSON would silently lose or cannot hold is
// refused with the offending value's path (non-finite numbers, functions, symbols, bigints, nesting past
// the gate's limit or cycles, getters or Proxies that throw, lone surrogates). `JsonText` carries text
// the host already holds, passed as it is.
import { describe, gateError } from './errors.js';
import { C, LIMIT } from './modules.js';

export const dot = (path, key) => (path === '' ? key : `${path}.${key}`);

/** Every `Fault` made (a WeakSet, so that telling one from a host's thrown value runs no host code). */
const faults = new WeakSet();

/**
 * A refusal met while writing a value: its code, its message for the path, and the path's segments
 * from the value outwards (a number for an array index, a string for a key), completed as it unwinds.
 */
class Fault {
  constructor(code, message, cause) {
    this.code = code;
    /** @type {(at: string) => string} */
    this.message = message;
    this.cause = cause;
    /** @type {(string | number)[]} */
    this.segments = [];
    faults.add(this);
  }

  /** The refusal, with the path from `root` (the argument's name, "" for an options object). */
  error(root) {
    let path = root;
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const s = this.segments[i];
      path = typeof s === 'number' ? `${path}[${s}]` : dot(path, s);
    }
    return gateError(this.code, path, this.message(path || 'the value'), this.cause);
  }
}

const isFault = (/** @type {unknown} */ e) => typeof e === 'object' && e !== null && faults.has(e);

/** A host call that threw (a getter, a `toJSON`, a Proxy trap), as a Fault. */
const threw = (/** @type {string} */ what, /** @type {unknown} */ e) =>
  new Fault('invalid_value', (at) => `${at}: ${what} threw: ${describe(e)}`, e);

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
function quote(s) {
  if (s.length > QUOTED_LENGTH) return quoteOnce(s);
  let q = quoted.get(s);
  if (q === undefined) {
    q = quoteOnce(s);
    if (quoted.size >= QUOTED_MAX) quoted.clear();
    quoted.set(s, q);
  }
  return q;
}

const getPrototypeOf = Object.getPrototypeOf;
const ObjectPrototype = Object.prototype;
const ArrayPrototype = Array.prototype;

/**
 * The JSON text `JSON.stringify` writes for `v`, or `undefined` where it writes nothing, reading each
 * value of the host's exactly once, so that the text holds what was checked: `toJSON` results, array
 * items, own enumerable string keys. What JSON would silently lose or cannot hold is a `Fault`: NaN and
 * ±Infinity (written as `null`), functions and symbols (dropped), bigints (a throw), nesting deeper
 * than the gate's limit, cycles, a JsonText inside a value, and getters, `toJSON` methods or Proxy
 * traps that throw. Every host call is wrapped where it is made, so that whatever it throws becomes a
 * Fault. `key` is what `toJSON` receives: the member's key, or its index in an array.
 */
export function write(v, depth, key) {
  switch (typeof v) {
    case 'string':
      return quote(v);
    case 'number':
      if (v - v === 0) return `${v}`;
      throw new Fault('invalid_value', (at) => `${at}: expected a finite number, got ${String(v)}`);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return undefined;
    case 'object':
      if (v === null) return 'null';
      break;
    case 'function':
      break;
    default:
      throw new Fault('invalid_type', (at) => `${at}: expected plain data, got ${typeof v}`);
  }
  let proto;
  let toJSON;
  try {
    proto = getPrototypeOf(v);
    toJSON = v.toJSON;
  } catch (e) {
    throw threw('reading it', e);
  }
  // Plain objects and arrays (most values) are no JsonText; anything else is asked.
  if (proto !== ObjectPrototype && proto !== ArrayPrototype) {
    const kind = jsonTextKind(v);
    if (kind !== NOT_JSON_TEXT) throw new Fault('invalid_type', (at) => misplacedJsonText(kind, at).message);
  }
  if (typeof toJSON !== 'function') {
    // Plain objects and arrays (most values): no boxed primitive to unwrap.
    if (proto === ObjectPrototype || proto === ArrayPrototype) {
      if (depth >= C.maxDepth) {
        throw new Fault('invalid_value', (at) => `${at}: nested deeper than ${C.maxDepth} levels (or cyclic)`);
      }
      let array;
      try {
        array = Array.isArray(v);
      } catch (e) {
        throw threw('reading it', e);
      }
      return array ? writeArray(v, depth) : writeObject(v, depth, undefined);
    }
    return unboxed(v, depth);
  }
  let value;
  try {
    value = toJSON.call(v, typeof key === 'number' ? String(key) : key);
  } catch (e) {
    throw threw('reading it', e);
  }
  return unboxed(value, depth);
}

/** [`write`] of a value whose `toJSON` has been applied (or that has none). */
function unboxed(v, depth) {
  switch (typeof v) {
    case 'object':
      if (v === null) return 'null';
      break;
    case 'function':
    case 'bigint':
    case 'symbol':
      throw new Fault('invalid_type', (at) => `${at}: expected plain data, got ${typeof v}`);
    default:
      return write(v, depth, '');
  }
  if (depth >= C.maxDepth) {
    throw new Fault('invalid_value', (at) => `${at}: nested deeper than ${C.maxDepth} levels (or cyclic)`);
  }
  let boxed;
  let array;
  try {
    boxed = v instanceof Number || v instanceof String || v instanceof Boolean;
    array = !boxed && Array.isArray(v);
  } catch (e) {
    throw threw('reading it', e);
  }
  if (boxed) {
    let primitive;
    try {
      primitive = v.valueOf();
    } catch (e) {
      throw threw('reading it', e);
    }
    return write(primitive, depth, '');
  }
  return array ? writeArray(v, depth) : writeObject(v, depth, undefined);
}

function writeArray(v, depth) {
  const n = arrayLength(v);
  let out = '[';
  let i = 0;
  try {
    for (; i < n; i++) {
      // A throw here is the host's (reading the item) or a Fault of the item's own.
      const text = write(v[i], depth + 1, i);
      out += (i === 0 ? '' : ',') + (text === undefined ? 'null' : text);
    }
  } catch (e) {
    const f = isFault(e) ? /** @type {Fault} */ (e) : threw('reading it', e);
    f.segments.push(i);
    throw f;
  }
  return out + ']';
}

/**
 * An object's text; `known` (top level only) holds values the caller has already read from it, which
 * are written as read instead of being read again.
 */
export function writeObject(v, depth, known) {
  let keys;
  try {
    keys = Object.keys(v);
  } catch (e) {
    throw threw('reading it', e);
  }
  let out = '{';
  let k = '';
  try {
    for (let i = 0; i < keys.length; i++) {
      k = keys[i];
      // A throw here is the host's (reading the member) or a Fault of the member's own.
      const item = known === undefined || !known.has(k) ? v[k] : known.get(k);
      // Strings (most members) are written here, without the call through `write`.
      const text = typeof item === 'string' ? quote(item) : write(item, depth + 1, k);
      if (text !== undefined) out += (out.length === 1 ? '' : ',') + quote(k) + ':' + text;
    }
  } catch (e) {
    const f = isFault(e) ? /** @type {Fault} */ (e) : threw('reading it', e);
    f.segments.push(k);
    throw f;
  }
  // A member the caller read that is not an own key (inherited): written too, so that the module
  // decides on the value the caller's cache is keyed on.
  if (known !== undefined) {
    for (const [key, value] of known) {
      if (value === undefined || keys.includes(key)) continue;
      const text = write(value, depth + 1, key);
      if (text !== undefined) out += (out.length === 1 ? '' : ',') + quote(key) + ':' + text;
    }
  }
  return out + '}';
}

/**
 * The length of array `v`, read once: a Fault if reading it throws or gives something no array has (a
 * Proxy may claim anything), `limit_exceeded` above the gate's item limit, before any item is read.
 */
function arrayLength(v) {
  let n;
  try {
    n = v.length;
  } catch (e) {
    throw threw('reading its length', e);
  }
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 32 - 1) {
    throw new Fault('invalid_value', (at) => `${at}: an array whose length is ${typeof n === 'number' ? n : typeof n}`);
  }
  if (n > LIMIT.maxArrayItems) {
    throw new Fault('limit_exceeded', (at) => `${at}: ${n} items, more than the limit of ${LIMIT.maxArrayItems} (maxArrayItems)`);
  }
  return n;
}

/** `f()`, with a Fault it throws as the refusal at `root` (an argument's name or a path). */
export function rooted(root, f) {
  try {
    return f();
  } catch (e) {
    if (isFault(e)) throw /** @type {Fault} */ (e).error(root);
    throw e;
  }
}

/** [`arrayLength`] as a refusal at `path`. */
export const lengthOf = (v, path) => rooted(path, () => arrayLength(v));

/** `obj[key]`, as a refusal at `path` if a getter or Proxy trap throws. */
export function read(obj, key, path) {
  try {
    return obj[key];
  } catch (e) {
    throw gateError('invalid_value', path, `${path}: reading it threw: ${describe(e)}`, e);
  }
}

/** An unpaired UTF-16 surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
export const isWellFormed = typeof String.prototype.isWellFormed === 'function'
  ? (/** @type {string} */ s) => s.isWellFormed()
  : (/** @type {string} */ s) => !LONE_SURROGATE.test(s);

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
  const at = path || 'the value';
  return kind === FOREIGN_JSON_TEXT
    ? gateError('invalid_type', path, `${at}: a JsonText of another copy of the package (its ESM and CommonJS entries are two): make it with the entry this gate came from`)
    : gateError('invalid_type', path, `${at}: a JsonText stands only as a whole argument, where the operation takes one`);
}
