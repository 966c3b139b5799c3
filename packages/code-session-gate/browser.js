// Entry for browsers and Deno (and the `default` condition): the package plus an async `init()` that
// fetches `code_session_gate_bg.wasm` next to this file. Bundlers that copy assets (Vite, webpack,
// rolldown) recognise the `new URL('…', import.meta.url)` pattern and emit the file; for those that do
// not (esbuild, tsup, `bun build`), `code-session-gate/inline` carries the module in the JavaScript.
// No top-level await.
//
//   import init, { toInjectedFileRef, CODE_EXECUTION_TOOLS } from 'code-session-gate';
//   await init();   // once; later calls are no-ops
//
// CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are live bindings: `undefined` until `init()` resolves (or
// `initSync()` returns), then frozen arrays read from the wasm. The exec wire, the sandbox dialects and
// the explanations run in a second module, `code_session_sandbox_bg.wasm`, which a page that only
// gates never fetches: `await initSandbox()` fetches it from beside this file.
import initSlim, { CODE_EXECUTION_TOOLS, initSandbox as initSandboxSlim, recover as recoverWith } from './slim.js';
import { engine, isOptions } from './engine.js';
import { INLINE_FIX, WASM_NAME, besideUrl, gateError } from './errors.js';

export * from './slim.js';

// Each URL is formed in a block body, as node.js does, where every tool that follows the pattern sees it.
/** The core module beside this file, fetched and checked; any failure (its URL too) is a rejection. */
const fetchDefault = () =>
  fetchModule(() => {
    return new URL('./code_session_gate_bg.wasm', import.meta.url);
  }, 'init');

/** The sandbox module beside this file, for `initSandbox()`, fetched and checked as the core's is. */
engine.fetchSandbox = () =>
  fetchModule(() => {
    return new URL('./code_session_sandbox_bg.wasm', import.meta.url);
  }, 'initSandbox');

/** Loads the sandbox module, its failure kept for the sandbox functions' error instead of thrown. */
const initSandboxOrKeep = () =>
  initSandbox().catch((e) => {
    engine.sandboxFailure = e;
  });

/**
 * Instantiates the modules: by default `code_session_gate_bg.wasm` and, fetched at the same time,
 * `code_session_sandbox_bg.wasm` beside this file; with `{ sandbox: false }`, the core alone (a page
 * that only gates never fetches the second; `initSandbox()` loads it later). Resolves to nothing.
 * When the core's fetch brings back something that is not the module (an HTML page, a 404 body), it
 * fails with a `CodeSessionGateError` (code "wasm_not_found" or "not_wasm") that names the URL, what
 * came back, and the fix for common bundlers; so it does (code "wasm_not_found") when the URL beside
 * this file cannot be formed (`import.meta.url` emptied by a bundle format). The sandbox module's
 * failure does not fail `init()`: the gate works, and the sandbox functions throw "not_initialized"
 * with the reason until `initSandbox()` succeeds. With `{ module_or_path }`, the core comes from there
 * and nothing is fetched (`initSandbox({ module_or_path })` loads the sandbox module the same way).
 * @param {{ module_or_path?: any, sandbox?: boolean }} [options]
 * @returns {Promise<void>}
 */
export default async function init(options) {
  // The host's own module (options with module_or_path, or the module itself): nothing is fetched.
  if (options !== undefined && (!isOptions(options) || 'module_or_path' in options)) return initSlim(options);
  const core = initCore();
  // Fetched beside the core; its failure is kept for the sandbox functions' error, not thrown here.
  const sandbox = options?.sandbox !== false && initSandboxOrKeep();
  await core;
  if (sandbox) await sandbox;
}

/**
 * Instantiates the sandbox module (a no-op once loaded): from `options.module_or_path`, or by default
 * `code_session_sandbox_bg.wasm` fetched from beside this file (checked as the core's fetch is). Waits
 * for the core module when its `init()` is still running.
 * @param {{ module_or_path: any }} [options]
 * @returns {Promise<void>}
 */
export async function initSandbox(options) {
  if (engine.sandbox !== undefined) return;
  const source = options === undefined ? engine.fetchSandbox?.() : undefined;
  // Observed below; a rejection while the core is still on its way is not an unhandled one.
  source?.catch(() => {});
  // Fetched while the core is still on its way; instantiated once the core is ready.
  if (pending !== undefined) await pending;
  await initSandboxSlim(options ?? { module_or_path: source });
  engine.sandboxFailure = undefined;
}

/** The core module from beside this file. */
function initCore() {
  // Once initialised (CODE_EXECUTION_TOOLS is set then), nothing is fetched again; concurrent first
  // calls share one fetch, and a failed one may be retried.
  if (CODE_EXECUTION_TOOLS !== undefined) return Promise.resolve();
  pending ??= fetchDefault()
    .then((module) => initSlim({ module_or_path: module }))
    .finally(() => {
      pending = undefined;
    });
  return pending;
}

