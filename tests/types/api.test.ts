// Type tests of the package's public .d.ts: compile-only (tsc --noEmit), nothing runs. A line marked
// `@ts-expect-error` must fail to compile; `expectType<Equal<A, B>>()` fails unless A and B are identical.
import init, {
  CODE_ENV_KINDS,
  CODE_EXECUTION_TOOLS,
  initSync,
  toInjectedFileRef,
  type CodeEnvFile,
  type CodeEnvKind,
  type CodeExecutionToolName,
  type InitOutput,
} from 'code-session-gate';
import initSlim, * as slim from 'code-session-gate/slim';
import initNode, * as nodeEntry from '../../pkg/node.js';
import * as workerdEntry from '../../pkg/workerd.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
declare function expectType<T extends true>(): void;

// --- toInjectedFileRef -------------------------------------------------------------------------------
const ref = toInjectedFileRef({ id: 'f1', name: 'a.txt' }, 'e0');
expectType<Equal<typeof ref, CodeEnvFile>>();
expectType<Equal<ReturnType<typeof slim.toInjectedFileRef>, CodeEnvFile>>();
expectType<Equal<ReturnType<typeof nodeEntry.toInjectedFileRef>, CodeEnvFile>>();
expectType<Equal<typeof ref.kind, CodeEnvKind>>();
// @ts-expect-error a file ref needs an id and a name
toInjectedFileRef({ name: 'a.txt' }, 'e0');

// --- constants ----------------------------------------------------------------------------------------
// Default / browser / deno / slim entries: live bindings, undefined until init() resolves.
expectType<Equal<typeof CODE_EXECUTION_TOOLS, readonly CodeExecutionToolName[] | undefined>>();
expectType<Equal<typeof CODE_ENV_KINDS, readonly CodeEnvKind[] | undefined>>();
expectType<Equal<typeof slim.CODE_EXECUTION_TOOLS, readonly CodeExecutionToolName[] | undefined>>();
// Node and workerd entries: set at import.
expectType<Equal<typeof nodeEntry.CODE_EXECUTION_TOOLS, readonly CodeExecutionToolName[]>>();
expectType<Equal<typeof workerdEntry.CODE_ENV_KINDS, readonly CodeEnvKind[]>>();
// @ts-expect-error the arrays are frozen
nodeEntry.CODE_EXECUTION_TOOLS.push('execute_code');
const tool: CodeExecutionToolName = nodeEntry.CODE_EXECUTION_TOOLS[0]!;
// @ts-expect-error not a built-in code tool
const notATool: CodeExecutionToolName = 'create_file';

// --- init signatures -----------------------------------------------------------------------------------
expectType<Equal<ReturnType<typeof init>, Promise<InitOutput>>>();
void init(); // the default entry finds the .wasm itself
void init({ module_or_path: new URL('https://example.invalid/x.wasm') });
initSync({ module: new Uint8Array(0) });
declare const compiled: WebAssembly.Module;
slim.initSync({ module: compiled });
void initSlim({ module_or_path: compiled });
// @ts-expect-error the slim entry has no default location: a module is required
void initSlim();
void initNode(); // already initialised: a no-op
nodeEntry.initSync();

export { tool, notATool };
