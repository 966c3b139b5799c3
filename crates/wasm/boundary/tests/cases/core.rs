//! The core module's exports as `export_core!` writes them (the test crate that includes this file
//! invokes it), called inside a JavaScript host: the static operations' answers and refusals, a gate
//! (`RawGate`) folding, refusing without a change and being freed, and the arguments as the boundary
//! reads them from their buffer (texts, bytes as UTF-8, `maxInputBytes`).

use code_session_gate::GATE_OPS;
use js_sys::JSON;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

use super::support::{get, refusal};
use super::*;

/// An argument as the layer passes it: written into the arguments' buffer after the call's earlier ones.
fn text(t: &str) -> u32 {
    code_session_gate_boundary::args::push(t)
}

/// `toInjectedFileRef`'s answer (every answer of the operation is a text).
fn narrow(file: &str, exec: &str) -> Result<String, JsValue> {
    toInjectedFileRef(text(file), text(exec)).map(Option::unwrap_or_default)
}

#[wasm_bindgen_test]
fn narrows_a_user_file() {
    assert_eq!(
        narrow(r#"{"id":"f1","name":"a.txt"}"#, r#""e0""#).unwrap(),
        r#"{"id":"f1","resource_id":"f1","name":"a.txt","storage_session_id":"e0","kind":"user"}"#
    );
}

#[wasm_bindgen_test]
fn skill_keeps_its_version_and_non_ascii_text_crosses_intact() {
    assert_eq!(
        narrow(
            r#"{"id":"f","name":"ž/😀.md","kind":"skill","version":0}"#,
            r#""é""#
        )
        .unwrap(),
        r#"{"id":"f","resource_id":"f","name":"ž/😀.md","storage_session_id":"é","kind":"skill","version":0}"#
    );
}

#[wasm_bindgen_test]
fn refusals_carry_code_and_path() {
    let cases = [
        (r#"{"name":"a"}"#, r#""e""#, "missing_field", "file.id"),
        (
            r#"{"id":1,"name":"a"}"#,
            r#""e""#,
            "invalid_type",
            "file.id",
        ),
        (
            r#"{"id":"a","name":"n","version":"3"}"#,
            r#""e""#,
            "invalid_type",
            "file.version",
        ),
        (
            r#"{"id":"a\ud800","name":"n"}"#,
            r#""e""#,
            "lone_surrogate",
            "file.id",
        ),
        (
            r#"{"id":"a","name":"n"}"#,
            "5",
            "invalid_type",
            "execSessionId",
        ),
        (r#""file""#, r#""e""#, "invalid_type", "file"),
    ];
    for (file, exec, code, path) in cases {
        let (name, c, p) = refusal(narrow(file, exec).unwrap_err());
        assert_eq!(name, "CodeSessionGateError");
        assert_eq!((c.as_str(), p.as_str()), (code, path), "{file}");
    }
}

#[wasm_bindgen_test]
fn undefined_and_text_that_is_not_json_are_refusals() {
    let e = toInjectedFileRef(0, text(r#""e""#)).unwrap_err();
    assert_eq!(refusal(e).1, "missing_field");
    let e = toInjectedFileRef(text("{"), text(r#""e""#)).unwrap_err();
    assert_eq!(refusal(e).1, "invalid_json");
}

#[wasm_bindgen_test]
fn constants_name_every_operation() {
    let v = JSON::parse(&constants()).unwrap();
    assert_eq!(get(&v, "module").as_string().unwrap(), "core");
    let ops = get(&v, "gateOps");
    assert_eq!(js_sys::Array::from(&ops).length() as usize, GATE_OPS.len());
}

#[wasm_bindgen_test]
fn a_gate_folds_and_answers_and_a_refused_fold_changes_nothing() {
    let mut gate = RawGate::new(text(
        r#"{"codeSessionToolNames":["create_file"],"sessions":[["execute_code",{"session_id":"e0","files":[],"lastUpdated":1}]]}"#,
    ))
    .unwrap();
    let created = gate.take_created();
    assert!(created.starts_with(r#"{"profile":"3.9""#), "{created}");
    assert_eq!(gate.take_created(), "", "taken once");
    assert_eq!(
        gate.verdict(text(r#""create_file""#)).unwrap().as_deref(),
        Some("127")
    );
    let fold = |file: &str| text(&format!(r#"{{"session_id":"e1","files":[{file}]}}"#));
    let before = gate.sessions().unwrap();
    let e = gate
        .updateSession(
            text(r#""execute_code""#),
            fold(r#"{"id":"g"}"#),
            text(r#"{"now":5}"#),
        )
        .unwrap_err();
    assert_eq!(refusal(e).2, "artifact.files[0].name");
    assert_eq!(gate.sessions().unwrap(), before);
    let out = gate
        .updateSession(
            text(r#""execute_code""#),
            fold(r#"{"id":"f","name":"a.py"}"#),
            text(r#"{"now":5}"#),
        )
        .unwrap();
    assert_eq!(out.as_deref(), Some("null"));
    assert_eq!(
        gate.session(text(r#""execute_code""#)).unwrap().as_deref(),
        Some(
            r#"{"session_id":"e1","files":[{"id":"f","name":"a.py","storage_session_id":"e1"}],"lastUpdated":5}"#
        )
    );
    // An unknown partition answers nothing (`undefined`); `undefined` where a key is required is
    // refused.
    assert_eq!(gate.session(text(r#""nope""#)).unwrap(), None);
    assert_eq!(refusal(gate.session(0).unwrap_err()).1, "invalid_type");
}

#[wasm_bindgen_test]
fn a_refused_configuration_makes_no_gate() {
    let e = RawGate::new(text(r#"{"profile":"3.8"}"#))
        .map(|_| ())
        .unwrap_err();
    let (_, code, path) = refusal(e);
    assert_eq!(
        (code.as_str(), path.as_str()),
        ("invalid_value", "config.profile")
    );
}

#[wasm_bindgen_test]
fn bytes_cross_as_utf8_read_as_response_text_reads_them_and_size_is_bounded() {
    use code_session_gate_boundary::args::with_texts;
    let bytes = code_session_gate_boundary::args::push_bytes(&[0xff, b'a', 0xe2, 0x82]);
    let seen = with_texts(&[bytes, 0, 0], |t| {
        Ok(t.iter().map(|a| a.map(str::to_owned)).collect::<Vec<_>>())
    })
    .unwrap();
    assert_eq!(seen, vec![Some("\u{fffd}a\u{fffd}".to_owned()), None, None]);
    let big = text(&"x".repeat(code_session_gate::core::limits::MAX_INPUT_BYTES + 1));
    let e = with_texts(&[big], |_| Ok(())).unwrap_err();
    assert_eq!(e.code.as_str(), "limit_exceeded");
}

#[wasm_bindgen_test]
fn arguments_are_read_in_order_from_the_buffer_and_never_past_it() {
    use code_session_gate_boundary::args::{push, with_texts};
    let lens = [push("ab"), 0, push("é"), push("")];
    assert_eq!(lens, [3, 0, 3, 1]);
    let seen = with_texts(&lens, |t| {
        Ok(t.iter().map(|a| a.map(str::to_owned)).collect::<Vec<_>>())
    })
    .unwrap();
    assert_eq!(
        seen,
        vec![
            Some("ab".to_owned()),
            None,
            Some("é".to_owned()),
            Some(String::new())
        ]
    );
    // A length the buffer does not hold is refused, not read past (between calls the buffer keeps at
    // most 1 MiB, and 2 MiB is within maxInputBytes).
    let e = with_texts(&[push("ab"), 2 << 20], |_| Ok(())).unwrap_err();
    assert_eq!(e.code.as_str(), "limit_exceeded");
    assert!(e.message.contains("the arguments' buffer"), "{}", e.message);
    // Lengths whose sum passes the address space are refused, not wrapped round: on wasm32 these sum
    // to 2^32 + 2 bytes, which wraps to 2, what the buffer holds.
    let e = with_texts(&[u32::MAX, 3, push("ab")], |_| Ok(())).unwrap_err();
    assert_eq!(e.code.as_str(), "limit_exceeded");
}
