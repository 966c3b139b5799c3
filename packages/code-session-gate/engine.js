// The modules' loader and the engine's state: compiles one of the package's two modules from whatever
// source a host has, checks by its exports that it is the one expected, and hands it to its glue, which
// wasm-bindgen generated with it (`code_session_gate.js`, `code_session_sandbox.js`; see
// crates/wasm/boundary) and which instantiates it and holds the instance. A later instance
// (`recover()`) is the glue's generated reset. The entries and the API share it (packages/assemble.mjs
// keeps it a module of its own): what an entry knows of where the modules come from, and what the API
// holds once they are loaded, is one object, `engine`.
import { NODE_FIX, WASM_NAME, gateError } from './errors.js';

/**
 * The engine's state, the one place the layer keeps what it knows of the modules (read as plain
 * properties on hot paths). Set by the API when it loads the modules (modules.js): `core` and `sandbox`
 * (each module's glue, once it holds an instance), `ready` (the core is loaded) and `open` (ready and
 * not poisoned: the guard keeps it), what the core module says of itself once (`constants`, and made
 * from it `ops`, `writes`, `staticOps`, `sandboxOps`, `callKeys`, `limits`), and `epoch` (which instance
 * is current: `recover()` moves it on). Set by the entry that knows: where the sandbox module comes from
 * when no caller passed it (`loadSandbox` returns a compiled module or its bytes: Node, Bun, the inline
 * entry, workerd; `fetchSandbox` resolves to what `instantiate` takes: the browser entry), why the
 * entry's own attempt to load it failed (`sandboxFailure`, for the error of the calls that need it), and
 * the modules' bytes carried inside the JavaScript (`carriedCore`, `carriedSandbox`: base64, set by
 * carried.js where a bundler building for Node took the package's `webpack` or `module` condition, what
 * the node entry compiles when no `.wasm` is beside the bundle it was copied into; left empty where Node
 * loads the package itself, which then never parses the base64 text).
 */
export const engine = {
  /** @type {any} */ core: undefined,
  /** @type {any} */ sandbox: undefined,
  ready: false,
  open: false,
  epoch: 0,
  /** @type {any} */ constants: undefined,
  /** @type {Record<string, number>} */ ops: {},
  /** @type {Set<string>} */ writes: new Set(),
  /** @type {Record<string, number>} */ staticOps: {},
  /** @type {Set<string>} */ sandboxOps: new Set(),
  /** @type {Set<string>} */ callKeys: new Set(),
  /** @type {{ maxInputBytes: number, maxArrayItems: number, maxCallsPerBatch: number }} */ limits: undefined,
  /** @type {(() => unknown) | undefined} */ loadSandbox: undefined,
  /** @type {(() => Promise<unknown>) | undefined} */ fetchSandbox: undefined,
  /** @type {unknown} */ sandboxFailure: undefined,
  /** @type {(() => Uint8Array) | undefined} */ carriedCore: undefined,
  /** @type {(() => Uint8Array) | undefined} */ carriedSandbox: undefined,
};

/**
 * What an entry that loads the modules synchronously does at import (node, bun, inline, workerd, unwasm
 * and the CommonJS entries): instantiates the core from `core()` and leaves `sandbox()` for the first
 * call that needs it. Answers the entry's `recover()`, which replaces a trapped instance with a fresh
 * one from `core()` (`false` when nothing was poisoned).
 * @param {{ initSync(o: { module: unknown }): void, recover(o: { module: unknown }): boolean }} api
 * @param {() => unknown} core a compiled module or its bytes
 * @param {() => unknown} sandbox the same for the sandbox module
 * @returns {() => boolean}
 */
export function startSync(api, core, sandbox) {
  api.initSync({ module: core() });
  engine.loadSandbox = sandbox;
  return () => api.recover({ module: core() });
}

/**
 * The two modules: their names, their files in the package and the exports each must have
 * (wasm-bindgen's names).
 * @type {{ CORE: Kind, SANDBOX: Kind }}
 */
export const { CORE, SANDBOX } = {
  CORE: { name: 'core', file: 'code_session_gate_bg.wasm', exports: ['memory', 'constants', 'rawgate_new', '__wbindgen_start'] },
  SANDBOX: { name: 'sandbox', file: 'code_session_sandbox_bg.wasm', exports: ['memory', 'constants', 'buildSandboxRequest', '__wbindgen_start'] },
};

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
      throw gateError('missing_field', key, `code-session-gate: the options have no ${key}`);
    }
    return /** @type {Record<string, unknown>} */ (options)[key];
  }
  return options;
}

/** @param {unknown} v @param {string} key @param {string} accepted */
const notASource = (v, key, accepted) =>
  gateError(
    'invalid_type',
    key,
    `code-session-gate: ${key} must be ${accepted}, not ${v === null ? 'null' : typeof v === 'object' ? toStringTag(v) : typeof v}`,
  );

