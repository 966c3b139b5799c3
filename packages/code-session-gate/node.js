// Entry for Node (and Bun): instantiates the core module synchronously at import, and the sandbox
// module synchronously on the first call that needs it, so every export works right away; no
// top-level await. CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are frozen arrays from the start.
// `init()` / `initSync()` are kept for code shared with browsers: they do nothing more.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE, engine, readWasm, startSync } from './engine.js';
import { NODE_FIX, besideUrl, gateError } from './errors.js';
import * as api from './slim.js';

export * from './slim.js';
export { default } from './slim.js';

/**
 * A `.wasm` beside this file, compiled: `url()` makes its URL (each caller's argument must stay a
 * plain string literal, what bundlers recognise). Where it cannot be located (esbuild leaves
 * `import.meta` empty in a CommonJS bundle, so `import.meta.url` is no URL) or read (a bundle copied
 * without the file beside it), this throws the package's typed error, code "wasm_not_found", instead of
 * a TypeError "Invalid URL" or an ENOENT. Where a bundler replaced the URL by one it serves (Next.js's
 * server bundles: a path such as `/_next/static/media/….wasm`, no `file:` URL), the file is the one of
 * the package installed where the server runs, found as Node resolves it. Inside a bundle that carries
 * the modules (node-bundled.js, the `module` condition) their bytes stand in for a file it cannot read.
 * @param {() => URL} url
 * @param {string} file the `.wasm`'s name in the package
 * @returns {WebAssembly.Module}
 */
const load = (url, file) => {
  let bytes;
  try {
    const at = besideUrl(url, NODE_FIX);
    bytes = readWasm((p) => readFileSync(p), at instanceof URL && at.protocol === 'file:' ? fileURLToPath(at) : installed(file, at));
  } catch (e) {
    const fallback = file === CORE.file ? engine.carriedCore : engine.carriedSandbox;
    if (!fallback) throw e;
    bytes = fallback();
  }
  return new WebAssembly.Module(bytes);
};

/**
 * The path of the package's `file` as Node resolves it from the working directory, for a bundle whose
 * bundler turned the `.wasm`'s URL into one of its own (`at`, no file). The typed error when the
 * package is not installed there.
 * @param {string} file
 * @param {unknown} at
 * @returns {string}
 */
function installed(file, at) {
  try {
    return createRequire(join(process.cwd(), 'package.json')).resolve(`code-session-gate/${file}`);
  } catch (e) {
    throw gateError(
      'wasm_not_found',
      '',
      `code-session-gate: cannot locate its WebAssembly module: the bundler replaced the URL of ${file} by ` +
        `${JSON.stringify(String(at))}, which is no file, and the package is not installed where this runs ` +
        `(${process.cwd()}). Next.js: add serverExternalPackages: ["code-session-gate"] to next.config;` +
        NODE_FIX,
      e,
    );
  }
}

// Each URL is made in a block body with the file's name as a literal: @vercel/nft (Nitro's and Next.js's
// standalone tracer, Vercel functions) traces `new URL('<literal>', import.meta.url)` there but not as a
// concise arrow's body, and a file it does not trace is not copied into the build output.
/**
 * Replaces a trapped instance with a fresh one read from the `.wasm` beside this file; `false` when
 * nothing was poisoned. Throws the typed "wasm_not_found" error as the import does.
 */
export const recover = startSync(
  api,
  () =>
    load(() => {
      return new URL('./code_session_gate_bg.wasm', import.meta.url);
    }, 'code_session_gate_bg.wasm'),
  () =>
    load(() => {
      return new URL('./code_session_sandbox_bg.wasm', import.meta.url);
    }, 'code_session_sandbox_bg.wasm'),
);
