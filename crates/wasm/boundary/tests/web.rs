//! The core module's exports (`export_core!`) run inside headless Chromium.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

code_session_gate::with_operations!(code_session_gate_boundary::export_core);

#[path = "cases/support.rs"]
mod support;

#[path = "cases/core.rs"]
mod core_cases;
