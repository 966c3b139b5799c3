// Types of the `code-session-gate/code_session_sandbox_bg.wasm` subpath: the sandbox module (exec wire,
// sandbox dialects, explanations), for hosts that load it themselves and pass it to
// `initSandboxSync({ module })` or `initSandbox({ module_or_path })`. Typed as what workerd and wrangler
// (which import `.wasm` as a compiled module) hand over.
import type { WasmModule } from './api.js';

declare const module: WasmModule;
export default module;
