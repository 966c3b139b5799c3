// The package's API: the `Gate` class and the functions hosts call, over the exported functions
// (`csg_new`, `csg_call`, `csg_static`, ...; see src/bindings/) of the package's two modules: the core
// (gates, narrowing, planner), instantiated by `init` / `initSync` or an entry at import, and the
// sandbox module (exec wire, sandbox dialects, explanations), instantiated on first use where an entry
// can load it synchronously (`sandboxSource`) and by `initSandbox` / `initSandboxSync` elsewhere.
//
// This layer converts and caches; it decides nothing. Each argument crosses as JSON text that this layer
// writes as it reads the host's values, each exactly once (so a getter or Proxy trap cannot have one
// answer checked and another sent), refusing what JSON would silently lose or cannot hold (non-finite
// numbers, functions, symbols, bigints, nesting past the gate's limit or cycles, and getters or Proxies
// that throw), with the offending value's path. Answers come back as JSON text. What has not changed
// is held here: a gate's verdicts (its configuration never changes), and each `contextForCall` answer
// with the partition state it depends on, so that a
// call whose partition was not written since is answered without entering the wasm. File lists and
// contexts are frozen, built once per partition state and shared; a new list reuses the objects of the
// refs it has in common with one already built.
import { CORE, Channel, SANDBOX, instantiate, instantiateSync, sandboxSource, sourceOf } from './engine.js';
import { ERROR_NAME, createGuard, packageError } from './guard.js';

/** Reads answers' heads and bodies from the module's memory (the sandbox request's body). */
const decoder = new TextDecoder();
let ready = false;
const guard = createGuard(() => ready);
const live = guard.live;

/** The core module's instance (see engine.js `Channel`). */
let core;
/** The sandbox module's instance, once loaded. */
let sandbox;
/** What the module says of itself once: operation numbers and constants (see src/api/mod.rs). */
let C;
/** Gate operation numbers by name. */
let OP;
/** The gate operations that may change the session map (the module's list, which it checks). */
let WRITES;
/** Static operation numbers by name. */
let SOP;
/** The module's input limits by name (`maxInputBytes`, `maxArrayItems`, `maxCallsPerBatch`). */
let LIMIT;

/** @param {import('./engine.js').Engine} x the core module's new instance */
function loaded(x) {
  core = new Channel(x, guard.wrap);
  ready = true;
  if (C === undefined) {
    const said = JSON.parse(core.read(core.constants()));
    if (said.module !== 'core') {
      // Nothing is kept of a module that is not the core (the sandbox module, or another one).
      core = undefined;
      ready = false;
      guard.reset();
      throw packageError('not_wasm', `code-session-gate: the module given is not the ${CORE.file} (it says it is the ${said.module ?? 'unknown'} module)`);
    }
    C = said;
    OP = Object.fromEntries(C.gateOps.map((n, i) => [n, i]));
    WRITES = new Set(C.gateWrites);
    SOP = Object.fromEntries(C.staticOps.map((n, i) => [n, i]));
    SANDBOX_OPS = new Set(C.sandboxOps);
    LIMIT = Object.freeze({ maxInputBytes: Infinity, maxArrayItems: Infinity, ...Object.fromEntries(C.limits ?? []) });
  }
}

/** The static operations the sandbox module serves (the core module's list). */
let SANDBOX_OPS;

/**
 * Takes `x` as the sandbox module's instance, after checking that it numbers the operations as the
 * core module does (a module of another package version is refused).
 * @param {import('./engine.js').Engine} x
 */
function sandboxLoaded(x) {
  const channel = new Channel(x, guard.wrap);
  const said = JSON.parse(channel.read(channel.constants()));
  if (said.module !== 'sandbox') {
    throw packageError(
      'not_wasm',
      `code-session-gate: the module given is not the ${SANDBOX.file} (it says it is the ${said.module ?? 'unknown'} module)`,
    );
  }
  if (JSON.stringify(said.staticOps) !== JSON.stringify(C.staticOps)) {
    throw packageError(
      'not_wasm',
      `code-session-gate: the ${SANDBOX.file} given is of another version than the ${CORE.file} in use ` +
        '(their operations differ): pass the one of the same package version',
    );
  }
  sandbox = channel;
  sandboxSource.loaded = true;
}

/**
 * The sandbox module's instance for a call of `what`: loaded now where the entry can load it
 * synchronously (Node, Bun, the inline entry, workerd), or the typed "not_initialized" error that
 * names the fix.
 * @param {string} what
 */
function sandboxFor(what) {
  if (sandbox !== undefined) return sandbox;
  const load = sandboxSource.sync;
  if (load === undefined) {
    throw packageError(
      'not_initialized',
      `code-session-gate: ${what}() runs in the sandbox module (${SANDBOX.file}), which is not loaded yet: ` +
        'await initSandbox() once first (the slim entry: initSandbox({ module_or_path }) or ' +
        'initSandboxSync({ module }); the default entry loads it in init() unless told { sandbox: false })' +
        (sandboxSource.failure === undefined ? '' : `; loading it failed: ${describe(sandboxSource.failure)}`),
      sandboxSource.failure,
    );
  }
  sandboxLoaded(instantiateSync(load(), SANDBOX));
  return sandbox;
}

/**
 * Instantiates the sandbox module synchronously from `options.module` (a `WebAssembly.Module` or the
 * bytes of `code_session_sandbox_bg.wasm`); a no-op once it is loaded. The core module must be
 * initialised first.
 */
export function initSandboxSync(options) {
  if (!live.open) guard.check('initSandboxSync');
  if (sandbox !== undefined) return;
  sandboxLoaded(instantiateSync(sourceOf(options, 'module'), SANDBOX));
}

