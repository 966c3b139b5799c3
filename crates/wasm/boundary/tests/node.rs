//! The core module's exports (`export_core!`) run inside Node (`wasm-bindgen-test-runner`).
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

code_session_gate::with_operations!(code_session_gate_boundary::export_core);

#[path = "cases/support.rs"]
mod support;

#[path = "cases/core.rs"]
mod core_cases;
