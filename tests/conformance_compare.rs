//! The conformance runner's comparators must report differences, or a broken adapter would pass every
//! vector: this checks the `exec_wire` comparison (includes, excludes, endpoint, headers, artifact)
//! and the deep comparison of the other ops.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "conformance/native/client.rs"]
#[allow(dead_code)]
mod client;
#[path = "conformance/native/exec_wire.rs"]
mod exec_wire;
#[path = "conformance/native/support.rs"]
#[allow(dead_code)]
mod support;

use serde_json::Value;

fn p(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn compare_reports_each_kind_of_difference() {
    let input = p(r#"{"tool":"run_tools_with_code","model_args":{"code":"x","tool_manifest":[]}}"#);
    let actual = exec_wire::run(&input, "3.9").unwrap();
    let expect = p(
        r#"{"includes":{"lang":"bash","timeout":15000,"nope":1},"excludes":["code"],"endpoint":"exec/programmatic",
            "headers":{"content-type":null,"User-Agent":"x","X-LibreChat-Code-Request-ID":null},
            "artifact":{"session_id":"oracle-wire"}}"#,
    );
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

#[test]
fn deep_diff_reports_values_keys_and_order() {
    assert!(support::diff(
        &p(r#"{"a":[1,{"b":null}],"c":"x"}"#),
        &p(r#"{"c":"x","a":[1,{"b":null}]}"#),
        "$"
    )
    .is_empty());
    let lines = support::diff(
        &p(r#"{"a":[1,2],"b":true,"c":{}}"#),
        &p(r#"{"a":[2,1],"b":false,"d":0}"#),
        "$",
    );
    assert_eq!(
        lines,
        [
            "$.a[0]: expected 1, actual 2",
            "$.a[1]: expected 2, actual 1",
            "$.b: expected true, actual false",
            "$.c: expected {}, actual <absent>",
            "$.d: expected <absent>, actual 0",
        ]
    );
}
