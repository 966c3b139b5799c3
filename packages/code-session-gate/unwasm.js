// The workerd entry for builds by unjs's unwasm (the `unwasm` condition under `workerd`: Nitro, and so
// Nuxt, on a Workers preset with `experimental.wasm`, which Nitro asks of any wasm package). unwasm
// turns a plain `.wasm` import into the instance's exports; `?module` asks it for the compiled module,
// which it leaves to the runtime as a module import. Otherwise as workerd.js.
import wasmModule from './code_session_gate_bg.wasm?module';
import sandboxModule from './code_session_sandbox_bg.wasm?module';
import { startSync } from './engine.js';
import * as api from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/** Replaces a trapped instance with a fresh one of the same compiled module; `false` when nothing was poisoned. */
export const recover = startSync(api, () => wasmModule, () => sandboxModule);
