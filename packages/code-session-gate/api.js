// The package's API as hosts import it: the `Gate` class and the functions, over the package's two
// modules, whose exports wasm-bindgen writes with their glue (`code_session_gate.js`,
// `code_session_sandbox.js`; see crates/wasm/boundary). This layer converts and caches; it decides nothing.
// Its parts, each one concern:
//   engine.js     the engine's state (one object) and the modules' loader
//   modules.js    loading the modules into it, recover(), the live constants; guard.js the trap guard
//   read-once.js  each host value read once (what only JavaScript can see), into JSON text;
//                 json-text.js JsonText, text the host already holds
//   call.js       a call's arguments, the call itself, its answer
//   wire.js       (generated from src/wire.rs) the module's answers read by the wire's conventions:
//                 the frozen file lists and contexts they share, the bodies after their heads, and
//                 a host's handling of a forwarded batch
//   gate-base.js  the Gate class's hand-written part and its caches; gate.js (generated) the class
//   errors.js     the package's errors: the one maker, the names
export { default, initSync, initSandbox, initSandboxSync, recover, memoryBytes, CODE_EXECUTION_TOOLS, CODE_ENV_KINDS } from './modules.js';
export { isCodeSessionGateError } from './errors.js';
export { JsonText } from './json-text.js';
export { Gate } from './gate.js';
// The static functions and the constants, written from the operation registry.
export * from './functions.js';

