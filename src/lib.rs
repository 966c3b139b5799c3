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
/// The rules (the `code-session-gate-rules` crate, `crates/rules`).
pub use code_session_gate_rules as core;
