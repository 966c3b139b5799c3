// Fail-closed guard around the WebAssembly instance.
//
// The module is built with `panic = "abort"`: a Rust panic (there should be none) traps, which JS sees
// as a `WebAssembly.RuntimeError`. After a trap the instance's memory may be half-updated (a session
// table mid-merge, a borrow flag left set, the shadow stack pointer not restored), so answering any
// later call could hand out a permissive or wrong decision. The guard therefore rethrows the trap to
// the call that hit it and refuses every later call with a `CodeSessionGateError` of code "poisoned",
// without entering the wasm again, until the host replaces the instance (modules.js `recover()`, which
// makes fresh instances with the glue's generated reset and then calls `reset()` here).
//
// One guard watches the package's instances: every call into the modules (call.js `withTexts`, and the
// `constants()` read at load) goes through its `run`, after its `check`.

/** The `name` of every error the package throws (the same as the Rust side's `ERROR_NAME`). */
export const ERROR_NAME = 'CodeSessionGateError';

/**
 * A `CodeSessionGateError`: an `Error` with a stable `code` and the offending `path` ("" for the call
 * as a whole), the shape of every error the package throws, from the wasm or from its JavaScript. The
 * one maker of the layer's errors (here, where every entry and the API share it).
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

/** The module file every entry but /inline and /slim loads from beside itself. */
export const WASM_NAME = 'code_session_gate_bg.wasm';

/**
 * The start of the "wasm_not_found" message when `import.meta.url` is no URL to resolve the `.wasm`
 * against (esbuild empties `import.meta` in iife and CommonJS output); `e` is the engine's error.
 * @param {unknown} e
 */
export const noWasmUrl = (e) =>
  "code-session-gate: cannot locate its WebAssembly module: the bundle's import.meta.url is not a URL " +
  `(${e instanceof Error ? e.message : String(e)}), so the ${WASM_NAME} beside it cannot be found ` +
  '(esbuild, for one, leaves import.meta empty in iife and CommonJS output).';

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

/**
 * `read(path)` (the Node entries' `readFileSync`), or the typed "wasm_not_found" error, not an ENOENT,
 * when the `.wasm` at `path` cannot be read (the JavaScript bundled or copied without it beside).
 * @template T @param {(path: string) => T} read @param {string} path @returns {T}
 */
export function readWasm(read, path) {
  try {
    return read(path);
  } catch (e) {
    throw gateError(
      'wasm_not_found',
      '',
      `code-session-gate: cannot read its WebAssembly module at ${path}: ${e instanceof Error ? e.message : String(e)} ` +
        `(the JavaScript was bundled or copied without the ${WASM_NAME} beside it).${NODE_FIX}`,
      e,
    );
  }
}

/**
 * Whether `e` means the instance can no longer be trusted: a trap (`WebAssembly.RuntimeError`:
 * unreachable, out-of-bounds access, ...) or a stack overflow, which unwinds wasm frames without
 * restoring the instance's shadow stack.
 * @param {unknown} e
 */
export function isTrap(e) {
  if (e instanceof WebAssembly.RuntimeError) return true;
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * A new guard with its own poisoned state.
 * @param {() => boolean} [isReady] whether the instance is initialised; calls made before are refused
 *   with a clear error instead of a `TypeError` on an undefined instance.
 */
export function createGuard(isReady = () => true) {
  /** @type {unknown} the trap that poisoned the instance, or `undefined` */
  let trap;
  let poisoned = false;
  let ready = false;
  // `open`: initialised and not poisoned, readable as a plain property on hot paths (a call to `check`
  // costs more than the cached answers it guards).
  const live = { open: false };

  return {
    /** `{ open }`: true once a call found the instance initialised and while no trap has poisoned it;
     * when it is false, call `check` (which throws or opens it). */
    live,
    /**
     * Throws what a call of `what` must throw before entering (poisoned, or not initialised), or opens
     * `live`: for every call, also one answered from what the caller already holds.
     * @param {string} what
     */
    check(what) {
      if (poisoned) {
        const reason = trap instanceof Error ? `${trap.name}: ${trap.message}` : String(trap);
        throw gateError(
          'poisoned',
          '',
          `code-session-gate: the WebAssembly instance trapped earlier (${reason}) and refuses every ` +
            `call since (this one: ${what}); load the module afresh (new worker, isolate or process) to recover`,
          trap,
        );
      }
      if (!ready && !(ready = isReady())) {
        throw gateError(
          'not_initialized',
          '',
          `code-session-gate: ${what}() was called before the module was initialised: ` +
            "await init() (or call initSync({ module })) first, or import the package's node, workerd or inline entry",
        );
      }
      live.open = true;
    },
    /**
     * Runs `call`, which enters the module (after `check`): a trap it throws poisons the guard and is
     * rethrown; refusals pass as they are.
     * @template T @param {() => T} call @returns {T}
     */
    run(call) {
      try {
        return call();
      } catch (e) {
        if (!poisoned && isTrap(e)) {
          poisoned = true;
          live.open = false;
          trap = e;
        }
        throw e;
      }
    },
    /** Whether a trap has poisoned this guard. */
    get poisoned() {
      return poisoned;
    },
    /** Forgets the trap once `recover()` has replaced the poisoned instance: calls enter again once the
     * new instance is initialised. */
    reset() {
      poisoned = false;
      trap = undefined;
      ready = false;
      live.open = false;
    },
  };
}
