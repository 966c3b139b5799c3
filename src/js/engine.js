// The module's loader: instantiates a code-session-gate module (it imports nothing, so the import
// object is empty) and checks that it is one, by its exports (see src/bindings/). No generated glue:
// a new instance is all that `recover()` needs.
import { packageError } from './guard.js';

/** What a module must export to be ours (src/bindings/exports.rs). */
const EXPORTS = ['memory', 'csg_input', 'csg_output', 'csg_new', 'csg_call', 'csg_static', 'csg_free', 'csg_constants'];

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
 * The module source of an `init` / `initSync` argument: `options[key]` of an options object, or the
 * argument itself (the older positional form). `key` also names it in refusals.
 * @param {unknown} options
 * @param {'module' | 'module_or_path'} key
 */
export function sourceOf(options, key) {
  if (options !== null && typeof options === 'object' && Object.getPrototypeOf(options) === Object.prototype) {
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
 * The raw exports of a new instance of `module`, checked.
 * @param {WebAssembly.Instance} instance
 * @returns {Engine}
 */
function engineOf(instance) {
  const x = /** @type {Record<string, any>} */ (instance.exports);
  const missing = EXPORTS.filter((n) => x[n] === undefined);
  if (missing.length > 0) {
    throw packageError(
      'not_wasm',
      `code-session-gate: the WebAssembly module given is not this package's module (it has no ${missing.join(', ')}): ` +
        'pass the code_session_gate_bg.wasm of the same package version',
    );
  }
  return /** @type {Engine} */ (x);
}

/**
 * A new instance, made synchronously from a compiled module or the `.wasm` bytes.
 * @param {unknown} source
 * @param {'module' | 'module_or_path'} [key]
 * @returns {Engine}
 */
export function instantiateSync(source, key = 'module') {
  if (isModule(source)) return engineOf(new WebAssembly.Instance(/** @type {WebAssembly.Module} */ (source), {}));
  if (isBytes(source)) {
    const module = new WebAssembly.Module(/** @type {BufferSource} */ (source));
    return engineOf(new WebAssembly.Instance(module, {}));
  }
  throw notASource(source, key, 'a WebAssembly.Module or the bytes of the .wasm');
}

/**
 * A new instance from a compiled module, the `.wasm` bytes, a URL or path to fetch, a `Response` (or a
 * promise of any of them).
 * @param {unknown} source
 * @returns {Promise<Engine>}
 */
export async function instantiate(source) {
  let s = await source;
  if (typeof s === 'string' || s instanceof URL || (typeof Request === 'function' && s instanceof Request)) {
    s = await fetch(/** @type {RequestInfo | URL} */ (s));
  }
  if (typeof Response === 'function' && s instanceof Response) {
    const wasmType = (s.headers.get('content-type') ?? '').split(';')[0].trim() === 'application/wasm';
    if (wasmType && typeof WebAssembly.instantiateStreaming === 'function') {
      return engineOf((await WebAssembly.instantiateStreaming(s, {})).instance);
    }
    s = await s.arrayBuffer();
  }
  if (isModule(s)) return engineOf(await WebAssembly.instantiate(/** @type {WebAssembly.Module} */ (s), {}));
  if (isBytes(s)) return engineOf((await WebAssembly.instantiate(/** @type {BufferSource} */ (s), {})).instance);
  throw notASource(s, 'module_or_path', 'a WebAssembly.Module, the bytes of the .wasm, a URL, a path or a Response');
}

/**
 * The raw exports of one instance (src/bindings/exports.rs); lengths and addresses are unsigned.
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
