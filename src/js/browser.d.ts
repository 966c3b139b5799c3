// Types of the browser / Deno / default entry (browser.js), also the `types` of the package's "."
// export: portable code calls `await init()` once before using the API.
import type { InitInput } from './api.js';

export * from './slim.js';

/**
 * Instantiates the module, by default from `code_session_gate_bg.wasm` beside the entry (fetched).
 * Calling it again is a no-op. Until it resolves,
 * `CODE_EXECUTION_TOOLS` and `CODE_ENV_KINDS` are `undefined` and the functions throw.
 */
export default function init(options?: { module_or_path: InitInput | Promise<InitInput> }): Promise<void>;

/**
 * Replaces a trapped instance with a fresh one, from `options.module` or the `.wasm` beside the entry
 * (fetched); resolves to `false` when nothing was poisoned.
 */
export declare function recover(options?: { module?: import('./api.js').SyncInitInput }): Promise<boolean>;
