//! The cases shared by `tests/web.rs` (headless Chromium) and `tests/node.rs` (Node): the exported
//! `#[wasm_bindgen]` functions called from Rust inside a real JavaScript host, checking the texts that
//! cross the boundary — answers, refusals (U+0001 then `{code, path, message}`), and the argument
//! framing (UTF-8 texts one after the other, their byte lengths, 0 for `undefined`).

use code_session_gate::api::{GATE_OPS, STATIC_OPS};
use code_session_gate::bindings::{call_static, constants, RawGate};
use js_sys::JSON;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

fn op(table: &[&str], name: &str) -> u32 {
    table.iter().position(|n| *n == name).unwrap() as u32
}

/// The arguments as the JavaScript layer frames them (`None`: `undefined`).
fn frame(args: &[Option<&str>]) -> (Vec<u8>, Vec<u32>) {
    let mut bytes = Vec::new();
    let mut lens = Vec::new();
    for a in args {
        let t = a.unwrap_or("");
        bytes.extend_from_slice(t.as_bytes());
        lens.push(t.len() as u32);
    }
    (bytes, lens)
}

fn narrow(file: &str, exec: &str) -> String {
    let (bytes, lens) = frame(&[Some(file), Some(exec)]);
    call_static(op(&STATIC_OPS, "toInjectedFileRef"), &bytes, &lens)
}

/// A refusal's `(code, path)`, parsed by the host's own `JSON.parse`.
fn refusal(answer: &str) -> (String, String) {
    let text = answer.strip_prefix('\u{1}').expect("a refusal");
    let v = JSON::parse(text).unwrap();
    let get = |k: &str| {
        js_sys::Reflect::get(&v, &JsValue::from_str(k))
            .unwrap()
            .as_string()
            .unwrap()
    };
    assert!(!get("message").is_empty());
    (get("code"), get("path"))
}

#[wasm_bindgen_test]
fn narrows_a_user_file() {
    assert_eq!(
        narrow(r#"{"id":"f1","name":"a.txt"}"#, r#""e0""#),
        r#"{"id":"f1","resource_id":"f1","name":"a.txt","storage_session_id":"e0","kind":"user"}"#
    );
}

#[wasm_bindgen_test]
fn skill_keeps_its_version_and_non_ascii_text_crosses_intact() {
    assert_eq!(
        narrow(
            r#"{"id":"f","name":"ž/😀.md","kind":"skill","version":0}"#,
            r#""é""#
        ),
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
        assert_eq!(
            refusal(&narrow(file, exec)),
            (code.to_owned(), path.to_owned()),
            "{file}"
        );
    }
}

#[wasm_bindgen_test]
fn undefined_and_broken_framing_are_refusals() {
    let (bytes, lens) = frame(&[None, Some(r#""e""#)]);
    let out = call_static(op(&STATIC_OPS, "toInjectedFileRef"), &bytes, &lens);
    assert_eq!(
        refusal(&out),
        ("missing_field".to_owned(), "file".to_owned())
    );
    // Lengths that run past the text, bytes that are not UTF-8, an operation that does not exist.
    let out = call_static(0, b"{}", &[5]);
    assert_eq!(refusal(&out).0, "invalid_json");
    let out = call_static(0, &[0xff, 0xfe], &[2]);
    assert_eq!(refusal(&out).0, "invalid_json");
    assert_eq!(refusal(&call_static(99, b"", &[])).0, "invalid_value");
}

#[wasm_bindgen_test]
fn constants_name_every_operation() {
    let v = JSON::parse(&constants()).unwrap();
    let ops = js_sys::Reflect::get(&v, &JsValue::from_str("gateOps")).unwrap();
    assert_eq!(js_sys::Array::from(&ops).length() as usize, GATE_OPS.len());
}

#[wasm_bindgen_test]
fn a_gate_folds_and_answers_and_a_refused_fold_changes_nothing() {
    let (bytes, lens) = frame(&[Some(
        r#"{"codeSessionToolNames":["create_file"],"sessions":[["execute_code",{"session_id":"e0","files":[],"lastUpdated":1}]]}"#,
    )]);
    let mut gate = RawGate::new(&bytes, &lens).unwrap_or_else(|e| panic!("{e}"));
    let call = |gate: &mut RawGate, name: &str, args: &[Option<&str>]| {
        let (bytes, lens) = frame(args);
        gate.call(op(&GATE_OPS, name), &bytes, &lens)
    };
    assert_eq!(
        call(&mut gate, "verdict", &[Some(r#""create_file""#)]),
        "127"
    );
    let fold = |file: &str| format!(r#"{{"session_id":"e1","files":[{file}]}}"#);
    let good = fold(r#"{"id":"f","name":"a.py"}"#);
    let bad = fold(r#"{"id":"g"}"#);
    let before = call(&mut gate, "sessions", &[]);
    let out = call(
        &mut gate,
        "updateSession",
        &[Some(r#""execute_code""#), Some(&bad), Some(r#"{"now":5}"#)],
    );
    assert_eq!(
        refusal(&out),
        (
            "missing_field".to_owned(),
            "artifact.files[0].name".to_owned()
        )
    );
    assert_eq!(call(&mut gate, "sessions", &[]), before);
    let out = call(
        &mut gate,
        "updateSession",
        &[Some(r#""execute_code""#), Some(&good), Some(r#"{"now":5}"#)],
    );
    assert_eq!(out, "null");
    assert_eq!(
        call(&mut gate, "session", &[Some(r#""execute_code""#)]),
        r#"{"session_id":"e1","files":[{"id":"f","name":"a.py","storage_session_id":"e1"}],"lastUpdated":5}"#
    );
    // An unknown partition answers `undefined` (the empty text).
    assert_eq!(call(&mut gate, "session", &[Some(r#""nope""#)]), "");
}

#[wasm_bindgen_test]
fn a_refused_configuration_is_thrown_as_its_text() {
    let (bytes, lens) = frame(&[Some(r#"{"profile":"3.8"}"#)]);
    let e = match RawGate::new(&bytes, &lens) {
        Ok(_) => panic!("accepted"),
        Err(e) => e,
    };
    let v = JSON::parse(&e).unwrap();
    let path = js_sys::Reflect::get(&v, &JsValue::from_str("path")).unwrap();
    assert_eq!(path.as_string().as_deref(), Some("config.profile"));
}
