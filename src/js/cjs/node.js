// Source of the package's CommonJS entry, `node.cjs` (the `require` condition for Node): bundled with
// the API into one CommonJS file by scripts/assemble-pkg.mjs (esbuild), because Node before 20.19 (and
// any Node run with --no-experimental-require-module) cannot `require()` the ESM entries. Its imports
// resolve in the built package (pkg/), beside the ESM entries. It instantiates synchronously at load
// (the sandbox module on first use), as the ESM Node entry does; `__dirname` is CommonJS's own (the
// bundle's directory, where the `.wasm` sits).
//
// The CommonJS and ESM entries are two copies of the package with two instances: a `Gate` made by one
// is not an instance of the other's class (`isCodeSessionGateError` checks errors by shape, so it holds
// across both).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FIX, cannotRead, packageError } from './guard.js';
import { sandboxSource } from './engine.js';
import { initSync, recover as recoverWith } from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/**
 * The `.wasm` at `path` (beside this file), compiled; the typed "wasm_not_found" error (not an
 * ENOENT) when it cannot be read, e.g. when a bundler copied this file's code into a bundle elsewhere.
 * @param {string} path
 * @returns {WebAssembly.Module}
 */
const load = (path) => {
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw packageError('wasm_not_found', cannotRead(path, e) + NODE_FIX, e);
  }
  return new WebAssembly.Module(bytes);
};

// The paths are written out with the files' names as literals, where @vercel/nft (Nitro's and Next.js's
// standalone tracer) sees them and copies both files into the build output; `__dirname` is CommonJS's
// own (the bundle's directory).
// eslint-disable-next-line no-undef -- CommonJS's module variable, defined where this runs.
const corePath = () => join(__dirname, 'code_session_gate_bg.wasm');

initSync({ module: load(corePath()) });
// The sandbox module is read and compiled on the first call that needs it.
// eslint-disable-next-line no-undef -- as above.
sandboxSource.sync = () => load(join(__dirname, 'code_session_sandbox_bg.wasm'));

/** Replaces a trapped instance with a fresh one read from the `.wasm` beside this file; `false` when nothing was poisoned. */
export function recover() {
  return recoverWith({ module: load(corePath()) });
}
