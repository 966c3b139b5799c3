// `code-session-gate/slim`: the package without any loader. Nothing is fetched or read: the host
// passes the compiled module (or its bytes), e.g. when it bundles or caches the `.wasm` itself.
//
//   import init, { initSync, toInjectedFileRef } from 'code-session-gate/slim';
//   initSync({ module });                  // a WebAssembly.Module (or bytes), synchronously
//   await init({ module_or_path: module }); // or asynchronously (Module, bytes, URL, Response, ...)
//
// CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are live bindings: `undefined` until `initSync()` returns
// or `init()` resolves, then frozen arrays read from the wasm.
import initGlue, { initSync as initSyncGlue, codeExecutionTools, codeEnvKinds } from './api.js';
import { gateError } from './errors.js';

export * from './api.js';

/** @type {readonly string[] | undefined} */
export let CODE_EXECUTION_TOOLS;
/** @type {readonly string[] | undefined} */
export let CODE_ENV_KINDS;

function ready() {
  if (CODE_EXECUTION_TOOLS === undefined) {
    CODE_EXECUTION_TOOLS = Object.freeze(codeExecutionTools());
    CODE_ENV_KINDS = Object.freeze(codeEnvKinds());
  }
}

/**
 * Instantiates the module synchronously (a no-op once initialised). Returns nothing.
 * @param {{ module: WebAssembly.Module | BufferSource }} options
 * @returns {void}
 */
export function initSync(options) {
  initSyncGlue(options);
  ready();
}

/**
 * Instantiates the module (a no-op once initialised); resolves to nothing.
 * @param {unknown} [options] `{ module_or_path }` (or, as wasm-bindgen's init takes it, the source alone):
 *   checked by the loader, which names what is wrong with it
 * @returns {Promise<void>}
 */
export default async function init(options) {
  if (options === undefined && CODE_EXECUTION_TOOLS === undefined) {
    throw gateError(
      'missing_field',
      'options',
      "code-session-gate/slim: init() needs { module_or_path } (a WebAssembly.Module, bytes, URL or Response); " +
        "import 'code-session-gate' for a loader that finds the .wasm itself",
    );
  }
  await initGlue(options);
  ready();
}
