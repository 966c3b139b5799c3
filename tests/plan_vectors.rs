//! Runs every `plan_request` vector of the shared conformance file and of `conformance/extra-plan.json`
//! through the native adapter, under each profile the vector lists (until the project's runner does).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "conformance/native/plan_request.rs"]
mod plan_request;

use code_session_gate::core::config::Profile;
use code_session_gate::core::error::Path;
use code_session_gate::core::json;
use code_session_gate::core::value::Value;

/// Deep equality with object key order ignored (the vectors' comparison convention).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        _ => a == b,
    }
}

/// Runs the plan_request vectors of `file`; returns (runs per profile, failures).
fn run_file(file: &str) -> ([usize; 2], Vec<String>) {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc = json::parse(&text, &Path::root(file)).unwrap();
    let vectors = doc
        .as_object()
        .unwrap()
        .get("vectors")
        .unwrap()
        .as_array()
        .unwrap();
    let mut runs = [0, 0];
    let mut failures = Vec::new();
    for v in vectors {
        let v = v.as_object().unwrap();
        if v.get("op").and_then(Value::as_str) != Some("plan_request") {
            continue;
        }
        let name = v.get("name").and_then(Value::as_str).unwrap();
        for p in v.get("profiles").and_then(Value::as_array).unwrap() {
            let profile = Profile::parse(p.as_str().unwrap(), &Path::root("profile")).unwrap();
            runs[usize::from(profile.is_3_9())] += 1;
            let got = plan_request::run(v.get("input").unwrap(), profile);
            let want = v.get("expect").unwrap();
            match got {
                Ok(got) if same(&got, want) => {}
                other => failures.push(format!(
                    "{file} {name} [{}]: got {other:?}, want {want:?}",
                    profile.as_str()
                )),
            }
        }
    }
    (runs, failures)
}

#[test]
fn shipped_plan_vectors_pass() {
    let (runs, failures) = run_file("../shared/conformance/vectors.json");
    eprintln!("{runs:?} runs (3.6, 3.9)");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        runs[0] >= 7 && runs[1] >= 10,
        "too few vectors ran: {runs:?}"
    );
}

#[test]
fn extra_plan_vectors_pass() {
    let (runs, failures) = run_file("tests/conformance/extra-plan.json");
    eprintln!("{runs:?} runs (3.6, 3.9)");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        runs[0] >= 52 && runs[1] >= 81,
        "too few vectors ran: {runs:?}"
    );
}
