// Entry for workerd / Cloudflare Workers: the runtime (or wrangler's bundler) turns each `.wasm` import
// into a compiled `WebAssembly.Module` (compiling from bytes is disallowed there); the core module is
// instantiated synchronously at global scope, the sandbox module on the first call that needs it. No top-level await. CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen arrays
// from the start; `init()` / `initSync()` do nothing more.
import wasmModule from './code_session_gate_bg.wasm';
import sandboxModule from './code_session_sandbox_bg.wasm';
import { sandboxSource } from './engine.js';
import { initSync, recover as recoverWith } from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

initSync({ module: wasmModule });
// The sandbox module is instantiated on the first call that needs it.
sandboxSource.sync = () => sandboxModule;

/** Replaces a trapped instance with a fresh one of the same compiled module; `false` when nothing was poisoned. */
export function recover() {
  return recoverWith({ module: wasmModule });
}
