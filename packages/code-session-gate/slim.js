// `code-session-gate/slim`: the package without any loader. Nothing is fetched or read: the host
// passes the compiled module (or its bytes), e.g. when it bundles or caches the `.wasm` itself.
//
//   import init, { initSync, toInjectedFileRef } from 'code-session-gate/slim';
//   initSync({ module });                  // a WebAssembly.Module (or bytes), synchronously
//   await init({ module_or_path: module }); // or asynchronously (Module, bytes, URL, Response, ...)
//
// CODE_EXECUTION_TOOLS and CODE_ENV_KINDS are live bindings: `undefined` until `initSync()` returns
// or `init()` resolves, then frozen arrays read from the wasm.
// The init functions and the constants are the API's own (modules.js), as every entry exports them.
export * from './api.js';
export { default } from './api.js';
