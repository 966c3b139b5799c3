// Types of the browser / Deno / default entry (browser.js), also the `types` of the package's "."
// export: portable code calls `await init()` once before using the API.
import type { InitInput } from './api.js';

export * from './slim.js';

/**
 * Instantiates the modules, by default `code_session_gate_bg.wasm` and `code_session_sandbox_bg.wasm`
 * beside the entry (fetched together); `{ sandbox: false }` fetches the core alone (a page that only
 * gates; `initSandbox()` loads the other later). With `{ module_or_path }` the core comes from there
 * and nothing is fetched. Calling it again is a no-op. Until it resolves, `CODE_EXECUTION_TOOLS` and
 * `CODE_ENV_KINDS` are `undefined` and the functions throw.
 */
export default function init(
  options?: { module_or_path: InitInput | Promise<InitInput> } | { sandbox?: boolean },
): Promise<void>;

/**
 * Replaces a trapped instance with a fresh one, from `options.module` or the `.wasm` beside the entry
 * (fetched); resolves to `false` when nothing was poisoned.
 */
export declare function recover(options?: { module?: import('./api.js').SyncInitInput }): Promise<boolean>;
