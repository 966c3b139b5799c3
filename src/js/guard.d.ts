// Types of guard.js: the fail-closed wrapper around the wasm-bindgen exports (internal to the package;
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

/** Whether `e` is a trap (`WebAssembly.RuntimeError`) or a stack overflow. */
export declare function isTrap(e: unknown): boolean;

export interface Guard {
  /**
   * Wraps one export. A function is wrapped; a class has its methods, accessors and statics wrapped in
   * place and its construction guarded through a Proxy; anything else is returned unchanged.
   */
  wrap<T>(value: T, name?: string): T;
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
