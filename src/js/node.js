// Entry for Node (and Bun): instantiates synchronously at import, so every export works right away;
// no top-level await. CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen arrays from the start.
// `init()` / `initSync()` are kept for code shared with browsers: they do nothing more.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NODE_FIX, cannotRead, noWasmUrl, packageError } from './guard.js';
import { initSync, recover as recoverWith } from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/**
 * The `.wasm` beside this file, compiled. The URL's argument must stay a plain string literal (what
 * bundlers recognise). Where it cannot be located (esbuild leaves `import.meta` empty in a CommonJS
 * bundle, so `import.meta.url` is no URL) or read (a bundle copied without the file beside it), this
 * throws the package's typed error, code "wasm_not_found", instead of a TypeError "Invalid URL" or an
 * ENOENT.
 * @returns {WebAssembly.Module}
 */
const load = () => {
  let url;
  try {
    url = new URL('./code_session_gate_bg.wasm', import.meta.url);
  } catch (e) {
    throw packageError('wasm_not_found', noWasmUrl(e) + NODE_FIX, e);
  }
  let bytes;
  try {
    bytes = readFileSync(url);
  } catch (e) {
    const path = url.protocol === 'file:' ? fileURLToPath(url) : url.href;
    throw packageError('wasm_not_found', cannotRead(path, e) + NODE_FIX, e);
  }
  return new WebAssembly.Module(bytes);
};

initSync({ module: load() });

/**
 * Replaces a trapped instance with a fresh one read from the `.wasm` beside this file (see the API's
 * `recover(options)`); `false` when nothing was poisoned. Throws the typed "wasm_not_found" error when
 * the file cannot be located or read, as the import does.
 */
export function recover() {
  return recoverWith({ module: load() });
}
