// Entry for browsers and Deno (and the `default` condition): the glue plus an async `init()` that
// fetches `code_session_gate_bg.wasm` next to this file. Bundlers (Vite, webpack, esbuild, rolldown)
// recognise the `new URL('…', import.meta.url)` pattern and emit the asset. No top-level await.
//
//   import init, { toInjectedFileRef, CODE_EXECUTION_TOOLS } from 'code-session-gate';
//   await init();   // once; later calls are no-ops
//
// CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are live bindings: `undefined` until `init()` resolves (or
// `initSync()` returns), then frozen arrays read from the wasm.
import initSlim, { recover as recoverWith } from './slim.js';

export * from './slim.js';

/**
 * Instantiates the module: by default from `code_session_gate_bg.wasm` beside this file.
 * @param {{ module_or_path: any }} [options]
 */
export default function init(options) {
  return initSlim(options ?? { module_or_path: new URL('./code_session_gate_bg.wasm', import.meta.url) });
}

/**
 * Replaces a trapped instance with a fresh one: from `options.module` (a compiled module or the bytes)
 * or the `.wasm` beside this file. Resolves to `false` when nothing was poisoned.
 * @param {{ module?: any }} [options]
 */
export async function recover(options) {
  const module =
    options?.module ??
    (await WebAssembly.compile(await (await fetch(new URL('./code_session_gate_bg.wasm', import.meta.url))).arrayBuffer()));
  return recoverWith({ module });
}
