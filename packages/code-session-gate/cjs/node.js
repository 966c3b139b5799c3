// Source of the package's CommonJS entry, `node.cjs` (the `require` condition for Node): bundled with
// the API into one CommonJS file by packages/assemble.mjs (esbuild), because Node before 20.19 (and
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
import { readWasm, startSync } from './engine.js';
import * as api from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

// The paths are written out with the files' names as literals, where @vercel/nft (Nitro's and Next.js's
// standalone tracer) sees them and copies both files into the build output; `__dirname` is CommonJS's
// own (the bundle's directory).
/** Replaces a trapped instance with a fresh one read from the `.wasm` beside this file; `false` when nothing was poisoned. */
export const recover = startSync(
  api,
  // eslint-disable-next-line no-undef -- CommonJS's module variable, defined where this runs.
  () => readWasm((p) => readFileSync(p), join(__dirname, 'code_session_gate_bg.wasm')),
  // eslint-disable-next-line no-undef -- as above.
  () => readWasm((p) => readFileSync(p), join(__dirname, 'code_session_sandbox_bg.wasm')),
);