/**
 * Instantiates the sandbox module (a no-op once it is loaded): from `options.module_or_path` (a
 * `WebAssembly.Module`, bytes, URL, path or `Response`), or where the entry knows it (the browser
 * entry fetches it from beside itself). The core module must be initialised first.
 */
export async function initSandbox(options) {
  if (!live.open) guard.check('initSandbox');
  if (sandbox !== undefined) return;
  let source;
  if (options !== undefined) source = sourceOf(options, 'module_or_path');
  else if (sandboxSource.sync !== undefined) source = sandboxSource.sync();
  else if (sandboxSource.fetch !== undefined) source = await sandboxSource.fetch();
  else {
    throw packageError(
      'missing_field',
      `code-session-gate: initSandbox() needs { module_or_path } (the ${SANDBOX.file}: a WebAssembly.Module, bytes, URL or Response) with this entry`,
      undefined,
      'options',
    );
  }
  const x = await instantiate(source, SANDBOX);
  if (sandbox === undefined) sandboxLoaded(x);
}

/**
 * Instantiates the module synchronously (a no-op once done). Returns nothing: the raw wasm exports stay
 * inside the package, where the guard watches every call into them.
 */
export function initSync(options) {
  if (ready) return;
  loaded(instantiateSync(sourceOf(options, 'module'), CORE));
}

/** Instantiates the module (a no-op once done); resolves to nothing (see `initSync`). */
export default async function init(options) {
  if (ready) return;
  const x = await instantiate(sourceOf(options, 'module_or_path'), CORE);
  // Concurrent first calls: the first to finish is the instance.
  if (!ready) loaded(x);
}

// ---------------------------------------------------------------------------------------------------
// Errors

/** A `CodeSessionGateError` with the offending `path`. */
const gateError = (code, path, message, cause) => packageError(code, message, cause, path);

/**
 * Whether `e` is an error this package threw (`name` "CodeSessionGateError" with a string `code`), and,
 * when `code` is given, one of that code. Checks the shape, not `instanceof`, so that it holds across
 * the package's ESM and CommonJS copies and across realms.
 */
export function isCodeSessionGateError(e, code) {
  if (e === null || typeof e !== 'object') return false;
  try {
    return e.name === ERROR_NAME && typeof e.code === 'string' && (code === undefined || e.code === code);
  } catch {
    // A hostile getter or a revoked Proxy is not one of ours.
    return false;
  }
}

