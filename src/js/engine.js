// The modules' loader and channel: instantiates one of the package's two modules (they import
// nothing, so the import object is empty), checks by its exports that it is the one expected (see
// src/bindings/), and moves the arguments and answers of its calls through its memory. No generated
// glue: a new instance is all that `recover()` needs.
import { packageError } from './guard.js';

/**
 * Where the sandbox module comes from when no caller passed it, set by the entry that knows: `sync`
 * returns a compiled module or its bytes (Node, Bun, the inline entry, workerd), `fetch` resolves to
 * something `instantiate` takes (the browser entry); `failure` is why the entry's own attempt to load
 * it failed, for the error of the calls that need it; `loaded` says whether it is (set by api.js).
 * @type {{ sync?: () => unknown, fetch?: () => Promise<unknown>, failure?: unknown, loaded?: boolean }}
 */
export const sandboxSource = {};

/**
 * The modules' bytes carried inside the JavaScript (base64), set by `carried.js` where a bundler
 * building for Node took the package's `webpack` or `module` condition (`node-bundled.js`): what the node entry
 * compiles when no `.wasm` is beside the bundle it was copied into. Left empty where Node loads the
 * package itself, which then never parses the base64 text.
 * @type {{ core?: () => Uint8Array, sandbox?: () => Uint8Array }}
 */
export const carried = {};

/** What each module must export (src/bindings/exports.rs, `export_module!`). */
const COMMON = ['memory', 'csg_input', 'csg_output', 'csg_static', 'csg_constants'];
/** The two modules: their files in the package and their exports. */
export const CORE = { file: 'code_session_gate_bg.wasm', exports: [...COMMON, 'csg_new', 'csg_call', 'csg_free'] };
export const SANDBOX = { file: 'code_session_sandbox_bg.wasm', exports: COMMON };

const toStringTag = (v) => Object.prototype.toString.call(v);

/**
 * Whether `v` is a compiled module, also one made in another realm (a `vm` context, a bundler's
 * `.wasm?module` import), where `instanceof WebAssembly.Module` is false.
 * @param {unknown} v
 */
const isModule = (v) => v instanceof WebAssembly.Module || toStringTag(v) === '[object WebAssembly.Module]';

/** @param {unknown} v */
const isBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v) || toStringTag(v) === '[object ArrayBuffer]';

/**
 * Whether an `init` argument is an options object (a plain object), not a module source itself.
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
export const isOptions = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/**
 * The module source of an `init` / `initSync` argument: `options[key]` of an options object, or the
 * argument itself (the older positional form). `key` also names it in refusals.
 * @param {unknown} options
 * @param {'module' | 'module_or_path'} key
 */
export function sourceOf(options, key) {
  if (isOptions(options)) {
    if (!(key in options)) {
      throw packageError('missing_field', `code-session-gate: the options have no ${key}`, undefined, key);
    }
    return /** @type {Record<string, unknown>} */ (options)[key];
  }
  return options;
}

/** @param {unknown} v @param {string} key @param {string} accepted */
const notASource = (v, key, accepted) =>
  packageError(
    'invalid_type',
    `code-session-gate: ${key} must be ${accepted}, not ${v === null ? 'null' : typeof v === 'object' ? toStringTag(v) : typeof v}`,
    undefined,
    key,
  );

/**
 * The raw exports of a new instance, checked to be those of module `kind`.
 * @param {WebAssembly.Instance} instance
 * @param {Kind} kind
 * @returns {Engine}
 */
function engineOf(instance, kind) {
  const x = /** @type {Record<string, any>} */ (instance.exports);
  const missing = kind.exports.filter((n) => x[n] === undefined);
  if (missing.length > 0) {
    throw packageError(
      'not_wasm',
      `code-session-gate: the WebAssembly module given is not this package's ${kind.file} (it has no ${missing.join(', ')}): ` +
        `pass the ${kind.file} of the same package version`,
    );
  }
  return /** @type {Engine} */ (x);
}

/**
 * A new instance of module `kind`, made synchronously from a compiled module or the `.wasm` bytes.
 * @param {unknown} source
 * @param {Kind} kind
 * @param {string} [key] what the source is called in refusals
 * @returns {Engine}
 */
export function instantiateSync(source, kind, key = 'module') {
  if (isModule(source)) return engineOf(new WebAssembly.Instance(/** @type {WebAssembly.Module} */ (source), {}), kind);
  if (isBytes(source)) {
    const module = new WebAssembly.Module(/** @type {BufferSource} */ (source));
    return engineOf(new WebAssembly.Instance(module, {}), kind);
  }
  throw notASource(source, key, 'a WebAssembly.Module or the bytes of the .wasm');
}

/**
 * A new instance of module `kind` from a compiled module, the `.wasm` bytes, a URL or path to fetch, a
 * `Response` (or a promise of any of them).
 * @param {unknown} source
 * @param {Kind} kind
 * @returns {Promise<Engine>}
 */
