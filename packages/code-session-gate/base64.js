// The inline entries' decoder: a module's bytes from the base64 text that carries it
// (`code_session_gate_bg.base64.js`, `code_session_sandbox_bg.base64.js`), shared by the ESM entry
// (inline.js) and the CommonJS one (inline.cjs), which both read the same two texts.

/**
 * A module's bytes, decoded from its text each time (the decoded copy is not kept alive).
 * @param {string} base64
 * @returns {Uint8Array}
 */
export function bytes(base64) {
  // @ts-ignore Uint8Array.fromBase64 is recent (2025): used where it exists, atob elsewhere.
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(base64);
  const binary = atob(base64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
