// The package's API as hosts import it: the `Gate` class and the functions, over the package's two
// modules, whose exports wasm-bindgen writes with their glue (`code_session_gate.js`,
// `code_session_sandbox.js`; see crates/wasm/boundary). This layer converts and caches; it decides nothing.
// Its parts, each one concern:
//   modules.js  loading the modules, their state, the guard, recover()
//   write.js    each host value read once into JSON text (what only JavaScript can see), JsonText
//   call.js     a call's arguments, the call itself, its answer
//   lists.js    the frozen file lists and contexts the answers share
//   gate.js     the Gate class and its caches
//   forward.js  a host's handling of a batch, and the forwarding path's arguments and answers
//   errors.js   the package's errors
export { default, initSync, initSandbox, initSandboxSync, recover, memoryBytes } from './modules.js';
export { isCodeSessionGateError } from './errors.js';
export { JsonText } from './write.js';
export { Gate } from './gate.js';
// The static functions and the constants, written from the operation registry.
export * from './functions.js';

