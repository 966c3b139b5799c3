//! Every conformance vector in a real browser: the shared vectors (the committed copy,
//! `tests/conformance/upstream/vectors.json`) and our own (`tests/conformance/vectors.json`), each under
//! every profile it names, run through the wasm build inside headless Chromium (or Firefox). The
//! per-vector logic is the native runner's (`tests/conformance/native/`, compiled here to wasm32); its
//! client calls the `#[wasm_bindgen]` exports (`RawGate`, `callStatic`) with the arguments framed as
//! the JavaScript layer frames them. Each failing run is reported by name with its expected and actual
//! value, and the number of vectors and runs is checked so that an empty or truncated file cannot pass.
//!
//!   cd crates/wasm/boundary && WASM_BINDGEN_TEST_WEBDRIVER_JSON=$PWD/../../../tests/webdriver.json \
//!   wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver -- --test browser_conformance
//!
//! or without wasm-pack:
//!
//!   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_WEBDRIVER_JSON=$PWD/tests/webdriver.json \
//!   cargo test --target wasm32-unknown-unknown -p code-session-gate-boundary --test browser_conformance
//!
//! (Firefox: `--firefox --geckodriver <path>` / `GECKODRIVER=<path>` instead of the Chrome driver.)
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::Value;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[path = "../../../../tests/conformance/native/client.rs"]
mod client;
#[path = "../../../../tests/conformance/native/exec_wire.rs"]
mod exec_wire;
#[path = "../../../../tests/conformance/native/plan_request.rs"]
mod plan_request;
#[path = "../../../../tests/conformance/native/runner.rs"]
mod runner;
#[path = "../../../../tests/conformance/native/session_ops.rs"]
mod session_ops;
#[path = "../../../../tests/conformance/native/support.rs"]
mod support;

/// The shared vectors, as committed (a copy of `../shared/conformance/vectors.json`).
const SHARED: &str = include_str!("../../../../tests/conformance/upstream/vectors.json");
/// Our own vectors.
const OWN: &str = include_str!("../../../../tests/conformance/vectors.json");

/// Floors on the number of vectors each file holds (their counts when this suite was written; vectors
/// are added, not removed): a file cut short, emptied or read as another shape fails here.
const SHARED_MIN_VECTORS: usize = 185;
const OWN_MIN_VECTORS: usize = 229;

/// Runs every vector of `text` under each profile it names; fails with every failing run's report.
fn run_file(label: &str, text: &str, min_vectors: usize) {
    let doc: Value = serde_json::from_str(text).expect("a vectors file is JSON");
    // The runs the file asks for, counted independently of the runner.
    let expected_runs: usize = runner::vectors_of(&doc)
        .iter()
        .map(|v| runner::profiles_of(v).len())
        .sum();
    let mut report = Vec::new();
    let tally = runner::run_doc(&doc, "browser", &mut |lines| {
        report.push(lines.join("\n"));
    });
    let runs = tally.passed + tally.failed;
    console_log!(
        "{label}: {} vectors, {runs} runs: {} passed, {} failed",
        tally.vectors,
        tally.passed,
        tally.failed
    );
    assert!(
        report.is_empty() && tally.failed == 0,
        "{label}: {} of {runs} runs failed in the browser:\n{}\nbrowser: {} passed, {} failed",
        tally.failed,
        report.join("\n"),
        tally.passed,
        tally.failed
    );
    assert!(
        tally.vectors >= min_vectors,
        "{label}: only {} vectors (at least {min_vectors} expected)",
        tally.vectors
    );
    assert_eq!(
        runs, expected_runs,
        "{label}: {runs} runs, but the vectors name {expected_runs}"
    );
    assert!(
        runs >= tally.vectors,
        "{label}: {runs} runs for {} vectors",
        tally.vectors
    );
}

#[wasm_bindgen_test]
fn shared_vectors_pass_in_the_browser() {
    run_file(
        "shared (tests/conformance/upstream/vectors.json)",
        SHARED,
        SHARED_MIN_VECTORS,
    );
}

#[wasm_bindgen_test]
fn own_vectors_pass_in_the_browser() {
    run_file("own (tests/conformance/vectors.json)", OWN, OWN_MIN_VECTORS);
}
