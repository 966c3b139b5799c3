// Source of the package's CommonJS inline entry, `inline.cjs` (the `require` condition of
// `code-session-gate/inline` and of `edge-light`): bundled with the API into one CommonJS file by
// scripts/assemble-pkg.mjs (esbuild), except the two base64 modules, which it requires from the package
// instead of carrying a copy of its own: the tarball holds each module's text once, shared with the ESM
// entry (inline.js). A bundler that bundles this file inlines them as it bundles it; Node requires them
// (ES modules without top-level await: `require()` loads them from Node 20.19 on). Where Node cannot
// (before 20.19, or run with --no-experimental-require-module: ERR_REQUIRE_ESM), no bundler is involved,
// so the package is installed as published and the `.wasm` beside this file is read instead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytes } from './base64.js';
import { CORE, SANDBOX, sandboxSource } from './engine.js';
import { NODE_FIX, cannotRead, packageError } from './guard.js';
import { initSync, recover as recoverWith } from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/**
 * The bytes of module `file` when its base64 module cannot be required (`e`, ERR_REQUIRE_ESM): read
 * from beside this file. Any other error of the `require()` is thrown as it is.
 * @param {unknown} e
 * @param {string} file
 * @returns {Uint8Array}
 */
function beside(e, file) {
  if (/** @type {{ code?: unknown }} */ (e)?.code !== 'ERR_REQUIRE_ESM') throw e;
  // eslint-disable-next-line no-undef -- CommonJS's module variable, defined where this runs.
  const path = join(__dirname, file);
  try {
    return readFileSync(path);
  } catch (err) {
    throw packageError('wasm_not_found', cannotRead(path, err) + NODE_FIX, err);
  }
}

// Each `require()` names its file as a plain string literal, what bundlers follow.
const core = () => {
  try {
    // eslint-disable-next-line no-undef -- CommonJS's require, defined where this runs.
    return bytes(require('./code_session_gate_bg.base64.js').default);
  } catch (e) {
    return beside(e, CORE.file);
  }
};

initSync({ module: core() });
// The sandbox module is decoded and compiled on the first call that needs it.
sandboxSource.sync = () => {
  try {
    // eslint-disable-next-line no-undef -- CommonJS's require, defined where this runs.
    return bytes(require('./code_session_sandbox_bg.base64.js').default);
  } catch (e) {
    return beside(e, SANDBOX.file);
  }
};

/** Replaces a trapped instance with a fresh one compiled from the inlined bytes; `false` when nothing was poisoned. */
export function recover() {
  return recoverWith({ module: core() });
}
