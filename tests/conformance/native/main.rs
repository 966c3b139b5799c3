//! The native half of the conformance runner: runs every vector of one or more vector files through the
//! gate's operations (the `api` functions the wasm package calls, driven as the JavaScript layer drives
//! them) under each profile the vector names, prints each failure with its expected and actual value,
//! and ends with `native: N passed, N failed`. Exit status 1 on any failure or unknown op.
//!
//! Usage: `cargo run --release --example conformance -- <vectors.json>...`
//!
//! The per-vector logic lives in `runner.rs`, which `crates/wasm/boundary/tests/browser_conformance.rs` compiles to wasm32
//! and runs in a headless browser.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod client;
mod exec_wire;
mod plan_request;
mod runner;
mod session_ops;
mod support;

use serde_json::Value;

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: conformance <vectors.json>...");
        std::process::exit(2);
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
            eprintln!("cannot read {file}: {e}");
            std::process::exit(2);
        });
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            eprintln!("cannot parse {file}: {e}");
            std::process::exit(2);
        });
        let tally = runner::run_doc(&doc, "native", &mut |lines| {
            for l in lines {
                println!("{l}");
            }
        });
        passed += tally.passed;
        failed += tally.failed;
    }
    println!("native: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
