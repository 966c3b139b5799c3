// Entry for workerd / Cloudflare Workers: the runtime (or wrangler's bundler) turns the `.wasm` import
// into a compiled `WebAssembly.Module`, instantiated synchronously at global scope (compiling from bytes
// is disallowed there). No top-level await. CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen arrays
// from the start; `init()` / `initSync()` do nothing more.
import wasmModule from './code_session_gate_bg.wasm';
import { initSync, recover as recoverWith } from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

initSync({ module: wasmModule });

/** Replaces a trapped instance with a fresh one of the same compiled module; `false` when nothing was poisoned. */
export function recover() {
  return recoverWith({ module: wasmModule });
}
