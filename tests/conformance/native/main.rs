//! The native half of the conformance runner: runs every vector of one or more vector files through the
//! gate's operations (the `api` functions the wasm package calls, driven as the JavaScript layer drives
//! them) under each profile the vector names, prints each failure with its expected and actual value,
//! and ends with `native: N passed, N failed`. Exit status 1 on any failure or unknown op.
//!
//! Usage: `cargo run --release --example conformance -- <vectors.json>...`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod client;
mod exec_wire;
mod plan_request;
mod session_ops;
mod support;

use serde_json::Value;
use support::{diff, get, show};

fn profiles_of(vector: &Value) -> Vec<String> {
    match get(vector, "profiles").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|p| p.as_str())
            .filter(|p| matches!(*p, "3.6" | "3.9"))
            .map(str::to_owned)
            .collect(),
        None => vec!["3.6".to_owned(), "3.9".to_owned()],
    }
}

fn run_op(op: &str, input: &Value, profile: &str) -> Option<Result<Value, String>> {
    Some(match op {
        "gate" => session_ops::gate(input, profile),
        "eager_excluded" => session_ops::eager_excluded(input, profile),
        "narrow" => session_ops::narrow(input),
        "context_for_call" => session_ops::context_for_call(input, profile),
        "update_session" => session_ops::update_session(input, profile),
        "fold_results" => session_ops::fold_results(input, profile),
        "seed" => session_ops::seed(input, profile),
        "plan_request" => plan_request::run(input, profile),
        "exec_wire" => exec_wire::run(input, profile),
        _ => return None,
    })
}

fn compare(op: &str, expect: &Value, actual: &Value) -> Vec<String> {
    if op == "exec_wire" {
        exec_wire::compare(expect, actual)
    } else {
        diff(expect, actual, "$")
    }
}

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
        let vectors = match &doc {
            Value::Array(v) => v.clone(),
            Value::Object(o) => o
                .get("vectors")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        for v in &vectors {
            let name = get(v, "name")
                .and_then(Value::as_str)
                .unwrap_or("<unnamed>");
            let op = get(v, "op").and_then(Value::as_str).unwrap_or("");
            let input = get(v, "input").cloned().unwrap_or(Value::Null);
            let expect = get(v, "expect").cloned().unwrap_or(Value::Null);
            for profile in profiles_of(v) {
                let tag = format!("[native {profile}] {name}");
                match run_op(op, &input, &profile) {
                    None => {
                        failed += 1;
                        println!("FAIL {tag}: unknown op {op:?}");
                    }
                    Some(Err(e)) => {
                        failed += 1;
                        println!("FAIL {tag}: {e}\n    expected: {}", show(&expect));
                    }
                    Some(Ok(actual)) => {
                        let lines = compare(op, &expect, &actual);
                        if lines.is_empty() {
                            passed += 1;
                        } else {
                            failed += 1;
                            println!("FAIL {tag}");
                            for l in &lines {
                                println!("    {l}");
                            }
                            println!(
                                "    expected: {}\n    actual:   {}",
                                show(&expect),
                                show(&actual)
                            );
                        }
                    }
                }
            }
        }
    }
    println!("native: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
