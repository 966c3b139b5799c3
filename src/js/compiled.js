// What the entries handed compiled modules share (workerd.js, unwasm.js): the core instantiated at
// once, the sandbox module on the first call that needs it.
import { sandboxSource } from './engine.js';
import { initSync, recover } from './slim.js';

/**
 * Starts the package on `core` and keeps `sandbox` for its first use; returns the entry's `recover()`,
 * which replaces a trapped instance with a fresh one of the same compiled module (`false` when nothing
 * was poisoned).
 * @param {WebAssembly.Module} core
 * @param {WebAssembly.Module} sandbox
 * @returns {() => boolean}
 */
export function startCompiled(core, sandbox) {
  initSync({ module: core });
  sandboxSource.sync = () => sandbox;
  return () => recover({ module: core });
}
