//! The cases shared by `tests/web.rs` (headless Chromium) and `tests/node.rs` (Node): the core module's
//! exported functions (`csg_*`, as `export_module!(core)` writes them) called from Rust inside a real JavaScript
//! host, through the module's own input and output buffers as the JavaScript layer uses them, checking
//! the texts that cross the boundary — answers, refusals (U+0001 then `{code, path, message}`), and the
//! argument framing (each text's byte length as a little-endian u32, 0 for `undefined`, then the texts).

use code_session_gate::api::{GATE_OPS, STATIC_OPS};

// The core module's exported functions, written here as crates/core-module writes them.
code_session_gate::export_module!(core);
use js_sys::JSON;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

fn op(table: &[&str], name: &str) -> u32 {
    table.iter().position(|n| *n == name).unwrap() as u32
}

/// Writes `bytes` into the module's input buffer; their length.
fn write_input(bytes: &[u8]) -> usize {
    let at = csg_input(bytes.len());
    // SAFETY: csg_input grew the buffer at `at` to at least `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), at, bytes.len()) };
    bytes.len()
}

/// The arguments as the JavaScript layer frames them (`None`: `undefined`), written into the input
/// buffer; (count, bytes).
fn frame(args: &[Option<&str>]) -> (u32, usize) {
    let mut bytes = Vec::new();
    for a in args {
        bytes.extend_from_slice(&(a.unwrap_or("").len() as u32).to_le_bytes());
    }
    for a in args {
        bytes.extend_from_slice(a.unwrap_or("").as_bytes());
    }
    (args.len() as u32, write_input(&bytes))
}

/// The last answer, `len` bytes long.
fn output(len: usize) -> String {
    // SAFETY: the call that returned `len` left an answer of `len` bytes at csg_output().
    let bytes = unsafe { std::slice::from_raw_parts(csg_output(), len) };
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn call_static(op: u32, args: &[Option<&str>]) -> String {
    let (count, len) = frame(args);
    output(csg_static(op, count, len))
}

fn narrow(file: &str, exec: &str) -> String {
    call_static(
        op(STATIC_OPS, "toInjectedFileRef"),
        &[Some(file), Some(exec)],
    )
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
    let out = call_static(op(STATIC_OPS, "toInjectedFileRef"), &[None, Some(r#""e""#)]);
    assert_eq!(
        refusal(&out),
        ("missing_field".to_owned(), "file".to_owned())
    );
    // A length that runs past the text, bytes that are not UTF-8, a count past the buffer, an
    // operation that does not exist.
    let len = write_input(&[5, 0, 0, 0, b'{', b'}']);
    assert_eq!(refusal(&output(csg_static(0, 1, len))).0, "invalid_json");
    let len = write_input(&[2, 0, 0, 0, 0xff, 0xfe]);
    assert_eq!(refusal(&output(csg_static(0, 1, len))).0, "invalid_json");
    let len = write_input(&[0, 0, 0, 0]);
    assert_eq!(refusal(&output(csg_static(0, 9, len))).0, "invalid_json");
    assert_eq!(refusal(&call_static(99, &[])).0, "invalid_value");
}

#[wasm_bindgen_test]
fn constants_name_every_operation() {
    let v = JSON::parse(&output(csg_constants())).unwrap();
    let ops = js_sys::Reflect::get(&v, &JsValue::from_str("gateOps")).unwrap();
    assert_eq!(js_sys::Array::from(&ops).length() as usize, GATE_OPS.len());
}

/// `new Gate(config)`: the gate's handle, or the refusal's text.
fn new_gate(config: &str) -> Result<u32, String> {
    let (count, len) = frame(&[Some(config)]);
    let out = output(csg_new(count, len));
    if out.starts_with('\u{1}') {
        return Err(out);
    }
    let v = JSON::parse(&out).unwrap();
    Ok(js_sys::Reflect::get(&v, &JsValue::from_f64(0.0))
        .unwrap()
        .as_f64()
        .unwrap() as u32)
}

fn call(gate: u32, name: &str, args: &[Option<&str>]) -> String {
    let (count, len) = frame(args);
    output(csg_call(gate, op(GATE_OPS, name), count, len))
}

#[wasm_bindgen_test]
fn a_gate_folds_and_answers_and_a_refused_fold_changes_nothing() {
    let gate = new_gate(
        r#"{"codeSessionToolNames":["create_file"],"sessions":[["execute_code",{"session_id":"e0","files":[],"lastUpdated":1}]]}"#,
    )
    .unwrap();
    assert_eq!(call(gate, "verdict", &[Some(r#""create_file""#)]), "127");
    let fold = |file: &str| format!(r#"{{"session_id":"e1","files":[{file}]}}"#);
    let good = fold(r#"{"id":"f","name":"a.py"}"#);
    let bad = fold(r#"{"id":"g"}"#);
    let before = call(gate, "sessions", &[]);
    let out = call(
        gate,
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
    assert_eq!(call(gate, "sessions", &[]), before);
    let out = call(
        gate,
        "updateSession",
        &[Some(r#""execute_code""#), Some(&good), Some(r#"{"now":5}"#)],
    );
    assert_eq!(out, "null");
    assert_eq!(
        call(gate, "session", &[Some(r#""execute_code""#)]),
        r#"{"session_id":"e1","files":[{"id":"f","name":"a.py","storage_session_id":"e1"}],"lastUpdated":5}"#
    );
    // An unknown partition answers `undefined` (the empty text).
    assert_eq!(call(gate, "session", &[Some(r#""nope""#)]), "");
    // A freed gate's handle, like one never handed out, names no gate.
    assert_eq!(csg_free(gate), 1);
    assert_eq!(csg_free(gate), 0);
    for handle in [gate, gate + 1000] {
        assert_eq!(
            refusal(&call(handle, "sessions", &[])),
            ("freed".to_owned(), String::new())
        );
    }
}

#[wasm_bindgen_test]
fn a_refused_configuration_is_its_text() {
    let e = new_gate(r#"{"profile":"3.8"}"#).unwrap_err();
    assert_eq!(
        refusal(&e),
        ("invalid_value".to_owned(), "config.profile".to_owned())
    );
}
