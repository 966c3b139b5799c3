// `code-session-gate/inline`: the package with its two modules carried inside the JavaScript (base64,
// in `code_session_gate_bg.base64.js` and `code_session_sandbox_bg.base64.js`): the core instantiated
// synchronously at import, the sandbox module on the first call that needs it. For bundlers that do not copy
// assets (esbuild, tsup, `bun build`) and any host that cannot fetch or read a file beside the script.
// Everything works right after the import; CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen arrays
// from the start, and `init()` / `initSync()` do nothing more. About a third larger than the `.wasm`
// (before compression), and compiled on the thread that imports it.
//
// Also what the package's `edge-light` condition serves (Next.js edge routes, Vercel's Edge runtime),
// where no file beside the bundle can be fetched. Not for workerd / Cloudflare Workers, which refuse to
// compile wasm from bytes: import the package itself there (its `workerd` condition hands the runtime
// the `.wasm` as a module). The CommonJS form (inline.cjs) reads the same two base64 modules; here
// carried.js decodes them.
import './carried.js';
import { engine, startSync } from './engine.js';
import * as api from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/** Replaces a trapped instance with a fresh one compiled from the inlined bytes; `false` when nothing was poisoned. */
export const recover = startSync(api, engine.carriedCore, engine.carriedSandbox);
