// Types of `code-session-gate/slim` (slim.js): the package's API (api.d.ts),
// the constants, and the init functions without a default module location.
import type { InitInput, SyncInitInput } from './api.js';
import type { codeEnvKinds, codeExecutionTools } from './api.js';

export * from './api.js';

/**
 * `CODE_EXECUTION_TOOLS`: the SDK's built-in code tools, in its order (frozen).
 * A live binding: `undefined` until `initSync()` returns or `init()` resolves.
 */
export declare let CODE_EXECUTION_TOOLS: Readonly<ReturnType<typeof codeExecutionTools>> | undefined;

/**
 * `CODE_ENV_KINDS`: `["skill", "agent", "user"]` (frozen).
 * A live binding: `undefined` until `initSync()` returns or `init()` resolves.
 */
export declare let CODE_ENV_KINDS: Readonly<ReturnType<typeof codeEnvKinds>> | undefined;

/**
 * Instantiates the module synchronously from a compiled `WebAssembly.Module` (or its bytes) and
 * returns. Calling it again is a no-op.
 */
export declare function initSync(options: { module: SyncInitInput }): void;

/**
 * Instantiates the module from a `WebAssembly.Module`, bytes, a URL or a `Response` (or a promise of
 * one). Calling it again is a no-op.
 */
export default function init(options: { module_or_path: InitInput | Promise<InitInput> }): Promise<void>;
