// Type tests of what the packaging issue added: the error-code union and its guard, init() resolving
// to nothing, the inline and CommonJS entries' types, and `using`. Compile-only.
import init, {
  Gate,
  initSync,
  isCodeSessionGateError,
  toInjectedFileRef,
  type CodeSessionGateError,
  type CodeSessionGateErrorCode,
} from 'code-session-gate';
import * as inline from 'code-session-gate/inline';
import type * as cjs from '../../pkg/node.cjs';
import wasmModule from 'code-session-gate/code_session_gate_bg.wasm';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
declare function expectType<T extends true>(): void;

// --- init resolves to nothing a host could misuse ----------------------------------------------------------
expectType<Equal<ReturnType<typeof init>, Promise<void>>>();
expectType<Equal<ReturnType<typeof initSync>, void>>();
expectType<Equal<ReturnType<typeof inline.default>, Promise<void>>>();

// --- error codes ------------------------------------------------------------------------------------------
declare const thrown: unknown;
if (isCodeSessionGateError(thrown)) {
  expectType<Equal<typeof thrown.code, CodeSessionGateErrorCode>>();
  const path: string = thrown.path;
  void path;
  // @ts-expect-error not one of the documented codes
  if (thrown.code === 'no_such_code') throw thrown;
}
if (isCodeSessionGateError(thrown, 'limit_exceeded')) {
  expectType<Equal<typeof thrown.code, 'limit_exceeded'>>();
}
// @ts-expect-error the code must be a documented one
isCodeSessionGateError(thrown, 'not_a_code');
const code: CodeSessionGateError['code'] = 'freed';

// --- per-entry constants ----------------------------------------------------------------------------------
// The inline entry is ready at import, as the Node and workerd entries.
expectType<Equal<typeof inline.CODE_EXECUTION_TOOLS, Readonly<ReturnType<typeof inline.codeExecutionTools>>>>();
const first: string = inline.CODE_ENV_KINDS[0]!;
// The CommonJS types are a copy of the Node entry's.
expectType<Equal<typeof cjs.CODE_EXECUTION_TOOLS, typeof inline.CODE_EXECUTION_TOOLS>>();
expectType<Equal<ReturnType<typeof cjs.toInjectedFileRef>, ReturnType<typeof toInjectedFileRef>>>();

// --- the raw module subpath, as workerd and wrangler hand it over -----------------------------------------
expectType<Equal<typeof wasmModule, WebAssembly.Module>>();

// --- using --------------------------------------------------------------------------------------------------
function scoped(): number {
  using gate = new Gate({});
  return gate.verdict('bash_tool');
}

export { code, first, scoped };
