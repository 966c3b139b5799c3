// The package's API as hosts import it: the `Gate` class and the functions, over the package's two
// modules, whose exports wasm-bindgen writes with their glue (`code_session_gate.js`,
// `code_session_sandbox.js`; see crates/bindgen). This layer converts and caches; it decides nothing.
// Its parts, each one concern:
//   modules.js  loading the modules, their state, the guard, recover()
//   write.js    each host value read once into JSON text (what only JavaScript can see), JsonText
//   call.js     a call's arguments, the call itself, its answer
//   lists.js    the frozen file lists and contexts the answers share
//   gate.js     the Gate class and its caches
//   forward.js  a host's handling of a batch, and the forwarding path's arguments and answers
//   errors.js   the package's errors
import { freeze } from './lists.js';
import { C, LIMIT, guard, live } from './modules.js';

export { default, initSync, initSandbox, initSandboxSync, recover, memoryBytes } from './modules.js';
export { isCodeSessionGateError } from './errors.js';
export { JsonText } from './write.js';
export { Gate } from './gate.js';
// The static functions, written from the operation registry.
export * from './functions.js';

/**
 * The gate's input limits (frozen): `maxInputBytes` of JSON text per call, `maxArrayItems` per array,
 * `maxCallsPerBatch`. A call over one is refused with code "limit_exceeded" and changes nothing.
 */
export function limits() {
  if (!live.open) guard.check('limits');
  return LIMIT;
}

/** `TRUSTED_FIELDS`: the keys only the gate may set on a sandbox request (a fresh array). */
export function trustedFields() {
  if (!live.open) guard.check('trustedFields');
  return [...C.trustedFields];
}

/** `CODE_EXECUTION_TOOLS`: the built-in code tools, in the SDK's order (a fresh array). */
export function codeExecutionTools() {
  if (!live.open) guard.check('codeExecutionTools');
  return [...C.codeExecutionTools];
}

/** `CODE_ENV_KINDS`: `["skill", "agent", "user"]` (a fresh array). */
export function codeEnvKinds() {
  if (!live.open) guard.check('codeEnvKinds');
  return [...C.codeEnvKinds];
}

/** The bit of each gate site in `Gate.verdict(name)`: `{ participates: 1, directInject: 2, … }` (frozen). */
export function verdictBits() {
  if (!live.open) guard.check('verdictBits');
  return freeze(Object.fromEntries(C.verdictBits));
}
