//! The sandbox module's exports as `export_sandbox!` writes them (the test crate that includes this file
//! invokes it), called inside a JavaScript host: answers, and refusals as the package's JavaScript
//! errors (`name`, `code`, `path`, a sandbox's `status` and `retryAfterSeconds`).

use wasm_bindgen_test::wasm_bindgen_test;

use super::support::{get, refusal};
use super::*;

#[wasm_bindgen_test]
fn an_answer_is_the_operations_json_text() {
    let out = stripTrustedFields(code_session_gate_boundary::args::push(
        r#"{"code":"print(1)","session_id":"s"}"#,
    ))
    .unwrap();
    assert_eq!(
        out.as_deref(),
        Some(r#"{"args":{"code":"print(1)"},"dropped":["session_id"]}"#)
    );
    let said = constants();
    assert!(said.contains(r#""module":"sandbox""#), "{said}");
}

#[wasm_bindgen_test]
fn a_refusal_is_a_code_session_gate_error_with_its_path() {
    let e = explainInjectedFileRef(
        code_session_gate_boundary::args::push(r#"{"id":"f","name":7}"#),
        code_session_gate_boundary::args::push(r#""e""#),
    )
    .unwrap_err();
    assert_eq!(
        refusal(e),
        (
            "CodeSessionGateError".into(),
            "invalid_type".into(),
            "file.name".into()
        )
    );
    // `undefined` where a value is required.
    let e =
        explainInjectedFileRef(0, code_session_gate_boundary::args::push(r#""e""#)).unwrap_err();
    assert_eq!(refusal(e).1, "missing_field");
}

#[wasm_bindgen_test]
fn a_sandbox_refusal_carries_its_status_and_retry_after() {
    let e = readSandboxResponse(code_session_gate_boundary::args::push(
        r#"{"dialect":"codeapi","status":429,"body":"{\"error\":\"slow down\"}","retryAfter":"7"}"#,
    ))
    .unwrap_err();
    assert_eq!(get(&e, "status").as_f64(), Some(429.0));
    assert_eq!(get(&e, "retryAfterSeconds").as_f64(), Some(7.0));
    assert_eq!(refusal(e).0, "CodeSessionGateError");
}

#[wasm_bindgen_test]
fn arguments_past_max_input_bytes_are_refused_before_any_is_read() {
    let big = format!(
        "\"{}\"",
        "x".repeat(code_session_gate::core::limits::MAX_INPUT_BYTES)
    );
    let e = stripTrustedFields(code_session_gate_boundary::args::push(&big)).unwrap_err();
    assert_eq!(refusal(e).1, "limit_exceeded");
}
