//! `code-session-gate`: the session-aware tool set, the file narrowing (`toInjectedFileRef`) and the
//! session merge of the `@librechat/agents` SDK, as a pure-Rust core with a runtime-free WebAssembly
//! binding, so that any JavaScript host gates code-sandbox tool calls exactly as the SDK does.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod api;
pub mod bindings;
/// The rules (the `code-session-gate-rules` crate, `crates/rules`).
pub use code_session_gate_rules as core;

/// The module's allocator: talc instead of the default dlmalloc, measured smaller (6.6 KB less `.wasm`) and
/// faster on the gate's allocation-heavy paths (a fresh context 9.4 -> 8.3 us, a 6-file fold 7.0 -> 6.6 us).
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
