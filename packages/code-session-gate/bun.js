// Entry for Bun (the `bun` condition: the runtime, `bun build --target=bun` and `bun build --compile`):
// both `.wasm` are imported as files, which Bun answers with their path and, in a compiled binary,
// embeds (`/$bunfs/…`); the node entry's `new URL(…, import.meta.url)` points into `/$bunfs` where
// nothing was put. Otherwise as the node entry: the core module instantiated synchronously at import,
// the sandbox module on the first call that needs it; no top-level await.
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import coreFile from './code_session_gate_bg.wasm' with { type: 'file' };
import sandboxFile from './code_session_sandbox_bg.wasm' with { type: 'file' };
import { readWasm, startSync } from './engine.js';
import * as api from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

// What Bun answers a `type: 'file'` import with: the file's path (declared as a compiled module, which
// is what workerd answers a plain `.wasm` import with).
const corePath = /** @type {string} */ (/** @type {unknown} */ (coreFile));
const sandboxPath = /** @type {string} */ (/** @type {unknown} */ (sandboxFile));

/**
 * The bytes of the `.wasm` Bun gave the path of: an absolute path (the runtime, a compiled binary), or
 * one relative to this file (`bun build --target=bun`'s output, the file copied beside the bundle).
 * @param {string} path
 */
const load = (path) => readWasm((p) => readFileSync(p), isAbsolute(path) ? path : fileURLToPath(new URL(path, import.meta.url)));

/** Replaces a trapped instance with a fresh one read from the core module's file; `false` when nothing was poisoned. */
export const recover = startSync(api, () => load(corePath), () => load(sandboxPath));
