// Types of the Node entry (node.js), which instantiates synchronously at import: the constants are
// set from the start and the init functions only return the existing exports.
import type { InitInput, SyncInitInput } from './api.js';
import type { codeEnvKinds, codeExecutionTools } from './api.js';

export * from './slim.js';

/** `CODE_EXECUTION_TOOLS`: the SDK's built-in code tools, in its order (frozen). */
export declare const CODE_EXECUTION_TOOLS: Readonly<ReturnType<typeof codeExecutionTools>>;

/** `CODE_ENV_KINDS`: `["skill", "agent", "user"]` (frozen). */
export declare const CODE_ENV_KINDS: Readonly<ReturnType<typeof codeEnvKinds>>;

/** Already initialised at import: a no-op. */
export declare function initSync(options?: { module: SyncInitInput }): void;

/** Already initialised at import: a no-op that resolves at once. */
export default function init(options?: { module_or_path: InitInput | Promise<InitInput> }): Promise<void>;

/** Replaces a trapped instance with a fresh one read from the `.wasm` beside the entry; `false` when nothing was poisoned. */
export declare function recover(): boolean;
