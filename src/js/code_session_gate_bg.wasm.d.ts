// Types of the `code-session-gate/code_session_gate_bg.wasm` subpath: the raw module, for hosts that load
// it themselves and pass it to `initSync({ module })` from `code-session-gate/slim`. Typed as what
// workerd and wrangler (which import `.wasm` as a compiled module) hand over; bundlers that turn the
// import into a URL or bytes (`?url`, asset modules) type it through their own declarations.
import type { WasmModule } from './api.js';

declare const module: WasmModule;
export default module;
