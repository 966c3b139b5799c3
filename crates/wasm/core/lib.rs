//! `code_session_gate_bg.wasm`, the module every host loads: gates, the narrowing and the request
//! planner. wasm-bindgen writes its exports and their glue: the class `RawGate` with one method per gate
//! operation, and one function per static operation the core serves, all from the registry
//! ([`code_session_gate_boundary::export_core!`]); everything else lives in the `code-session-gate` crate.
code_session_gate::with_operations!(code_session_gate_boundary::export_core);
