//! `code_session_sandbox_bg.wasm`, the module a host loads only when it uses it: the exec wire, the
//! sandbox dialects (`buildSandboxRequest`, `readSandboxResponse`, trusted fields) and the devtools
//! page's explanations. Its exports are written by [`code_session_gate::export_module!`].
code_session_gate::export_module!(sandbox);
