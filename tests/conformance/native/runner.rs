//! The per-vector logic of the conformance runner, shared by the native runner (`main.rs`, the
//! `conformance` example) and the browser suite (`crates/wasm/boundary/tests/browser_conformance.rs`, the same code compiled
//! to wasm32 and run in headless Chromium / Firefox): which profiles a vector names, the op it runs, how
//! its result is compared, and one pass over a vectors document that reports each failure as text.

use serde_json::Value;

use super::support::{diff, get, show};
use super::{exec_wire, plan_request, session_ops};

/// What one pass over a vectors document did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Vectors read from the document (read by the browser suite, which asserts the count).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub vectors: usize,
    /// (vector, profile) runs that matched their `expect`.
    pub passed: usize,
    /// (vector, profile) runs that did not (or whose op is unknown, or that failed to run).
    pub failed: usize,
}

/// The vectors of a document: a bare array, or the `vectors` member of an object.
pub fn vectors_of(doc: &Value) -> Vec<Value> {
    match doc {
        Value::Array(v) => v.clone(),
        Value::Object(o) => o
            .get("vectors")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The profiles a vector runs under: those it names (of `3.6` and `3.9`), both when it names none.
pub fn profiles_of(vector: &Value) -> Vec<String> {
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

/// Runs `op` on `input` under `profile`; `None` for an op this runner does not know.
pub fn run_op(op: &str, input: &Value, profile: &str) -> Option<Result<Value, String>> {
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

/// The differences between a vector's `expect` and an op's result (empty: it passed).
pub fn compare(op: &str, expect: &Value, actual: &Value) -> Vec<String> {
    if op == "exec_wire" {
        exec_wire::compare(expect, actual)
    } else {
        diff(expect, actual, "$")
    }
}

/// Runs every vector of `doc` under each profile it names. Each failing run is handed to `report` as
/// its lines (the first `FAIL [<side> <profile>] <name>…`, then the differences and the expected and
/// actual values, indented), in the order the runs happen.
pub fn run_doc(doc: &Value, side: &str, report: &mut dyn FnMut(&[String])) -> Tally {
    let vectors = vectors_of(doc);
    let mut tally = Tally {
        vectors: vectors.len(),
        ..Tally::default()
    };
    for v in &vectors {
        let name = get(v, "name")
            .and_then(Value::as_str)
            .unwrap_or("<unnamed>");
        let op = get(v, "op").and_then(Value::as_str).unwrap_or("");
        let input = get(v, "input").cloned().unwrap_or(Value::Null);
        let expect = get(v, "expect").cloned().unwrap_or(Value::Null);
        for profile in profiles_of(v) {
            let tag = format!("[{side} {profile}] {name}");
            match run_op(op, &input, &profile) {
                None => {
                    tally.failed += 1;
                    report(&[format!("FAIL {tag}: unknown op {op:?}")]);
                }
                Some(Err(e)) => {
                    tally.failed += 1;
                    report(&[format!("FAIL {tag}: {e}\n    expected: {}", show(&expect))]);
                }
                Some(Ok(actual)) => {
                    let lines = compare(op, &expect, &actual);
                    if lines.is_empty() {
                        tally.passed += 1;
                    } else {
                        tally.failed += 1;
                        let mut out = Vec::with_capacity(lines.len() + 2);
                        out.push(format!("FAIL {tag}"));
                        out.extend(lines.iter().map(|l| format!("    {l}")));
                        out.push(format!(
                            "    expected: {}\n    actual:   {}",
                            show(&expect),
                            show(&actual)
                        ));
                        report(&out);
                    }
                }
            }
        }
    }
    tally
}