/** The refusal a U+0001-marked answer (or a thrown refusal text) carries. */
function refusal(text) {
  const { code, path, message, status, retryAfterSeconds } = JSON.parse(text);
  const err = gateError(code, path, message);
  // A sandbox's refusal (readSandboxResponse) carries what the sandbox answered.
  if (status !== undefined) {
    Object.defineProperty(err, 'status', { value: status, enumerable: true, writable: true, configurable: true });
  }
  if (retryAfterSeconds !== undefined) {
    Object.defineProperty(err, 'retryAfterSeconds', {
      value: retryAfterSeconds,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return err;
}

/** Words for a thrown value that cannot throw again (a hostile `message` getter, a revoked Proxy…). */
function describe(e) {
  try {
    if (e instanceof Error) {
      const m = e.message;
      if (typeof m === 'string') return m;
    }
    if (typeof e === 'string') return e;
  } catch {
    // fall through
  }
  return 'a value that cannot be described';
}

// ---------------------------------------------------------------------------------------------------
// Arguments as JSON text

const dot = (path, key) => (path === '' ? key : `${path}.${key}`);

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
function write(v, depth, key) {
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
function writeObject(v, depth, known) {
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
function rooted(root, f) {
  try {
    return f();
  } catch (e) {
    if (isFault(e)) throw /** @type {Fault} */ (e).error(root);
    throw e;
  }
}

/** [`arrayLength`] as a refusal at `path`. */
const lengthOf = (v, path) => rooted(path, () => arrayLength(v));

/** `obj[key]`, as a refusal at `path` if a getter or Proxy trap throws. */
function read(obj, key, path) {
  try {
    return obj[key];
  } catch (e) {
    throw gateError('invalid_value', path, `${path}: reading it threw: ${describe(e)}`, e);
  }
}

/** An unpaired UTF-16 surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
const isWellFormed = typeof String.prototype.isWellFormed === 'function'
  ? (/** @type {string} */ s) => s.isWellFormed()
  : (/** @type {string} */ s) => !LONE_SURROGATE.test(s);

/** Marks a JsonText of any copy of the package (its ESM and CommonJS entries each have the class). */
const JSON_TEXT_BRAND = Symbol.for('code-session-gate.JsonText');
const NOT_JSON_TEXT = 0;
const OWN_JSON_TEXT = 1;
const FOREIGN_JSON_TEXT = 2;

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
    freeze(this);
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
function jsonTextKind(v) {
  if (v === null || typeof v !== 'object') return NOT_JSON_TEXT;
  try {
    if (v instanceof JsonText) return OWN_JSON_TEXT;
    return v[JSON_TEXT_BRAND] === true ? FOREIGN_JSON_TEXT : NOT_JSON_TEXT;
  } catch {
    return NOT_JSON_TEXT;
  }
}

/** The refusal of a JsonText inside an object (`kind` OWN) or of another copy's (`kind` FOREIGN). */
function misplacedJsonText(kind, path) {
  const at = path || 'the value';
  return kind === FOREIGN_JSON_TEXT
    ? gateError('invalid_type', path, `${at}: a JsonText of another copy of the package (its ESM and CommonJS entries are two): make it with the entry this gate came from`)
    : gateError('invalid_type', path, `${at}: a JsonText stands only as a whole argument, where the operation takes one`);
}

/** Options objects whose `codeSessionKey` and `threadId` a caller has read already (`ReadOptions`). */
const readOptions = new WeakSet();

/**
 * An options object some of whose members the caller has read already (`known`, name → value): its
 * text holds those values as read (`undefined`: left out), and every other member read once.
 */
class ReadOptions {
  /** @param {object} options @param {Map<string, unknown>} known */
  constructor(options, known) {
    this.options = options;
    this.known = known;
    readOptions.add(this);
  }
}

/**
 * The JSON text of argument `name` (not `undefined`), written as the host's values are read (each
 * once), refusing what JSON would lose.
 */
function textOf(name, value) {
  if (readOptions.has(value)) return optionsText(name, value.options, value.known);
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
    return C.hostText + text;
  }
  return rooted(name, () => write(value, 0, '') ?? 'null');
}

/**
 * The JSON text of an options object (argument `name`) whose members in `known` the caller has already
 * read: they are written as read, every other member read once.
 */
function optionsText(name, value, known) {
  return rooted(name, () => writeObject(value, 0, known));
}

/**
 * The arguments' JSON texts ('' for `undefined`), written as their values are read, and their length
 * together in UTF-16 units, refused above `maxInputBytes` (units are at most the bytes; the module
 * checks the bytes again). `names` are the operation's parameter names as the module declares them:
 * they root the paths of refusals ("" for an options object whose keys are the roots).
 * @param {readonly string[]} names
 * @param {unknown[]} values
 * @returns {[string[], number]}
 */
function textsOf(names, values) {
  const texts = new Array(values.length);
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const name = names[i] ?? '';
    const value = values[i];
    texts[i] = value === undefined ? '' : textOf(name, value);
    total += texts[i].length;
    if (total > LIMIT.maxInputBytes) {
      throw gateError(
        'limit_exceeded',
        name,
        `${name || 'the arguments'}: more than ${LIMIT.maxInputBytes} bytes of JSON text in one call (maxInputBytes)`,
      );
    }
  }
  return [texts, total];
}

/**
 * Parses the answer of a call to `channel`, `len` bytes long (an empty text is `undefined`), throwing
 * a refusal.
 */
function answer(channel, len) {
  if (len === 0) return undefined;
  const text = channel.read(len);
  if (text.charCodeAt(0) === 1) throw refusal(text.slice(1));
  return JSON.parse(text);
}

/**
 * Runs static operation `name` on its arguments, in the order of its parameters, in the module that
 * serves it.
 */
function callStaticOp(name, values) {
  const op = SOP[name];
  const [texts, total] = textsOf(C.staticParams[op], values);
  const channel = SANDBOX_OPS.has(name) ? sandboxFor(name) : core;
  const used = channel.write(texts, total);
  const len = channel.callStatic(op, values.length, used);
  channel.released(used);
  return answer(channel, len);
}

// ---------------------------------------------------------------------------------------------------
// Shared, frozen file lists and contexts

const freeze = Object.freeze;
const LIST_KEEP = 16;

/**
 * A narrowed ref from its packed answer `[id, resource_id, name, storage_session_id | null, kind,
 * version?]` (src/api/lists/), frozen, with the wire keys in the SDK's order; an absent storage id is
 * an absent key.
 */
function unpack(a) {
  const ref =
    a[3] === null
      ? { id: a[0], resource_id: a[1], name: a[2], kind: a[4] }
      : { id: a[0], resource_id: a[1], name: a[2], storage_session_id: a[3], kind: a[4] };
  if (a.length > 5) ref.version = a[5];
  return freeze(ref);
}

/** The file lists and contexts one gate has built, by partition generation. */
class Shared {
  /** @type {Map<number, readonly object[]>} */
  lists = new Map();
  /** @type {Map<string, object>} */
  contexts = new Map();
  last = 0;

  /** A list reference of an answer (see src/api/lists/) as the frozen list. */
  list(ref) {
    const { gen } = ref;
    if (ref.add === undefined) return this.lists.get(gen);
    let list;
    const add = ref.add;
    if (ref.pick !== undefined) {
      const base = this.lists.get(ref.base);
      list = new Array(ref.pick.length);
      let j = 0;
      for (let i = 0; i < ref.pick.length; i++) {
        const p = ref.pick[i];
        list[i] = p >= 0 ? base[p] : unpack(add[j++]);
      }
    } else {
      list = new Array(add.length);
      for (let i = 0; i < add.length; i++) list[i] = unpack(add[i]);
    }
    freeze(list);
    this.lists.delete(gen);
    this.lists.set(gen, list);
    if (this.lists.size > LIST_KEEP) this.lists.delete(this.lists.keys().next().value);
    this.last = gen;
    return list;
  }

  /** A context `{gen, session_id?, files?}` of an answer as the frozen object requests share. */
  context(c) {
    const key = `${c.gen}:${c.files === undefined ? 0 : 1}`;
    const have = this.contexts.get(key);
    if (have !== undefined) {
      // The answer named the list; keep it current (and the most recent) for later diffs.
      if (c.files !== undefined) this.list(c.files);
      return have;
    }
    const ctx = {};
    if (c.session_id !== undefined) ctx.session_id = c.session_id;
    if (c.files !== undefined) ctx.files = this.list(c.files);
    freeze(ctx);
    this.contexts.set(key, ctx);
    if (this.contexts.size > LIST_KEEP * 2) this.contexts.delete(this.contexts.keys().next().value);
    return ctx;
  }

  clear() {
    this.lists.clear();
    this.contexts.clear();
    this.last = 0;
  }
}

/** `contextForCall`'s fields as the host receives them (frozen). */
function fieldsOf(fields, shared) {
  if (fields._injected_files !== undefined) fields._injected_files = shared.list(fields._injected_files);
  if (fields.codeSessionContext !== undefined) fields.codeSessionContext = shared.context(fields.codeSessionContext);
  return freeze(fields);
}

/** Requests of a batch answer with their shared contexts; remembers which context each was given. */
function requestsOf(requests, contexts, handed) {
  for (const r of requests) {
    if (r.ctx !== undefined) {
      r.codeSessionContext = contexts[r.ctx];
      delete r.ctx;
    }
    handed.set(r.id, r.codeSessionContext);
  }
  return requests;
}

// ---------------------------------------------------------------------------------------------------
// The Gate

/** Reads `key` of a host object, as a refusal if a getter or Proxy trap throws. */
function member(obj, key, path) {
  try {
    return obj[key];
  } catch (e) {
    throw gateError('invalid_value', dot(path, key), `${dot(path, key)}: reading it threw: ${describe(e)}`, e);
  }
}

/**
 * Whether `v` is an object that is no array and no JsonText; `false` for one that cannot be inspected
 * (a revoked Proxy), which the writer then reads and refuses with its path.
 */
function isRecord(v) {
  if (v === null || typeof v !== 'object') return false;
  try {
    return !Array.isArray(v) && jsonTextKind(v) === NOT_JSON_TEXT;
  } catch {
    return false;
  }
}

/**
 * Which instance of the module is current: `recover()` moves it on, and a gate made in an earlier one
 * refuses every call (code "poisoned") without touching the new instance.
 */
let epoch = 0;

/**
 * Frees the module's side of a gate the host dropped without `free()`, in the instance it was made in
 * only (a handle means nothing in another one).
 */
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((/** @type {{ handle: number, epoch: number }} */ held) => {
        if (held.epoch === epoch && ready && !guard.poisoned) core.free(held.handle);
      })
    : undefined;

/**
 * The code-session gate of one conversation: the SDK's session-aware tool set, its session map and its
 * batch bookkeeping, without any runtime of its own (no fetch, no timers, no clock: writers take `now`).
 */
export class Gate {
  /** The gate's handle in the module. */
  #handle = 0;
  #freed = false;
  #profile;
  /** Verdict bits by name (from the module, which never changes its mind for a gate). */
  #verdicts;
  /** Bumped by every call that may write the session map. */
  #version = 0;
  /** `contextForCall` answers: path → name → key → thread → { version, dep, value }. */
  #answers = new Map();
  #answerCount = 0;
  /** The last answer, checked first. */
  #last = { version: -1, path: null, name: null, options: null, key: null, thread: null, value: null };
  #shared = new Shared();
  /** batch id → (request id → the context object handed out). */
  #handed = new Map();
  /** The instance this gate lives in (see `epoch`). */
  #epoch = epoch;

  /** What a call does before anything else when the fast check fails: refuse if the module is
   * poisoned or not initialised, or if this gate's instance was replaced by `recover()`. */
  #enter(what) {
    guard.check(what);
    if (this.#epoch !== epoch) {
      throw gateError(
        'poisoned',
        '',
        `${what}: this gate lived in the WebAssembly instance that trapped, which recover() replaced; restore it with Gate.fromSnapshot(its last snapshot)`,
      );
    }
  }

  /**
   * A gate for one conversation. `config` may set the SDK `profile` ("3.9" default, or "3.6"),
   * `codeSessionToolNames`, the default `codeSessionKey`, `toolExecution.sandbox`,
   * `eagerEventToolExecution.excludeToolNames`, and initial `sessions` (`[[key, entry], …]`; `null` for
   * a gate without a session map). Unknown keys are refused.
   */
  constructor(config) {
    if (!live.open) guard.check('new Gate');
    const [texts, total] = textsOf(C.newParams, [config]);
    const used = core.write(texts, total);
    const len = core.create(1, used);
    core.released(used);
    const [handle, info] = answer(core, len);
    this.#handle = handle;
    finalizer?.register(this, { handle, epoch }, this);
    this.#profile = info.profile;
    this.#verdicts = new Map(info.verdicts);
  }

  /**
   * Runs gate operation `op`. One that may change the session map (the module's `gateWrites`, which
   * the module checks in its debug builds) moves this gate's version on, so that cached
   * `contextForCall` answers are asked for again. `values` are its arguments in the order of its
   * parameters, whose names (the module's) root the paths of refusals.
   */
  #call(op, values, raw) {
    return answer(core, this.#run(op, values, raw));
  }

  /**
   * Runs gate operation `op` on `values` (and `raw`, an argument passed as it is: a string already
   * written, or bytes); the length of its answer.
   * @param {string} op @param {unknown[]} values @param {string | Uint8Array} [raw]
   */
  #run(op, values, raw) {
    this.#live(op);
    const n = OP[op];
    const [texts, total] = textsOf(C.gateParams[n], values);
    // Reading the arguments ran the host's getters, which may have freed this gate or replaced the
    // instance: nothing is entered for a gate that is gone.
    this.#live(op);
    let units = total;
    let bytes = 0;
    if (raw !== undefined) {
      texts.push(raw);
      if (typeof raw === 'string') units += raw.length;
      else bytes = raw.length;
      if (units + bytes > LIMIT.maxInputBytes) {
        throw gateError('limit_exceeded', 'body', `body: more than ${LIMIT.maxInputBytes} bytes in one call (maxInputBytes)`);
      }
    }
    const used = core.write(texts, units, bytes);
    if (WRITES.has(op)) this.#version++;
    const len = core.call(this.#handle, n, texts.length, used);
    core.released(used);
    return len;
  }

  /** Refuses a call on a gate that was freed or whose instance `recover()` replaced. */
  #live(op) {
    if (this.#epoch !== epoch) this.#enter(`Gate.${op}`);
    if (this.#freed) throw gateError('freed', '', `Gate.${op}: the gate was freed (free() or a using block ended)`);
  }

  /** The SDK profile this gate reproduces. */
  get profile() {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.profile');
    if (this.#freed) throw gateError('freed', '', 'Gate.profile: the gate was freed (free() or a using block ended)');
    return this.#profile;
  }

  /** Every gate site's verdict for `name`, packed in bits (decode with `verdictBits()`). */
  verdict(name) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.verdict');
    if (typeof name === 'string') {
      const v = this.#verdicts.get(name);
      if (v !== undefined) return v;
    }
    const v = this.#call('verdict', [name]);
    // Any other name's verdict is 0 for good; remember a bounded number of them.
    if (this.#verdicts.size < 4096) this.#verdicts.set(name, v);
    return v;
  }

  /**
   * Every name with a non-zero verdict, mapped to its bits (as `verdict(name)` returns them): any name
   * not in the map has verdict 0.
   */
  verdictTable() {
    return new Map(this.#call('verdictTable', []));
  }

  /** Every gate site's verdict for `name`, as an object. */
  classify(name) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.classify');
    return this.#call('classify', [name]);
  }

  /** Whether the stream layer would never prestart `name` for an agent with `options.codeSessionKey`. */
  isEagerExcluded(name, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.isEagerExcluded');
    return this.#call('isEagerExcluded', [name, options]);
  }

  /**
   * Why `name` passes or fails every gate site (G1–G7 and `participatesInCodeSession`) for a call with
   * `options` (`codeSessionKey`, `threadId`): each site's rule, the eager exclusion's first deciding
   * rule and what it consulted, and the runtime hint a participant would carry.
   */
  explain(name, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.explain');
    return this.#call('explain', [name, options]);
  }

  /** Adds `name` to this run's eager suppressions (what an eager mismatch does by itself). */
  suppressEagerTool(name) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.suppressEagerTool');
    this.#call('suppressEagerTool', [name]);
  }

  /**
   * What one call on `path` ("direct" | "event" | "eager") receives from the session: the invoke params
   * (`session_id`, `_injected_files`, `_runtime_session_hint`) or the request fields
   * (`codeSessionContext`, `runtimeSessionHint`, 3.9 `codeSessionBaselineId`). Answers, contexts and
   * file lists are frozen and shared until the partition changes: replace them, never mutate them.
   */
  contextForCall(path, name, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.contextForCall');
    const last = this.#last;
    let key;
    let thread;
    if (options !== undefined && options !== null) {
      // The options object of the last answer was a record then and still is; any other (a revoked
      // Proxy included) is read by the module's way, which names what is wrong with it.
      try {
        if (options !== last.options && !isRecord(options)) return this.#ask(path, name, options, undefined).value;
        key = options.codeSessionKey;
        thread = options.threadId;
      } catch {
        return this.#ask(path, name, options, undefined).value;
      }
    }
    // The last answer was given for valid arguments only, so arguments equal to them are valid too (a
    // freed gate's last answer never matches).
    if (
      last.version === this.#version &&
      last.path === path &&
      last.name === name &&
      last.key === key &&
      last.thread === thread
    ) {
      return last.value;
    }
    if ((key !== undefined && typeof key !== 'string') || (thread !== undefined && typeof thread !== 'string')) {
      return this.#ask(path, name, options, undefined).value;
    }
    if (typeof path !== 'string' || typeof name !== 'string') return this.#ask(path, name, options, undefined).value;
    // path → name → key → thread: exact keys (undefined is a key of its own), no string building.
    let byName = this.#answers.get(path);
    if (byName === undefined) this.#answers.set(path, (byName = new Map()));
    let byKey = byName.get(name);
    if (byKey === undefined) byName.set(name, (byKey = new Map()));
    let byThread = byKey.get(key);
    if (byThread === undefined) byKey.set(key, (byThread = new Map()));
    const entry = byThread.get(thread);
    // The module reads the two members as they were read for the cache, not a second time.
    const read = options === undefined || options === null ? options : new ReadOptions(options, new Map([['codeSessionKey', key], ['threadId', thread]]));
    const next = this.#ask(path, name, read, entry);
    if (next !== entry) {
      // A bounded cache: hosts with very many threads or names start over rather than grow without end.
      if (++this.#answerCount > 4096) {
        this.#answers.clear();
        this.#answerCount = 0;
      }
      byThread.set(thread, next);
    }
    this.#last = { version: this.#version, path, name, options, key, thread, value: next.value };
    return next.value;
  }

  /**
   * The answer for a call whose cached `entry` (if any) is out of date: the module says whether the
   * partition state it depended on still holds (`same`), or builds the new one.
   */
  #ask(path, name, options, entry) {
    if (entry !== undefined && (entry.version === this.#version || entry.dep === null)) {
      entry.version = this.#version;
      return entry;
    }
    const have = entry === undefined ? undefined : entry.dep;
    const out = this.#call('contextForCall', [path, name, options, have, this.#shared.last]);
    if (out.same === 1 && entry !== undefined) {
      entry.version = this.#version;
      return entry;
    }
    return { version: this.#version, dep: out.dep, value: fieldsOf(out.fields, this.#shared) };
  }

  /**
   * `updateCodeSession`: folds one artifact (`{ session_id, files?, deleted_files? }`) into partition
   * `key`. `options.baseline` is the context the request was given (3.9); `options.now` stamps
   * `lastUpdated`. `artifact` may be its JSON text as a `JsonText`.
   */
  updateSession(key, artifact, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.updateSession');
    this.#call('updateSession', [key, artifact, options]);
  }

  /**
   * Folds results without request bookkeeping, as the SDK's fold methods do when called directly:
   * `path` "event" (`[{ name, status, artifact? }]`, `name: null` = request not found) or "direct"
   * (`[{ id?, name, status, artifact?, errorHandlerOwned?, isCommand? }]`). `results` may be their JSON
   * text as a `JsonText`.
   */
  foldResults(path, results, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.foldResults');
    this.#call('foldResults', [path, results, options]);
  }

  /**
   * Starts an in-process batch: returns `{ id, injections }`, one invoke-params object per call, all
   * read from the pre-batch partition.
   */
  beginDirectBatch(calls, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.beginDirectBatch');
    const out = this.#call('beginDirectBatch', [calls, options, this.#shared.last]);
    for (const f of out.injections) {
      if (f._injected_files !== undefined) f._injected_files = this.#shared.list(f._injected_files);
    }
    return out;
  }

  /** Folds a direct batch's outcomes (in call order) with what each call was given. */
  completeDirectBatch(batch, outcomes, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.completeDirectBatch');
    this.#call('completeDirectBatch', [batch, outcomes, options]);
  }

  /**
   * Plans an event batch: returns `{ id, dispatch, rejected, eager }` — the `ToolCallRequest`s to send
   * to the host (with `codeSessionContext`, `runtimeSessionHint`, 3.9 `codeSessionBaselineId`), the
   * calls the planner refused, and the calls answered by eager prestarts.
   */
  beginEventBatch(calls, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.beginEventBatch');
    const out = this.#call('beginEventBatch', [calls, options, this.#shared.last]);
    const contexts = out.contexts.map((c) => this.#shared.context(c));
    const handed = new Map();
    this.#handed.set(out.id, handed);
    return { id: out.id, dispatch: requestsOf(out.dispatch, contexts, handed), rejected: out.rejected, eager: out.eager };
  }

  /**
   * The requests as the host left them, for the module: a context that is still the very object handed
   * out is `unchanged` (and not read again); anything else is read as the host's.
   */
  #returned(batch, options) {
    if (!isRecord(options)) return options;
    const requests = member(options, 'requests', 'options');
    const out = { results: member(options, 'results', 'options'), rejected: member(options, 'rejected', 'options') };
    const now = member(options, 'now', 'options');
    if (now !== undefined) out.now = now;
    if (!Array.isArray(requests)) {
      out.requests = requests;
      return out;
    }
    const handed = typeof batch === 'number' ? this.#handed.get(batch) : undefined;
    const n = lengthOf(requests, 'options.requests');
    out.requests = new Array(n);
    for (let i = 0; i < n; i++) {
      const at = `options.requests[${i}]`;
      const r = read(requests, i, at);
      if (!isRecord(r)) {
        out.requests[i] = r;
        continue;
      }
      const id = member(r, 'id', at);
      const ctx = member(r, 'codeSessionContext', at);
      out.requests[i] =
        handed !== undefined && typeof id === 'string' && handed.has(id) && handed.get(id) === ctx
          ? { id, unchanged: true }
          : { id, codeSessionContext: ctx };
    }
    return out;
  }

  /**
   * Completes an event batch: `options.requests` are the dispatched requests as the host left them,
   * `options.results` the host's `ToolExecuteResult`s, or `options.rejected: true`. Returns "folded",
   * or "failed" when the dispatch or a consumed prestart was rejected.
   */
  completeEventBatch(batch, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.completeEventBatch');
    const end = this.#call('completeEventBatch', [batch, this.#returned(batch, options)]);
    this.#handed.delete(batch);
    return end;
  }

  /**
   * The forwarding path (beyond the SDK): the `/exec` request of dispatched call `id` of event batch
   * `batch`, built from what the batch planned for it, as `{ endpoint, headers, body, droppedFields,
   * refs, sessionId?, runtimeSessionHint?, files? }` with `body` the JSON text to send.
   */
  sandboxRequest(batch, id, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.sandboxRequest');
    let bytes = false;
    let values = [batch, id, options];
    if (isRecord(options)) {
      const asBytes = read(options, 'bodyBytes', 'bodyBytes');
      bytes = asBytes === true;
      values = [batch, id, new ReadOptions(options, new Map([['bodyBytes', asBytes]]))];
    }
    const len = this.#run('sandboxRequest', values, undefined);
    const out = core.output(len);
    // The head's JSON, a line break, the body (JSON text holds no raw line break).
    const cut = out.indexOf(10);
    if (out[0] === 1 || cut < 0) throw refusal(core.read(len).slice(1));
    const head = JSON.parse(decoder.decode(out.subarray(0, cut)));
    head.body = bytes ? out.slice(cut + 1) : decoder.decode(out.subarray(cut + 1));
    return head;
  }

  /**
   * The forwarding path: reads the sandbox's answer (`{ status, body, retryAfter? }`, `body` its text
   * or bytes) to dispatched call `id` of event batch `batch` and keeps its artifact for
   * `completeEventBatch`. Returns `{ stdout, stderr, exitCode?, sessionId, files, artifact? }`; a failed
   * call throws the sandbox's `CodeSessionGateError` (with `status`) and keeps nothing.
   */
  sandboxAnswer(batch, id, answer) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.sandboxAnswer');
    if (!isRecord(answer)) return this.#call('sandboxAnswer', [batch, id, answer]);
    const body = read(answer, 'body', 'body');
    // The body goes as it is, never as a JSON string: its text or its bytes, after a space (so that an
    // empty body is not `undefined`), which the module takes off.
    let raw;
    if (typeof body === 'string') {
      if (!isWellFormed(body)) throw gateError('lone_surrogate', 'body', 'body: holds an unpaired UTF-16 surrogate, which no answer read as UTF-8 can');
      raw = ' ' + body;
    }
    else if (body instanceof ArrayBuffer) raw = new Uint8Array(body);
    else if (ArrayBuffer.isView(body)) raw = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    const options = new ReadOptions(answer, new Map([['body', raw === undefined ? body : undefined]]));
    return this.#call('sandboxAnswer', [batch, id, options], raw);
  }

  /**
   * The stream layer's eager prestart of a final tool-call chunk: returns `{ id, requests }` (the
   * requests to dispatch now; excluded calls are left out) or `null` when the planner refused the set.
   */
  prestartEager(calls, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.prestartEager');
    const out = this.#call('prestartEager', [calls, options, this.#shared.last]);
    if (out === null) return null;
    const contexts = out.contexts.map((c) => this.#shared.context(c));
    const handed = new Map();
    this.#handed.set(out.id, handed);
    return { id: out.id, requests: requestsOf(out.requests, contexts, handed) };
  }

  /** Records the host's handling of a prestart: `options.requests`, and `options.results` or `rejected`. */
  settleEager(prestart, options) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.settleEager');
    this.#call('settleEager', [prestart, this.#returned(prestart, options)]);
    this.#handed.delete(prestart);
  }

  /** `seedRunInitialSessions`: merges `initialSessions` (`[[key, entry], …]`) into the session map. */
  seedRun(initialSessions, agents) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.seedRun');
    this.#call('seedRun', [initialSessions, agents]);
  }

  /** `seedAgentInitialSessions`: seeds a subagent child from its agents' `initialSessions`. */
  seedAgents(agents) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.seedAgents');
    this.#call('seedAgents', [agents]);
  }

  /** The session map as `[[key, entry], …]` (a copy), or `null` for a gate without one. */
  sessions() {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.sessions');
    return this.#call('sessions', []);
  }

  /** The entry of partition `key` (a copy), or `undefined`. */
  session(key) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.session');
    return this.#call('session', [key]);
  }

  /** Replaces the session map (`[[key, entry], …]`, or `null` for none), e.g. restored from a store. */
  setSessions(sessions) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.setSessions');
    this.#call('setSessions', [sessions]);
    this.#shared.clear();
  }

  /** Ends the run: forgets eager prestarts, eager suppressions and pending batches (sessions stay). */
  resetRun() {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.resetRun');
    this.#call('resetRun', []);
    this.#handed.clear();
  }

  /** Forgets a pending batch or prestart without folding anything; `true` if there was one. */
  abandon(batch) {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.abandon');
    const had = this.#call('abandon', [batch]);
    this.#handed.delete(batch);
    return had;
  }

  /**
   * The gate's whole state as a versioned snapshot document (JSON text): profile, configuration and its
   * fingerprint, every partition with its files, and the run's eager suppressions. Batches in flight
   * are not included. `Gate.fromSnapshot(text)` restores it; saving again gives the same bytes.
   */
  snapshot() {
    if (!live.open || this.#epoch !== epoch) this.#enter('Gate.snapshot');
    return this.#call('snapshot', []);
  }

  /**
   * A gate restored from `snapshot` (the text of `gate.snapshot()`, or that document parsed). With
   * `config` (without `sessions`), the snapshot must have been written under that configuration (code
   * "config_mismatch"). Everything is validated before the gate exists: an unknown `version` is
   * "unsupported_version"; wrong shapes, an edited fingerprint or a partition given twice are refused
   * with their path under `snapshot`.
   */
  static fromSnapshot(snapshot, config) {
    if (!live.open) guard.check('Gate.fromSnapshot');
    const gate = new Gate();
    try {
      const info = gate.#call('restore', [snapshot, config]);
      gate.#profile = info.profile;
      gate.#verdicts = new Map(info.verdicts);
    } catch (e) {
      gate.free();
      throw e;
    }
    return gate;
  }

  /** Releases the gate's memory in the module; later calls throw (code "freed"). */
  free() {
    // A gate of a replaced instance has nothing to free in the current one.
    if (this.#freed || this.#epoch !== epoch || guard.poisoned) return;
    this.#freed = true;
    // No cached answer may outlive the gate: later calls reach #call, which refuses them (code "freed").
    this.#last = { version: -1, path: null, name: null, options: null, key: null, thread: null, value: null };
    this.#answers.clear();
    this.#verdicts = new Map();
    finalizer?.unregister(this);
    core.free(this.#handle);
  }

  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.free();
  }
}

// ---------------------------------------------------------------------------------------------------
// Functions

/**
 * `toInjectedFileRef(file, execSessionId)`: narrows a stored file to the wire shape the sandbox receives
 * (`resource_id ?? id`, `storage_session_id ?? execSessionId`, `kind` skill-with-version / agent /
 * user; other keys dropped).
 */
export function toInjectedFileRef(file, execSessionId) {
  if (!live.open) guard.check('toInjectedFileRef');
  return callStaticOp('toInjectedFileRef', [file, execSessionId]);
}

/**
 * `toInjectedFileRef(file, execSessionId)` with its reasons: the narrowed file, the rule that gave its
 * kind, where `resource_id` and `storage_session_id` came from (`own`, `fallback`, `missing`) and the
 * keys the wire shape dropped.
 */
export function explainInjectedFileRef(file, execSessionId) {
  if (!live.open) guard.check('explainInjectedFileRef');
  return callStaticOp('explainInjectedFileRef', [file, execSessionId]);
}

/**
 * `diffSessions(before, after)`: what a write did to one partition (entries as `gate.session(key)`
 * returns them; `null` or `undefined` for no entry): the exec session before and after, and each
 * file's fate (`added`, `kept`, `replaced`, `deleted`), matched by name.
 */
export function diffSessions(before, after) {
  if (!live.open) guard.check('diffSessions');
  return callStaticOp('diffSessions', [before, after]);
}

/**
 * `buildToolExecutionRequestPlan(calls)`: which calls become requests (with their parsed and, under
 * profile 3.9, schema-coerced args and their session fields), which are rejected for their args, or
 * `{ aborted: true }` when the planner gives up on the batch.
 */
export function planToolRequests(calls, options) {
  if (!live.open) guard.check('planToolRequests');
  return callStaticOp('planToolRequests', [calls, options]);
}

/** `buildExecRequest({ tool, profile?, factory?, toolCall?, modelArgs })`: `{ endpoint, headers, body }`. */
export function buildExecRequest(options) {
  if (!live.open) guard.check('buildExecRequest');
  return callStaticOp('buildExecRequest', [options]);
}

/**
 * `readExecResponse({ tool, profile?, factory?, endpoint?, response })`: `{ status: "completed",
 * artifact }` or `{ status: "tool_call_required" }`.
 */
export function readExecResponse(options) {
  if (!live.open) guard.check('readExecResponse');
  return callStaticOp('readExecResponse', [options]);
}

/**
 * `buildSandboxRequest({ dialect, tool, run?, modelArgs?, context?, userId?, entityId?, timeoutMs?,
 * credential?, executionProfile?, requestId? })`: the `/exec` request of one call in a sandbox dialect
 * ("codeapi" | "librecodeinterpreter"), as `{ endpoint, headers, body, droppedFields, refs }`. The
 * session, files and runtime hint come from `context` (what `contextForCall` or an event batch gave the
 * call); trusted fields of `modelArgs` are dropped and named in `droppedFields`; refs the server would
 * refuse are repaired or left out, each change described in `refs`.
 */
export function buildSandboxRequest(options) {
  if (!live.open) guard.check('buildSandboxRequest');
  return callStaticOp('buildSandboxRequest', [options]);
}

/**
 * `readSandboxResponse({ dialect, status, body, retryAfter? })`: the sandbox's answer (HTTP status, body
 * text, `Retry-After` header) as `{ artifact, stdout, stderr, exitCode? }`, the artifact ready to fold.
 * A failed call throws a `CodeSessionGateError` whose `code` says why ("invalid_request",
 * "unauthorized", "forbidden_file_ref", "profile_mismatch", "rate_limited", "unavailable",
 * "bad_response"), with the HTTP `status` and, when given, `retryAfterSeconds`.
 */
export function readSandboxResponse(options) {
  if (!live.open) guard.check('readSandboxResponse');
  return callStaticOp('readSandboxResponse', [options]);
}

/** `stripTrustedFields(modelArgs)`: `{ args, dropped }`, the arguments without the fields only the gate sets. */
export function stripTrustedFields(modelArgs) {
  if (!live.open) guard.check('stripTrustedFields');
  return callStaticOp('stripTrustedFields', [modelArgs]);
}

/**
 * Replaces a trapped instance (should one ever trap: no input is meant to make it) without restarting
 * the process: every gate of the old instance is retired (its calls throw code "poisoned"; restore it
 * with `Gate.fromSnapshot`), the module is instantiated afresh from `options.module` (a compiled
 * `WebAssembly.Module` or the `.wasm` bytes), and calls work again. Returns `false`, doing nothing, when
 * the instance is not poisoned. The node and workerd entries' `recover()` and the browser entry's
 * `await recover()` supply the module themselves.
 */
export function recover(options) {
  if (!guard.poisoned) return false;
  const x = instantiateSync(sourceOf(options, 'module'), CORE);
  epoch += 1;
  guard.reset();
  loaded(x);
  // The sandbox module is loaded afresh on its next use (or by initSandbox where it must be).
  sandbox = undefined;
  sandboxSource.loaded = false;
  return true;
}

/**
 * The bytes of the modules' linear memories (the core's, and the sandbox module's once loaded): for
 * hosts that watch a long-lived instance (it grows in 64 KiB pages as gates hold more, and never
 * shrinks; bounded partitions keep it flat).
 */
export function memoryBytes() {
  if (!live.open) guard.check('memoryBytes');
  return core.memory.buffer.byteLength + (sandbox === undefined ? 0 : sandbox.memory.buffer.byteLength);
}

/**
 * The gate's input limits (frozen): `maxInputBytes` of JSON text per call, `maxArrayItems` per array,
 * `maxCallsPerBatch`. A call over one is refused with code "limit_exceeded" and changes nothing.
 */
export function limits() {
  if (!live.open) guard.check('limits');
  return LIMIT;
}

/** `TRUSTED_FIELDS`: the keys only the gate may set on a sandbox request (a fresh array). */
export function trustedFields() {
  if (!live.open) guard.check('trustedFields');
  return [...C.trustedFields];
}

/** `CODE_EXECUTION_TOOLS`: the built-in code tools, in the SDK's order (a fresh array). */
export function codeExecutionTools() {
  if (!live.open) guard.check('codeExecutionTools');
  return [...C.codeExecutionTools];
}

/** `CODE_ENV_KINDS`: `["skill", "agent", "user"]` (a fresh array). */
export function codeEnvKinds() {
  if (!live.open) guard.check('codeEnvKinds');
  return [...C.codeEnvKinds];
}

/** The bit of each gate site in `Gate.verdict(name)`: `{ participates: 1, directInject: 2, … }` (frozen). */
export function verdictBits() {
  if (!live.open) guard.check('verdictBits');
  return freeze(Object.fromEntries(C.verdictBits));
}
