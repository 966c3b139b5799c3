//! The sandbox module's exports (`export_sandbox!`) run inside Node: a crate of their own, as the
//! modules are (both write `constants()`).
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

code_session_gate::with_operations!(code_session_gate_boundary::export_sandbox);

#[path = "cases/support.rs"]
mod support;

#[path = "cases/sandbox.rs"]
mod sandbox_cases;
