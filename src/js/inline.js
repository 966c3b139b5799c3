// `code-session-gate/inline`: the package with the `.wasm` carried inside the JavaScript (base64, in
// `code_session_gate_bg.base64.js`), instantiated synchronously at import. For bundlers that do not copy
// assets (esbuild, tsup, `bun build`) and any host that cannot fetch or read a file beside the script.
// Everything works right after the import; CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen arrays
// from the start, and `init()` / `initSync()` do nothing more. About a third larger than the `.wasm`
// (before compression), and compiled on the thread that imports it.
//
// Not for workerd / Cloudflare Workers, which refuse to compile wasm from bytes: import the package
// itself there (its `workerd` condition hands the runtime the `.wasm` as a module).
import base64 from './code_session_gate_bg.base64.js';
import { initSync, recover as recoverWith } from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/**
 * The module's bytes, decoded from the text each time (the decoded copy is not kept alive).
 * @returns {Uint8Array}
 */
function bytes() {
  // @ts-ignore Uint8Array.fromBase64 is recent (2025): used where it exists, atob elsewhere.
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(base64);
  const binary = atob(base64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

initSync({ module: bytes() });

/** Replaces a trapped instance with a fresh one compiled from the inlined bytes; `false` when nothing was poisoned. */
export function recover() {
  return recoverWith({ module: bytes() });
}
