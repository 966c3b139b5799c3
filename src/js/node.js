// Entry for Node (and Bun): instantiates the core module synchronously at import, and the sandbox
// module synchronously on the first call that needs it, so every export works right away; no
// top-level await. CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen arrays from the start.
// `init()` / `initSync()` are kept for code shared with browsers: they do nothing more.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NODE_FIX, cannotRead, noWasmUrl, packageError } from './guard.js';
import { sandboxSource } from './engine.js';
import { initSync, recover as recoverWith } from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/**
 * A `.wasm` beside this file, compiled: `url()` makes its URL (each caller's argument must stay a
 * plain string literal, what bundlers recognise). Where it cannot be located (esbuild leaves
 * `import.meta` empty in a CommonJS bundle, so `import.meta.url` is no URL) or read (a bundle copied
 * without the file beside it), this throws the package's typed error, code "wasm_not_found", instead of
 * a TypeError "Invalid URL" or an ENOENT.
 * @param {() => URL} url
 * @returns {WebAssembly.Module}
 */
const load = (url) => {
  let at;
  try {
    at = url();
  } catch (e) {
    throw packageError('wasm_not_found', noWasmUrl(e) + NODE_FIX, e);
  }
  let bytes;
  try {
    bytes = readFileSync(at);
  } catch (e) {
    const path = at.protocol === 'file:' ? fileURLToPath(at) : at.href;
    throw packageError('wasm_not_found', cannotRead(path, e) + NODE_FIX, e);
  }
  return new WebAssembly.Module(bytes);
};

const core = () => load(() => new URL('./code_session_gate_bg.wasm', import.meta.url));

initSync({ module: core() });
// The sandbox module is read and compiled on the first call that needs it.
sandboxSource.sync = () => load(() => new URL('./code_session_sandbox_bg.wasm', import.meta.url));

/**
 * Replaces a trapped instance with a fresh one read from the `.wasm` beside this file (see the API's
 * `recover(options)`); `false` when nothing was poisoned. Throws the typed "wasm_not_found" error when
 * the file cannot be located or read, as the import does.
 */
export function recover() {
  return recoverWith({ module: core() });
}
