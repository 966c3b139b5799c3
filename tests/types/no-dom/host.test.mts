// Compiles against every entry's types with lib es2022 alone: nothing in them may name a DOM or Node
// type (URL, Response, WebAssembly, Symbol.dispose through a newer lib).
import init, { Gate, isCodeSessionGateError, toInjectedFileRef, type InitInput, type SyncInitInput } from 'code-session-gate';
import * as inline from 'code-session-gate/inline';
import * as slim from 'code-session-gate/slim';
import * as browser from '../../../pkg/browser.js';
import * as workerd from '../../../pkg/workerd.js';
import wasm from 'code-session-gate/code_session_gate_bg.wasm';

const gate = new Gate({ codeSessionToolNames: ['create_file'] });
const ref = toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0');
const bytes: SyncInitInput = new Uint8Array(8);
const where: InitInput = 'https://example.invalid/code_session_gate_bg.wasm';
slim.initSync({ module: bytes });
void init();
void browser.default({ module_or_path: where });
gate[Symbol.dispose]();
const n: number = inline.CODE_EXECUTION_TOOLS.length + workerd.CODE_ENV_KINDS.length;
const e: unknown = null;
const isOurs: boolean = isCodeSessionGateError(e, 'freed');

export { ref, n, isOurs, wasm };
