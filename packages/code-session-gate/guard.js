// Fail-closed guard around the WebAssembly instances.
//
// The modules are built with `panic = "abort"`: a Rust panic (there should be none) traps, which JS sees
// as a `WebAssembly.RuntimeError`. After a trap the instance's memory may be half-updated (a session
// table mid-merge, a borrow flag left set, the shadow stack pointer not restored), so answering any
// later call could hand out a permissive or wrong decision. The guard therefore rethrows the trap to
// the call that hit it and refuses every later call with a `CodeSessionGateError` of code "poisoned",
// without entering the wasm again, until the host replaces the instance (modules.js `recover()`, which
// makes fresh instances with the glue's generated reset and then calls `reset()` here).
//
// One guard watches the package's instances: every call into the modules (call.js `withTexts`, and the
// `constants()` read at load) goes through its `run`, after its `check`.
import { gateError } from './errors.js';

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
 * A new guard with its own poisoned state, over `state` (the engine's state object: engine.js):
 * `state.ready` says whether the instance is initialised (calls made before are refused with a clear
 * error instead of a `TypeError` on an undefined instance), and the guard keeps `state.open` true
 * while calls may enter, a plain property that hot paths read (a call to `check` costs more than the
 * cached answers it guards).
 * @param {{ ready: boolean, open: boolean }} [state]
 */
export function createGuard(state = { ready: true, open: false }) {
  /** @type {unknown} the trap that poisoned the instance (an error: see `isTrap`), or `undefined` */
  let trap;

  return {
    /** The state whose `open` is true once a call found the instance initialised and while no trap has
     * poisoned it; when it is false, call `check` (which throws or opens it). */
    live: state,
    /**
     * Throws what a call of `what` must throw before entering (poisoned, or not initialised), or opens
     * `live`: for every call, also one answered from what the caller already holds.
     * @param {string} what
     */
    check(what) {
      if (trap !== undefined) {
        const reason = trap instanceof Error ? `${trap.name}: ${trap.message}` : String(trap);
        throw gateError(
          'poisoned',
          '',
          `code-session-gate: the WebAssembly instance trapped earlier (${reason}) and refuses every ` +
            `call since (this one: ${what}); load the module afresh (new worker, isolate or process) to recover`,
          trap,
        );
      }
      if (!state.ready) {
        throw gateError(
          'not_initialized',
          '',
          `code-session-gate: ${what}() was called before the module was initialised: ` +
            "await init() (or call initSync({ module })) first, or import the package's node, workerd or inline entry",
        );
      }
      state.open = true;
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
        if (trap === undefined && isTrap(e)) {
          state.open = false;
          trap = e;
        }
        throw e;
      }
    },
    /** Whether a trap has poisoned this guard. */
    get poisoned() {
      return trap !== undefined;
    },
    /** Forgets the trap once `recover()` has replaced the poisoned instance: calls enter again once the
     * new instance is initialised. */
    reset() {
      trap = undefined;
      state.open = false;
    },
  };
}
