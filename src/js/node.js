// Entry for Node (and Bun): instantiates synchronously at import, so every export works right away;
// no top-level await. CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen arrays from the start.
// `init()` / `initSync()` are kept for code shared with browsers: they do nothing more.
import { readFileSync } from 'node:fs';
import { initSync, recover as recoverWith } from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

const load = () => new WebAssembly.Module(readFileSync(new URL('./code_session_gate_bg.wasm', import.meta.url)));

initSync({ module: load() });

/**
 * Replaces a trapped instance with a fresh one read from the `.wasm` beside this file (see the API's
 * `recover(options)`); `false` when nothing was poisoned.
 */
export function recover() {
  return recoverWith({ module: load() });
}
