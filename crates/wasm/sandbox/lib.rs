//! `code_session_sandbox_bg.wasm`, the module a host loads only when it uses it: the exec wire, the
//! sandbox dialects (`buildSandboxRequest`, `readSandboxResponse`, trusted fields) and the devtools
//! page's explanations. wasm-bindgen writes its exports and their glue, one function per operation the
//! registry lists for it ([`code_session_gate_boundary::export_sandbox!`]).
code_session_gate::with_operations!(code_session_gate_boundary::export_sandbox);
