//! The wasm exports exercised in headless Chromium (wasm-bindgen-test, `run_in_browser`):
//!
//!   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown --test web
//!
//! (scripts/test.sh also passes tests/webdriver.json for the browser flags this machine needs).
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "wasm/cases.rs"]
mod cases;
