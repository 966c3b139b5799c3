// Types of guard.js: the fail-closed wrapper around the module's exports (internal to the package;
// not in the `exports` map).

/** The `name` of every error the package throws. */
export declare const ERROR_NAME: 'CodeSessionGateError';

/** A `CodeSessionGateError` with `code`, `message`, an optional `cause` and `path` ("" by default). */
export declare function packageError(
  code: string,
  message: string,
  cause?: unknown,
  path?: string,
): Error & { name: 'CodeSessionGateError'; code: string; path: string };

/** The module file beside the entries: `code_session_gate_bg.wasm`. */
export declare const WASM_NAME: 'code_session_gate_bg.wasm';

/** The start of the "wasm_not_found" message when `import.meta.url` is no URL (`e`: the engine's error). */
export declare function noWasmUrl(e: unknown): string;

/** The fix for bundlers that do not copy the `.wasm` (esbuild, tsup, bun build): import code-session-gate/inline. */
export declare const INLINE_FIX: string;

/** The Node entries' fix when a bundle separated them from the `.wasm`: /inline, --external, or /slim with initSync. */
export declare const NODE_FIX: string;

/** The start of the Node entries' "wasm_not_found" message when the `.wasm` at `path` cannot be read. */
export declare function cannotRead(path: string, e: unknown): string;

/** Whether `e` is a trap (`WebAssembly.RuntimeError`) or a stack overflow. */
export declare function isTrap(e: unknown): boolean;

export interface Guard {
  /** Wraps one export function; anything else is returned unchanged. */
  wrap<T>(value: T, name?: string): T;
  /** Poisons the guard if `e` is a trap (a call that entered the module threw it); returns `e`. */
  observe<E>(e: E): E;
  /** Whether a trap has poisoned this guard (every later guarded call then throws "poisoned"). */
  readonly poisoned: boolean;
  /** Throws what a guarded call would throw before entering (poisoned, or not initialised). */
  check(what: string): void;
  /** `open` is true once the instance was found initialised and while no trap has poisoned it. */
  readonly live: { readonly open: boolean };
  /** Forgets the trap once the poisoned instance has been replaced (the package's `recover()`). */
  reset(): void;
}

/**
 * A new guard with its own poisoned state. `isReady` tells whether the instance is initialised; until
 * it returns true, guarded calls throw a "not initialised" Error without entering the wasm.
 */
export declare function createGuard(isReady?: () => boolean): Guard;
