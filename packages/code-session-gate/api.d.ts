// Types of api.js that the generated ones (types.d.ts from the Rust types, ops.d.ts from the registry)
// cannot hold: the loaders' inputs, `JsonText`, the `Gate` class's own members, the layer's functions.
// No DOM or Node type by name (globals through `globalThis`): they compile under `lib: ["es2022"]`.

import type { CodeSessionGateErrorCode, GateOperations, SdkProfile } from "./ops.js";
export * from "./ops.js";
import type { CodeSessionGateError, GateConfig } from "./types.js";
export * from "./types.js";

declare global {
  // `Symbol.dispose` (for `using`), declared as lib.esnext.disposable and @types/node declare it, for
  // hosts whose lib does not have it yet; identical declarations merge.
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** The instance type of the global constructor `K` where the host's lib has one, else `never`. */
type GlobalInstance<K extends string> = typeof globalThis extends {
  [P in K]: abstract new (...args: never[]) => infer I;
}
  ? I
  : never;

/** A compiled `WebAssembly.Module` (where the host's lib declares `WebAssembly`). */
export type WasmModule = typeof globalThis extends {
  WebAssembly: { Module: abstract new (...args: never[]) => infer M };
}
  ? M
  : never;

/** What `initSync({ module })` takes: a compiled module or the `.wasm` bytes. */
export type SyncInitInput = WasmModule | ArrayBuffer | ArrayBufferView;

/** What `init({ module_or_path })` takes: a module, bytes, a URL (string or `URL`), a `Request` or a `Response`. */
export type InitInput =
  | SyncInitInput
  | string
  | GlobalInstance<"URL">
  | GlobalInstance<"Request">
  | GlobalInstance<"Response">;

/**
 * What `init()` resolves to and `initSync()` returns: nothing. (Before 0.2 they handed out the raw wasm
 * exports, which bypassed the package's guard; the name stays so that code naming it still compiles.)
 * @deprecated the init functions return nothing
 */
export type InitOutput = void;

/**
 * JSON text the host already holds (a sandbox's answer, a queued message), passed as it is: the gate
 * reads it without writing an object argument as JSON text. Accepted as
 * `foldResults`' `results` and `updateSession`'s `artifact`; anywhere else (nested in an object
 * included) it is refused with code "invalid_type". The text is parsed as any argument is, so a
 * refusal names the same path an object would get (`results[0].artifact.files[1].name`); invalid JSON
 * is "invalid_json", and an unpaired surrogate is escaped here so that the gate refuses it
 * ("lone_surrogate") at its path. Throws "invalid_type" for a non-string, "invalid_json" for "".
 */
export declare class JsonText {
  constructor(text: string);
  /** The text as the gate reads it (unpaired surrogates escaped as `\uXXXX`). */
  readonly text: string;
  /** `JSON.stringify` of an object holding one writes the text as a string. */
  toJSON(): string;
}

export declare class Gate {
  /** A gate for one conversation, configured by {@link GateConfig} (profile "3.9" by default). */
  constructor(config?: GateConfig);
  /** The SDK profile this gate reproduces. */
  readonly profile: SdkProfile;
  /** A gate restored from a snapshot (text or parsed), all validated first; with `config`, the snapshot
   * must have been written under it (code "config_mismatch"). */
  static fromSnapshot(snapshot: string | object, config?: Omit<GateConfig, "sessions"> | null): Gate;
  /** Releases the gate's memory in the module; later calls throw a `CodeSessionGateError` (code "freed"). */
  free(): void;
  /** `free()`, for `using gate = new Gate(…)`. */
  [Symbol.dispose](): void;
}

/** The methods that run an operation of the module: `ops.d.ts`, generated from its operation registry. */
export interface Gate extends GateOperations {}

/** The bytes of the modules' linear memories (they grow in 64 KiB pages and never shrink). */
export declare function memoryBytes(): number;

/**
 * Replaces a trapped instance without restarting the process: retires every gate of the old instance
 * (their calls throw code "poisoned": restore them with `Gate.fromSnapshot`) and makes fresh instances of
 * both modules already loaded (wasm-bindgen's generated reset); `options.module` is checked to be the
 * package's core module. `false`, doing nothing, when the instance is not poisoned.
 */
export declare function recover(options: { module: SyncInitInput }): boolean;

/** Whether `e` is an error this package threw (with `code`, of that code): by its shape, not
 * `instanceof`, so across the ESM and CommonJS entries and across realms. */
export declare function isCodeSessionGateError(e: unknown): e is CodeSessionGateError;
export declare function isCodeSessionGateError<C extends CodeSessionGateErrorCode>(
  e: unknown,
  code: C,
): e is CodeSessionGateError & { code: C };

/**
 * Instantiates the sandbox module (`code_session_sandbox_bg.wasm`: the exec wire, the sandbox dialects,
 * `explainInjectedFileRef`, `diffSessions`) synchronously from a `WebAssembly.Module` or its bytes; a
 * no-op once loaded. The Node, Bun, inline and workerd entries load it by themselves on first use.
 */
export declare function initSandboxSync(options: { module: SyncInitInput }): void;

/**
 * Instantiates the sandbox module from `options.module_or_path` (a `Module`, bytes, a URL or a
 * `Response`), or, without options, from where the entry knows it (the browser entry fetches it from
 * beside itself); a no-op once loaded. Until then, in browsers and with the slim entry, the sandbox
 * functions throw code "not_initialized".
 */
export declare function initSandbox(options?: { module_or_path: InitInput | Promise<InitInput> }): Promise<void>;
