//! Runs every `exec_wire` vector (the shipped conformance file and `tests/conformance/extra-wire.json`)
//! through the native adapter, under each profile the vector names. Temporary: the conformance runner
//! covers the same ground once it includes the adapter.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "conformance/native/exec_wire.rs"]
mod exec_wire;

use code_session_gate::core::config::Profile;
use code_session_gate::core::error::Path;
use code_session_gate::core::json;
use code_session_gate::core::value::Value;

fn vectors(relative: &str) -> Vec<Value> {
    let file = format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
    let doc = json::parse(&text, &Path::root(relative)).unwrap_or_else(|e| panic!("{e}"));
    doc.as_object()
        .and_then(|o| o.get("vectors"))
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{file}: no vectors"))
        .iter()
        .filter(|v| {
            v.as_object().and_then(|o| o.get("op")) == Some(&Value::String("exec_wire".into()))
        })
        .cloned()
        .collect()
}

fn profiles(vector: &Value) -> Vec<Profile> {
    match vector
        .as_object()
        .and_then(|o| o.get("profiles"))
        .and_then(Value::as_array)
    {
        Some(list) => list
            .iter()
            .map(|p| Profile::parse(p.as_str().unwrap(), &Path::root("profiles")).unwrap())
            .collect(),
        None => vec![Profile::V3_6, Profile::V3_9],
    }
}

/// Returns `(passed per profile [3.6, 3.9], failures)`.
fn run_file(relative: &str) -> ([usize; 2], Vec<String>) {
    let mut passed = [0, 0];
    let mut failures = Vec::new();
    for v in vectors(relative) {
        let o = v.as_object().unwrap();
        let name = o.get("name").and_then(Value::as_str).unwrap_or("<unnamed>");
        let input = o.get("input").unwrap();
        let expect = o.get("expect").unwrap();
        for profile in profiles(&v) {
            let tag = format!("[{}] {name}", profile.as_str());
            match exec_wire::run(input, profile) {
                Err(e) => failures.push(format!("{tag}: {e}")),
                Ok(actual) => {
                    let lines = exec_wire::compare(expect, &actual);
                    if lines.is_empty() {
                        passed[usize::from(profile.is_3_9())] += 1;
                    } else {
                        failures.push(format!("{tag}\n    {}", lines.join("\n    ")));
                    }
                }
            }
        }
    }
    (passed, failures)
}

fn check(relative: &str) {
    let (passed, failures) = run_file(relative);
    println!(
        "{relative}: 3.6 {} passed, 3.9 {} passed",
        passed[0], passed[1]
    );
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        passed[0] + passed[1] > 0,
        "{relative}: no exec_wire vectors ran"
    );
}

#[test]
fn shipped_exec_wire_vectors() {
    check("../shared/conformance/vectors.json");
}

#[test]
fn extra_exec_wire_vectors() {
    check("tests/conformance/extra-wire.json");
}

#[test]
fn compare_reports_each_kind_of_difference() {
    let input = json::parse(
        r#"{"tool":"run_tools_with_code","model_args":{"code":"x","tool_manifest":[]}}"#,
        &Path::root("input"),
    )
    .unwrap();
    let actual = exec_wire::run(&input, Profile::V3_9).unwrap();
    let expect = json::parse(
        r#"{"includes":{"lang":"bash","timeout":15000,"nope":1},"excludes":["code"],"endpoint":"exec/programmatic",
            "headers":{"content-type":null,"User-Agent":"x","X-LibreChat-Code-Request-ID":null},
            "artifact":{"session_id":"oracle-wire"}}"#,
        &Path::root("expect"),
    )
    .unwrap();
    let lines = exec_wire::compare(&expect, &actual);
    let starts: Vec<&str> = lines.iter().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(
        starts,
        [
            "body.lang",
            "body.nope",
            "body.code",
            "endpoint",
            "header content-type",
            "header User-Agent",
            "artifact"
        ],
        "{lines:#?}"
    );
}
