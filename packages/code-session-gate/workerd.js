// Entry for workerd / Cloudflare Workers: the runtime (or wrangler's bundler, or Vitest's workerd pool)
// turns each `.wasm` import into a compiled `WebAssembly.Module` (compiling from bytes is disallowed
// there); the core module is instantiated synchronously at global scope, the sandbox module on the
// first call that needs it. No top-level await. CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen
// arrays from the start; `init()` / `initSync()` do nothing more. (Nitro's Workers builds take
// unwasm.js instead.)
import wasmModule from './code_session_gate_bg.wasm';
import sandboxModule from './code_session_sandbox_bg.wasm';
import { startSync } from './engine.js';
import * as api from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/** Replaces a trapped instance with a fresh one of the same compiled module; `false` when nothing was poisoned. */
export const recover = startSync(api, () => wasmModule, () => sandboxModule);
