//! Unit tests (compiled only with `cfg(test)`; the crate allows unwrap, expect and panic there).
#![cfg(test)]

use super::identifiers::{normalize_to_bash_identifier, normalize_to_python_identifier};
use super::*;
use crate::json::{self, Json, JsonMap};

fn j(text: &str) -> Json {
    json::parse(text, &Path::root("test")).unwrap()
}

/// `text` as the raw JSON the operations hand over.
fn raw(text: &str) -> &json::RawJson {
    serde_json::from_str(text).unwrap()
}

fn build(
    profile: Profile,
    tool: &str,
    factory: &str,
    call: &str,
    args: &str,
) -> GateResult<ExecRequest> {
    build_exec_request(profile, tool, Some(raw(factory)), Some(raw(call)), &j(args))
}

fn ok(profile: Profile, tool: &str, factory: &str, call: &str, args: &str) -> ExecRequest {
    match build(profile, tool, factory, call, args) {
        Ok(r) => r,
        Err(e) => panic!("{tool} {factory} {call} {args}: {e}"),
    }
}

fn err(profile: Profile, tool: &str, factory: &str, call: &str, args: &str) -> GateError {
    match build(profile, tool, factory, call, args) {
        Ok(r) => panic!("expected an error, got {r:?}"),
        Err(e) => e,
    }
}

fn body(r: &ExecRequest) -> Json {
    Json::Object(r.body.clone())
}

fn header<'r>(r: &'r ExecRequest, name: &str) -> Option<&'r str> {
    r.headers
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.as_str())
}

fn keys(o: &JsonMap) -> Vec<&str> {
    o.iter().map(|(k, _)| k.as_str()).collect()
}

/// The outcome as its JSON (it borrows from the answer).
fn read(
    profile: Profile,
    tool: &str,
    factory: &str,
    endpoint: Option<&str>,
    resp: &str,
) -> GateResult<Json> {
    let resp = j(resp);
    read_exec_response(profile, tool, Some(raw(factory)), endpoint, &resp)
        .map(|o| serde_json::to_value(o).unwrap())
}

fn artifact(
    profile: Profile,
    tool: &str,
    factory: &str,
    endpoint: Option<&str>,
    resp: &str,
) -> Json {
    match read(profile, tool, factory, endpoint, resp) {
        Ok(Json::Object(mut o)) if o.get("status") == Some(&j(r#""completed""#)) => {
            o.remove("artifact").unwrap()
        }
        other => panic!("expected an artifact, got {other:?}"),
    }
}

const BOTH: [Profile; 2] = [Profile::V3_6, Profile::V3_9];
const HELPER: &str = r#"{"toolDefs":[{"name":"h"}]}"#;
const GUARD: &str = ": &\nwait \"$!\"\n";

mod answers;
mod bodies;
mod programmatic;
mod typed;

#[test]
fn header_values_cannot_carry_line_breaks() {
    let cases = [
        (
            r#"{"executionProfile":"default\r\nX-Evil: 1"}"#,
            "{}",
            "factory.executionProfile",
        ),
        (r#"{}"#, r#"{"requestId":"r\n1"}"#, "toolCall.requestId"),
        (
            r#"{"executionProfile":"a\u0000"}"#,
            "{}",
            "factory.executionProfile",
        ),
    ];
    for profile in [Profile::V3_6, Profile::V3_9] {
        for (factory, call, path) in cases {
            let e = err(profile, "bash_tool", factory, call, r#"{"command":"ls"}"#);
            assert_eq!(
                (e.code, e.path.as_str()),
                (ErrorCode::InvalidValue, path),
                "{factory} {call}"
            );
        }
    }
    let fine = ok(
        Profile::V3_9,
        "bash_tool",
        r#"{"executionProfile":"stateful"}"#,
        r#"{"requestId":"r-1"}"#,
        r#"{"command":"ls"}"#,
    );
    assert_eq!(header(&fine, EXPECTED_PROFILE_HEADER), Some("stateful"));
}
