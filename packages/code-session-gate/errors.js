// The package's errors, made here and nowhere else in JavaScript: every `CodeSessionGateError` the layer
// and its entries throw comes from `gateError` (the module makes its own refusals in Rust, in the
// boundary's thrown.rs, in the same shape and under the same name), the name they carry, telling them
// from anything else, and the words the entries' loading errors share. The entries and the API import
// it alike (packages/assemble.mjs keeps it a module of its own, so both hold the one copy).

/** The `name` of every error the package throws (the module's `ERROR_NAME` is the same). */
export const ERROR_NAME = 'CodeSessionGateError';

/**
 * A `CodeSessionGateError`: an `Error` with a stable `code` and the offending `path` ("" for the call
 * as a whole), the shape of every error the package throws, from the wasm or from its JavaScript.
 * @param {string} code
 * @param {string} path
 * @param {string} message
 * @param {unknown} [cause]
 * @returns {Error & { code: string, path: string }}
 */
export function gateError(code, path, message, cause) {
  const err = new Error(message, cause === undefined ? undefined : { cause });
  err.name = ERROR_NAME;
  Object.defineProperty(err, 'code', { value: code, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(err, 'path', { value: path, enumerable: true, writable: true, configurable: true });
  return /** @type {Error & { code: string, path: string }} */ (err);
}

/**
 * Whether `e` is an error this package threw (`name` "CodeSessionGateError" with a string `code`), and,
 * when `code` is given, one of that code. Checks the shape, not `instanceof`, so that it holds across
 * the package's ESM and CommonJS copies and across realms.
 */
export function isCodeSessionGateError(e, code) {
  if (e === null || typeof e !== 'object') return false;
  try {
    return e.name === ERROR_NAME && typeof e.code === 'string' && (code === undefined || e.code === code);
  } catch {
    // A hostile getter or a revoked Proxy is not one of ours.
    return false;
  }
}

/** Words for a thrown value that cannot throw again (a hostile `message` getter, a revoked Proxy…). */
export function describe(e) {
  try {
    if (e instanceof Error) {
      const m = e.message;
      if (typeof m === 'string') return m;
    }
    if (typeof e === 'string') return e;
  } catch {
    // fall through
  }
  return 'a value that cannot be described';
}

/** The module file every entry but /inline and /slim loads from beside itself. */
export const WASM_NAME = 'code_session_gate_bg.wasm';

/**
 * The URL `make()` forms for a `.wasm` beside the entry, or the "wasm_not_found" error, ending with
 * `fix`, when `import.meta.url` is no URL to resolve it against (esbuild empties `import.meta` in iife
 * and CommonJS output): the package's typed error instead of the engine's "Invalid URL".
 * @param {() => URL} make
 * @param {string} fix
 * @returns {URL}
 */
export function besideUrl(make, fix) {
  try {
    return make();
  } catch (e) {
    throw gateError(
      'wasm_not_found',
      '',
      "code-session-gate: cannot locate its WebAssembly module: the bundle's import.meta.url is not a URL " +
        `(${e instanceof Error ? e.message : String(e)}), so the ${WASM_NAME} beside it cannot be found ` +
        '(esbuild, for one, leaves import.meta empty in iife and CommonJS output).' +
        fix,
      e,
    );
  }
}

/** The fix for bundlers that do not copy the `.wasm` (part of the entries' "wasm_not_found" messages). */
export const INLINE_FIX =
  ' esbuild, tsup, bun build (and other bundlers that do not copy assets): import "code-session-gate/inline",' +
  ' which carries the module in the JavaScript;';

/** The Node entries' fix when a bundle separated them from the `.wasm` (after the start of their message). */
export const NODE_FIX =
  INLINE_FIX +
  ' or mark the package external (--external:code-session-gate) so that Node loads it from node_modules;' +
  ' or import "code-session-gate/slim" and call initSync({ module }) with the module yourself' +
  ' (see the README "Using it in a host").';
