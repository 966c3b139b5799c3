// Why this module exists: a host's value is not inert data. A getter or a Proxy can answer one thing
// when a check reads it and another when the value is sent; an object can hold what JSON silently
// loses or cannot hold (a cycle, NaN, a function, a symbol, a bigint, a lone surrogate). Only
// JavaScript can see any of that, so this is the one place the package reads a host's values, each
// exactly once, and the one place JavaScript decides something the module cannot: what it read is what
// the module is sent (JSON text), and what JSON would lose is refused with the offending value's path
// (non-finite numbers, functions, symbols, bigints, nesting past the gate's limit or cycles, getters,
// `toJSON` or Proxy traps that throw, lone surrogates); what the gate handed out, recognised by
// identity (handed.js), is written once. The layer's other modules take a host's value
// through these functions only: `argumentText`, `write`, `writeObject` (a value as JSON text),
// `ReadOptions` (an options object some of whose members were read already), `read`, `member`, `flag`
// (one member), `lengthOf` (an array's length), `isRecord` and `bodyOf` (a sandbox answer's body,
// passed as it is). One exception, for speed: `contextForCall`'s cache reads its two members itself
// (gate-base.js says why).
import { describe, gateError } from './errors.js';
import { engine } from './engine.js';
import { Handed } from './handed.js';
import { FOREIGN_JSON_TEXT, NOT_JSON_TEXT, isWellFormed, jsonTextKind, misplacedJsonText, quote } from './json-text.js';

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

/** What `e`, thrown while a value was read and written, is as a Fault: its own, or the host's throw. */
const reading = (/** @type {unknown} */ e) => (isFault(e) ? /** @type {Fault} */ (e) : threw('reading it', e));

/** The refusal of what JSON drops or cannot write (a function, a symbol, a bigint). */
const notData = (/** @type {unknown} */ v) => new Fault('invalid_type', (at) => `${at}: expected plain data, got ${typeof v}`);

const getPrototypeOf = Object.getPrototypeOf;
const ObjectPrototype = Object.prototype;
const ArrayPrototype = Array.prototype;
const hasOwn = Object.hasOwn;

/**
 * Whether an array or a record of plain data inherits no `toJSON`: asked of the two prototypes' own
 * keys and of `Array.prototype`'s prototype (which a host may change, even to a Proxy), so that no
 * host code runs.
 */
const plainPrototypes = () =>
  getPrototypeOf(ArrayPrototype) === ObjectPrototype && !hasOwn(ArrayPrototype, 'toJSON') && !hasOwn(ObjectPrototype, 'toJSON');

/**
 * The JSON text `JSON.stringify` writes for `v`, or `undefined` where it writes nothing, reading each
 * value of the host's exactly once, so that the text holds what was checked: `toJSON` results, array
 * items, own enumerable string keys. What JSON would silently lose or cannot hold is a `Fault`: NaN and
 * ±Infinity (written as `null`), functions and symbols (dropped), bigints (a throw), nesting deeper
 * than the gate's limit, cycles, a JsonText inside a value, and getters, `toJSON` methods or Proxy
 * traps that throw. Every host call is wrapped where it is made, so that whatever it throws becomes a
 * Fault. `key` is what `toJSON` receives: the member's key, or its index in an array; `applied`: `v`
 * is what a `toJSON` answered, written as it is (no `toJSON` of its own is called).
 */
export function write(v, depth, key, applied = false) {
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
      // Only its `toJSON` could make data of it.
      if (applied) throw notData(v);
      break;
    default:
      throw notData(v);
  }
  // Plain objects and arrays (most values) have no boxed primitive to unwrap.
  let plain = false;
  if (!applied) {
    // What the gate handed out is written once (handed.js): where the walk below would write the same
    // text, which holds while the value nests within the depth limit where it stands and no prototype it
    // inherits from has a `toJSON`.
    const levels = Handed.levels(v);
    if (levels > 0 && depth + levels <= engine.constants.maxDepth && plainPrototypes()) {
      // The walk's own steps for a plain object or array (its prototype is one of the two: it is frozen).
      return Handed.written(v) ?? Handed.remember(v, Array.isArray(v) ? writeArray(v, depth) : writeObject(v, depth, undefined));
    }
    try {
      const proto = getPrototypeOf(v);
      const toJSON = v.toJSON;
      plain = proto === ObjectPrototype || proto === ArrayPrototype;
      // Plain objects and arrays (most values) are no JsonText; anything else is asked.
      const kind = plain ? NOT_JSON_TEXT : jsonTextKind(v);
      if (kind !== NOT_JSON_TEXT) throw new Fault('invalid_type', (at) => misplacedJsonText(kind, at).message);
      if (typeof toJSON === 'function') return write(toJSON.call(v, typeof key === 'number' ? String(key) : key), depth, '', true);
    } catch (e) {
      throw reading(e);
    }
    if (typeof v === 'function') throw notData(v);
  }
  if (depth >= engine.constants.maxDepth) {
    throw new Fault('invalid_value', (at) => `${at}: nested deeper than ${engine.constants.maxDepth} levels (or cyclic)`);
  }
  let array;
  try {
    // A boxed primitive (its prototype is not a plain one) is written as its primitive.
    if (!plain && (v instanceof Number || v instanceof String || v instanceof Boolean)) return write(v.valueOf(), depth, '');
    array = Array.isArray(v);
  } catch (e) {
    throw reading(e);
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
    const f = reading(e);
    f.segments.push(i);
    throw f;
  }
  return out + ']';
}