/** @type {Promise<void> | undefined} the first `init()`'s fetch and instantiation, while it runs */
let pending;

/**
 * Replaces a trapped instance with a fresh one (the glue's generated reset), checking `options.module`
 * (a compiled module or the bytes) or the `.wasm` beside this file to be the core module; the sandbox
 * module, when it was loaded, gets a fresh instance too (modules.js `recover()`: its glue's reset, so
 * nothing is fetched for it). Resolves to `false` when nothing was poisoned.
 * @param {{ module?: any }} [options]
 */
export async function recover(options) {
  return recoverWith({ module: options?.module ?? (await fetchDefault()) });
}

/**
 * The `.wasm` beside this file, checked before it is compiled: a response that is not the module fails
 * with a typed error instead of the engine's "expected magic word 00 61 73 6d". `make()` forms its URL,
 * its argument a plain string literal (bundlers such as Vite and webpack emit exactly that file as an
 * asset; a template or an expression makes them glob the whole folder). Where `import.meta.url` is no
 * URL to resolve against (esbuild leaves it empty in an iife or CommonJS bundle), the package's typed
 * error naming the `init` function that takes the module instead of the engine's "Invalid URL".
 * @param {() => URL} make @param {string} init
 * @returns {Promise<Response | ArrayBuffer>}
 */
async function fetchModule(make, init) {
  const url = besideUrl(make, INLINE_FIX + ` or pass the module yourself with ${init}({ module_or_path }) (see the README "Using it in a host").`);
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw gateError('wasm_not_found', '', `${fetchFailed(url)}: ${e instanceof Error ? e.message : String(e)}.${fixFor(url)}`, e);
  }
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok) {
    const body = await response.text().catch(() => '');
    throw gateError(
      'wasm_not_found',
      '',
      `${fetchFailed(url)}: HTTP ${response.status} ${response.statusText}` +
        `${type ? ` (${type})` : ''}${body ? `, body starts ${JSON.stringify(body.slice(0, 80))}` : ''}.${fixFor(url)}`,
    );
  }
  // Served as wasm: let the engine compile while it downloads.
  if (type.split(';')[0].trim().toLowerCase() === 'application/wasm') return response;
  const bytes = await response.arrayBuffer();
  const head = new Uint8Array(bytes, 0, Math.min(16, bytes.byteLength));
  if (head.length >= 4 && head[0] === 0x00 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d) {
    // The module under another MIME type (file: URLs, plain static servers): compile the bytes.
    return bytes;
  }
  const hex = [...head].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  const text = new TextDecoder().decode(head).replace(/[^\x20-\x7e]/g, '.');
  throw gateError(
    'not_wasm',
    '',
    `code-session-gate: ${url.href} did not return the WebAssembly module: it answered ` +
      `${type ? `${type}, ` : ''}${bytes.byteLength} bytes starting ${hex || '(nothing)'} ("${text}")` +
      `${text.trimStart().startsWith('<') ? ', an HTML page' : ''}.${fixFor(url)}`,
  );
}

/** @param {URL} url */
const fetchFailed = (url) => `code-session-gate: could not fetch its WebAssembly module from ${url.href}`;

/**
 * What to do when the module at `url` could not be fetched or was not the module: the fix for the host
 * the URL (or the runtime) shows, then the ones that work anywhere, and the README section with them
 * all (the package's README carries it).
 * @param {URL} url
 */
function fixFor(url) {
  let host;
  if (url.pathname.includes('/node_modules/.vite/')) {
    // Vite's dev server serves the pre-bundled copy from node_modules/.vite/deps/, where no .wasm is.
    host =
      ' Vite (before 8) pre-bundled the package away from its .wasm in the dev server:' +
      ' add optimizeDeps: { exclude: ["code-session-gate"] } to vite.config;';
  } else if (url.protocol === 'blob:' || typeof (/** @type {any} */ (globalThis).EdgeRuntime) === 'string') {
    host =
      ' An edge runtime (a Next.js route with runtime = "edge", Vercel Edge) has no file beside the bundle to fetch:' +
      ' import "code-session-gate/inline" (what the package\'s edge-light condition serves; a bundler that' +
      ' does not set that condition needs the subpath);';
  } else if (url.protocol === 'file:') {
    host =
      ' A local file: Deno reads it with --allow-read; Node and Bun import the package by name' +
      ' (its node entry reads the .wasm itself);';
  } else {
    host =
      ` The bundle is served without the .wasm files beside it (${WASM_NAME}, code_session_sandbox_bg.wasm):` +
      ' a bundler that does not emit the new URL(…, import.meta.url) assets (Rollup without a plugin, for one)' +
      ' or a copy of the bundle alone; copy both files next to the JavaScript that imports them;';
  }
  return (
    host +
    ' or import "code-session-gate/inline", which carries the modules in the JavaScript;' +
    ' or pass the module yourself with init({ module_or_path: url }) (see the README "Using it in a host").'
  );
}