export async function instantiate(source, kind) {
  let s = await source;
  if (typeof s === 'string' || s instanceof URL || (typeof Request === 'function' && s instanceof Request)) {
    s = await fetch(/** @type {RequestInfo | URL} */ (s));
  }
  if (typeof Response === 'function' && s instanceof Response) {
    const wasmType = (s.headers.get('content-type') ?? '').split(';')[0].trim() === 'application/wasm';
    if (wasmType && typeof WebAssembly.instantiateStreaming === 'function') {
      return engineOf((await WebAssembly.instantiateStreaming(s, {})).instance, kind);
    }
    s = await s.arrayBuffer();
  }
  if (isModule(s)) return engineOf(await WebAssembly.instantiate(/** @type {WebAssembly.Module} */ (s), {}), kind);
  if (isBytes(s)) return engineOf((await WebAssembly.instantiate(/** @type {BufferSource} */ (s), {})).instance, kind);
  throw notASource(s, 'module_or_path', 'a WebAssembly.Module, the bytes of the .wasm, a URL, a path or a Response');
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Calls whose input exceeds this make the module release its buffer afterwards (as it does). */
const KEEP_INPUT = 1 << 20;

/**
 * One instance as the JavaScript layer talks to it: its exports (those that run Rust wrapped by the
 * caller's guard, `wrap`), and its input buffer, written in place: each argument's UTF-8 byte length
 * (a little-endian u32; 0 for `undefined`), then the texts one after the other.
 */
export class Channel {
  /**
   * @param {Engine} x
   * @param {<F>(f: F, name: string) => F} wrap
   */
  constructor(x, wrap) {
    this.memory = x.memory;
    this.input = wrap(x.csg_input, 'input');
    this.outputAt = x.csg_output;
    this.callStatic = wrap(x.csg_static, 'callStatic');
    this.constants = wrap(x.csg_constants, 'constants');
    this.create = x.csg_new && wrap(x.csg_new, 'new Gate');
    this.call = x.csg_call && wrap(x.csg_call, 'Gate');
    this.free = x.csg_free && wrap(x.csg_free, 'Gate.free');
    /** @type {Uint8Array | null} the input buffer as a view */
    this.view = null;
    this.cap = 0;
    this.at = 0;
  }

  /**
   * Writes `texts` (whose lengths add up to `total` UTF-16 units) into the input buffer; returns the
   * number of bytes used. An argument may also be bytes (`Uint8Array`), written after a space (so that
   * an empty one is not `undefined`), with `bytes` their total length.
   * @param {Array<string | Uint8Array>} texts
   * @param {number} total
   * @param {number} [bytes]
   */
  write(texts, total, bytes = 0) {
    const n = texts.length;
    // UTF-8 takes at most three bytes per UTF-16 unit.
    const need = n * 4 + total * 3 + bytes + 1;
    if (need > this.cap) {
      this.at = this.input(need) >>> 0;
      this.cap = need;
      this.view = null;
    }
    // The memory's buffer is replaced whenever the memory grows.
    let view = this.view;
    if (view === null || view.buffer !== this.memory.buffer) {
      view = this.view = new Uint8Array(this.memory.buffer, this.at, this.cap);
    }
    return n * 4 + encodeTexts(texts, view, n * 4);
  }

  /** After a call that used `used` bytes of the input buffer: the module released a large one. */
  released(/** @type {number} */ used) {
    if (used > KEEP_INPUT) {
      this.view = null;
      this.cap = 0;
    }
  }

  /** The answer of the last call, `len` bytes long, as text. */
  read(/** @type {number} */ len) {
    return decoder.decode(this.output(len));
  }

  /** The answer of the last call, `len` bytes long, as a view of the module's memory (valid until the
   * next call). */
  output(/** @type {number} */ len) {
    return new Uint8Array(this.memory.buffer, this.outputAt() >>> 0, len >>> 0);
  }
}

/** Argument `i`'s byte length, little-endian, at the head of the input buffer `view`. */
function putLength(/** @type {Uint8Array} */ view, /** @type {number} */ i, /** @type {number} */ len) {
  const at = i * 4;
  view[at] = len & 255;
  view[at + 1] = (len >>> 8) & 255;
  view[at + 2] = (len >>> 16) & 255;
  view[at + 3] = len >>> 24;
}

/**
 * Writes `texts` as UTF-8 one after the other into `view` from `start` (room for three bytes per
 * unit), each one's byte length at the head of `view`; returns the bytes written after `start`. One
 * encoding of all texts; when it wrote one byte per unit (ASCII, the common case) each text's byte
 * length is its length, otherwise each text is encoded on its own to learn its length.
 * Bytes (only ever the last argument) are copied after a space.
 * @param {Array<string | Uint8Array>} texts
 * @param {Uint8Array} view
 * @param {number} start
 */
function encodeTexts(texts, view, start) {
  const into = view.subarray(start);
  const bytes = texts[texts.length - 1] instanceof Uint8Array;
  if (!bytes) {
    const joined = texts.length === 1 ? texts[0] : texts.join('');
    const { written } = encoder.encodeInto(joined, into);
    if (written === joined.length) {
      for (let i = 0; i < texts.length; i++) putLength(view, i, /** @type {string} */ (texts[i]).length);
      return written;
    }
  }
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i];
    if (t instanceof Uint8Array) {
      into[at] = 0x20;
      into.set(t, at + 1);
      putLength(view, i, t.length + 1);
      at += t.length + 1;
      continue;
    }
    if (t === '') {
      putLength(view, i, 0);
      continue;
    }
    const r = encoder.encodeInto(t, into.subarray(at));
    putLength(view, i, r.written);
    at += r.written;
  }
  return at;
}

/**
 * One of the two modules: its file in the package and the exports it must have.
 * @typedef {{ file: string, exports: string[] }} Kind
 */

/**
 * The raw exports of one instance (src/bindings/exports.rs); lengths and addresses are unsigned. The
 * sandbox module has no gates (`csg_new`, `csg_call`, `csg_free`).
 * @typedef {{
 *   memory: WebAssembly.Memory,
 *   csg_input(len: number): number,
 *   csg_output(): number,
 *   csg_new(count: number, len: number): number,
 *   csg_call(handle: number, op: number, count: number, len: number): number,
 *   csg_static(op: number, count: number, len: number): number,
 *   csg_free(handle: number): number,
 *   csg_constants(): number,
 * }} Engine
 */