/** `"key":` of each key written lately (keys recur in every object of a host's arrays), bounded. */
const openings = new Map();

/** The text that opens member `k` of an object: its key quoted, and the colon. */
function opening(k) {
  let m = openings.get(k);
  if (m === undefined) {
    m = quote(k) + ':';
    if (openings.size >= 1024) openings.clear();
    openings.set(k, m);
  }
  return m;
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
      if (text !== undefined) out += (out.length === 1 ? '' : ',') + opening(k) + text;
    }
  } catch (e) {
    const f = reading(e);
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
  if (n > engine.limits.maxArrayItems) {
    throw new Fault('limit_exceeded', (at) => `${at}: ${n} items, more than the limit of ${engine.limits.maxArrayItems} (maxArrayItems)`);
  }
  return n;
}

/**
 * The JSON text of argument `name` (not `undefined`), written as the host's values are read (each
 * once), refusing what JSON would lose: an options object some of whose members the caller has read
 * (`ReadOptions`), a `JsonText` (the host's text, marked as such), or any other value.
 */
export function argumentText(name, value) {
  // An options object whose members in `known` were read already: written as read, the others read once.
  if (ReadOptions.is(value)) return rooted(name, () => writeObject(value.options, 0, value.known));
  const kind = jsonTextKind(value);
  if (kind !== NOT_JSON_TEXT) {
    if (kind === FOREIGN_JSON_TEXT) throw misplacedJsonText(kind, name);
    let text;
    try {
      text = value.text;
    } catch (e) {
      // An object given JsonText's prototype without its constructor (or a Proxy of one).
      throw gateError('invalid_value', name, `${name || 'the value'}: not a JsonText its constructor made`, e);
    }
    // Marked as the host's own text: the module checks where it may stand and its nesting, which no
    // writer here has checked.
    return engine.constants.hostText + text;
  }
  return rooted(name, () => write(value, 0, '') ?? 'null');
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
    throw threw('reading it', e).error(path);
  }
}

/** Member `key` of a host object at `path`, as a refusal at its path if a getter or Proxy trap throws. */
export const member = (obj, key, path) => read(obj, key, dot(path, key));

/**
 * A flag of an options object that shapes the layer's answer (`true`, or absent / `false` / `null`);
 * anything else is refused with its path.
 * @param {object} options @param {string} key
 */
export function flag(options, key) {
  const v = read(options, key, key);
  if (v !== undefined && v !== null && typeof v !== 'boolean') {
    const got = Array.isArray(v) ? 'array' : typeof v;
    throw gateError('invalid_type', key, `${key}: expected a boolean, got ${got}`);
  }
  return v === true;
}

/**
 * Whether `v` is an object that is no array and no JsonText; `false` for one that cannot be inspected
 * (a revoked Proxy), which the writer then reads and refuses with its path.
 * @param {unknown} v @returns {v is object}
 */
export function isRecord(v) {
  if (v === null || typeof v !== 'object') return false;
  try {
    return !Array.isArray(v) && jsonTextKind(v) === NOT_JSON_TEXT;
  } catch {
    return false;
  }
}

/**
 * An options object some of whose members the caller has read already (`known`, name → value): its
 * text holds those values as read (`undefined`: left out), and every other member read once.
 */
export class ReadOptions {
  /** Marks the objects this class made: a host's value cannot pass for one (nor see the check). */
  #made = true;

  /** @param {object} options @param {ReadonlyMap<string, unknown>} known */
  constructor(options, known) {
    this.options = options;
    this.known = known;
  }

  /**
   * Whether `value` is one this class made (a private-field check: no getter, trap or prototype of the
   * host's is consulted).
   * @param {unknown} value @returns {value is ReadOptions}
   */
  static is(value) {
    return typeof value === 'object' && value !== null && #made in value;
  }
}

/** `sandboxAnswer`'s `body`, read once: text or bytes passed as they are (`raw`), else left to the module.
 * @param {object} answer */
export function bodyOf(answer) {
  const body = read(answer, 'body', 'body');
  let raw;
  if (typeof body === 'string') {
    if (!isWellFormed(body)) throw gateError('lone_surrogate', 'body', 'body: holds an unpaired UTF-16 surrogate, which no answer read as UTF-8 can');
    raw = body;
  } else {
    // A Proxy's prototype trap (instanceof) or a view's own getters may throw: a refusal at `body`.
    try {
      if (body instanceof ArrayBuffer) raw = new Uint8Array(body);
      else if (ArrayBuffer.isView(body)) raw = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    } catch (e) {
      throw threw('reading it', e).error('body');
    }
  }
  return { body, raw };
}