/**
 * `glue` holding a new instance of module `kind`, made synchronously from a compiled module or the
 * `.wasm` bytes.
 * @template {Glue} G
 * @param {unknown} source what the caller called `module`
 * @param {Kind} kind
 * @param {G} glue
 * @returns {G}
 */
export function instantiateSync(source, kind, glue) {
  if (isModule(source)) return start(/** @type {WebAssembly.Module} */ (source), kind, glue);
  if (isBytes(source)) return start(new WebAssembly.Module(/** @type {BufferSource} */ (source)), kind, glue);
  throw notASource(source, 'module', 'a WebAssembly.Module or the bytes of the .wasm');
}

/**
 * `glue` once it holds a new instance of compiled `module`, whose exports are checked first: a module
 * that lacks one of those of module `kind` is refused by name rather than by a link error.
 * @template {Glue} G
 * @param {WebAssembly.Module} module @param {Kind} kind @param {G} glue
 * @returns {G}
 */
function start(module, kind, glue) {
  const names = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  const missing = kind.exports.filter((n) => !names.has(n));
  if (missing.length > 0) {
    throw gateError(
      'not_wasm',
      '',
      `code-session-gate: the WebAssembly module given is not this package's ${kind.file} (it has no ${missing.join(', ')}): ` +
        `pass the ${kind.file} of the same package version`,
    );
  }
  // The glue holds one instance: a later one (after recover(), or a second load) replaces it with the
  // generated reset, which instantiates the module the glue first took afresh.
  if (started.has(glue)) glue.__wbg_reset_state();
  else glue.__wbg_finalize_init(new WebAssembly.Instance(module, glue.__wbg_get_imports()), module);
  started.add(glue);
  return glue;
}

/** The glue modules that hold an instance. */
const started = new WeakSet();

/**
 * `glue` holding a new instance of module `kind`, from a compiled module, the `.wasm` bytes, a URL or
 * path to fetch, a `Response` (or a promise of any of them).
 * @template {Glue} G
 * @param {unknown} source
 * @param {Kind} kind
 * @param {G} glue
 * @returns {Promise<G>}
 */
export async function instantiate(source, kind, glue) {
  let s = await source;
  if (typeof s === 'string' || s instanceof URL || (typeof Request === 'function' && s instanceof Request)) {
    s = await fetch(/** @type {RequestInfo | URL} */ (s));
  }
  if (typeof Response === 'function' && s instanceof Response) {
    const wasmType = (s.headers.get('content-type') ?? '').split(';')[0].trim() === 'application/wasm';
    if (wasmType && typeof WebAssembly.compileStreaming === 'function') {
      return start(await WebAssembly.compileStreaming(s), kind, glue);
    }
    s = await s.arrayBuffer();
  }
  if (isModule(s)) return start(/** @type {WebAssembly.Module} */ (s), kind, glue);
  if (isBytes(s)) return start(await WebAssembly.compile(/** @type {BufferSource} */ (s)), kind, glue);
  throw notASource(s, 'module_or_path', 'a WebAssembly.Module, the bytes of the .wasm, a URL, a path or a Response');
}

/**
 * `read(path)` (the Node entries' `readFileSync`), or the typed "wasm_not_found" error, not an ENOENT,
 * when the `.wasm` at `path` cannot be read (the JavaScript bundled or copied without it beside).
 * @template T @param {(path: string) => T} read @param {string} path @returns {T}
 */
export function readWasm(read, path) {
  try {
    return read(path);
  } catch (e) {
    throw gateError(
      'wasm_not_found',
      '',
      `code-session-gate: cannot read its WebAssembly module at ${path}: ${e instanceof Error ? e.message : String(e)} ` +
        `(the JavaScript was bundled or copied without the ${WASM_NAME} beside it).${NODE_FIX}`,
      e,
    );
  }
}

/**
 * One of the two modules: its name (what it says it is), its file in the package and the exports it
 * must have.
 * @typedef {{ name: string, file: string, exports: string[] }} Kind
 */

/**
 * A module's generated glue (wasm-bindgen `--target web`, two functions exported by
 * packages/assemble.mjs): it makes the import object, holds the instance it is given
 * (`__wbg_finalize_init`), replaces it with a new one (`__wbg_reset_state`), and answers its exports
 * (`initSync()` once it holds one).
 * @typedef {{
 *   __wbg_get_imports(): WebAssembly.Imports,
 *   __wbg_finalize_init(instance: WebAssembly.Instance, module: WebAssembly.Module): unknown,
 *   __wbg_reset_state(): void,
 *   initSync(module?: unknown): { memory: WebAssembly.Memory },
 * }} Glue
 */
