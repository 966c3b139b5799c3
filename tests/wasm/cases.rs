//! The cases shared by `tests/web.rs` (headless Chromium) and `tests/node.rs` (Node): the exported
//! `#[wasm_bindgen]` functions called from Rust inside a real JavaScript host, checking the values and
//! the `Error`s that cross the boundary.

use code_session_gate::bindings::{code_env_kinds, code_execution_tools, to_injected_file_ref_js};
use js_sys::{Array, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// A JavaScript value from JSON text (so strings may hold `\uD800`).
fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn keys(v: &JsValue) -> Vec<String> {
    js_sys::Object::keys(v.unchecked_ref::<js_sys::Object>())
        .iter()
        .map(|k| k.as_string().unwrap())
        .collect()
}

fn strings(a: &Array) -> Vec<String> {
    a.iter().map(|v| v.as_string().unwrap()).collect()
}

/// The refusal thrown for `file` / `exec`: an `Error` named `CodeSessionGateError` with `code`, `path`.
fn refusal(file: JsValue, exec: JsValue) -> (String, String, String) {
    let err = to_injected_file_ref_js(file, exec).unwrap_err();
    assert!(
        err.is_instance_of::<js_sys::Error>(),
        "not an Error: {err:?}"
    );
    let e: &js_sys::Error = err.unchecked_ref();
    assert!(!String::from(e.message()).is_empty());
    (
        String::from(e.name()),
        get(&err, "code").as_string().unwrap(),
        get(&err, "path").as_string().unwrap(),
    )
}

#[wasm_bindgen_test]
fn narrows_a_user_file() {
    let out = to_injected_file_ref_js(js(r#"{"id":"f1","name":"a.txt"}"#), "e0".into()).unwrap();
    assert_eq!(
        JSON::stringify(&out).unwrap().as_string().unwrap(),
        r#"{"id":"f1","resource_id":"f1","name":"a.txt","storage_session_id":"e0","kind":"user"}"#
    );
}

#[wasm_bindgen_test]
fn keeps_own_resource_and_session_drops_other_keys() {
    let out = to_injected_file_ref_js(
        js(r#"{"id":"f1","name":"a","resource_id":"r9","storage_session_id":"s9","path":"/x","inherited":true}"#),
        "e0".into(),
    )
    .unwrap();
    assert_eq!(get(&out, "resource_id").as_string().as_deref(), Some("r9"));
    assert_eq!(
        get(&out, "storage_session_id").as_string().as_deref(),
        Some("s9")
    );
    assert_eq!(
        keys(&out),
        ["id", "resource_id", "name", "storage_session_id", "kind"]
    );
}

#[wasm_bindgen_test]
fn skill_keeps_its_version_agent_and_user_drop_it() {
    let skill = to_injected_file_ref_js(
        js(r#"{"id":"f","name":"n","kind":"skill","version":0}"#),
        "e".into(),
    )
    .unwrap();
    assert_eq!(get(&skill, "kind").as_string().as_deref(), Some("skill"));
    assert_eq!(get(&skill, "version").as_f64(), Some(0.0));

    let agent = to_injected_file_ref_js(
        js(r#"{"id":"f","name":"n","kind":"agent","version":3}"#),
        "e".into(),
    )
    .unwrap();
    assert_eq!(get(&agent, "kind").as_string().as_deref(), Some("agent"));
    assert!(get(&agent, "version").is_undefined());

    // A skill without a version degrades to a user file; so does an unknown kind.
    let degraded =
        to_injected_file_ref_js(js(r#"{"id":"f","name":"n","kind":"skill"}"#), "e".into()).unwrap();
    assert_eq!(get(&degraded, "kind").as_string().as_deref(), Some("user"));
    let unknown =
        to_injected_file_ref_js(js(r#"{"id":"f","name":"n","kind":"team"}"#), "e".into()).unwrap();
    assert_eq!(get(&unknown, "kind").as_string().as_deref(), Some("user"));
}

#[wasm_bindgen_test]
fn refuses_malformed_input_with_code_and_path() {
    let name = "CodeSessionGateError".to_owned();
    assert_eq!(
        refusal(js(r#"{"name":"a"}"#), "e0".into()),
        (name.clone(), "missing_field".into(), "file.id".into())
    );
    assert_eq!(
        refusal(js(r#"{"id":7,"name":"a"}"#), "e0".into()),
        (name.clone(), "invalid_type".into(), "file.id".into())
    );
    assert_eq!(refusal(JsValue::UNDEFINED, "e0".into()).1, "missing_field");
    assert_eq!(
        refusal(js(r#"{"id":"f","name":"\ud800"}"#), "e0".into()),
        (name.clone(), "lone_surrogate".into(), "file.name".into())
    );
    assert_eq!(
        refusal(js(r#"{"id":"f","name":"a"}"#), JsValue::from_f64(1.0)).0,
        name
    );
}

#[wasm_bindgen_test]
fn refusal_changes_nothing_later_calls_answer() {
    let _ = refusal(js(r#"{"name":"a"}"#), "e0".into());
    let out = to_injected_file_ref_js(js(r#"{"id":"f2","name":"b"}"#), "e1".into()).unwrap();
    assert_eq!(get(&out, "id").as_string().as_deref(), Some("f2"));
}

#[wasm_bindgen_test]
fn constants() {
    assert_eq!(strings(&code_env_kinds()), ["skill", "agent", "user"]);
    let tools = strings(&code_execution_tools());
    assert!(tools.iter().any(|t| t == "execute_code"), "{tools:?}");
    assert!(tools.iter().any(|t| t == "bash_tool"), "{tools:?}");
}

fn gate(config: &str) -> code_session_gate::bindings::JsGate {
    code_session_gate::bindings::JsGate::new(js(config)).unwrap()
}

const SEEDED: &str = r#"{"codeSessionToolNames":["create_file"],
    "sessions":[["execute_code",{"session_id":"e0","files":[{"id":"a1","name":"a.txt","storage_session_id":"e0"}],"lastUpdated":1}]]}"#;

#[wasm_bindgen_test]
fn an_unchanged_partition_hands_out_the_same_frozen_context() {
    let mut g = gate(SEEDED);
    let first = get(
        &g.context_for_call("event".into(), "create_file".into(), JsValue::UNDEFINED)
            .unwrap(),
        "codeSessionContext",
    );
    let again = get(
        &g.context_for_call("event".into(), "bash_tool".into(), JsValue::UNDEFINED)
            .unwrap(),
        "codeSessionContext",
    );
    assert!(js_sys::Object::is(&first, &again));
    assert!(js_sys::Object::is_frozen(
        first.unchecked_ref::<js_sys::Object>()
    ));
    g.update_session(
        "execute_code".into(),
        js(r#"{"session_id":"e1"}"#),
        js(r#"{"now":5}"#),
    )
    .unwrap();
    let after = get(
        &g.context_for_call("event".into(), "bash_tool".into(), JsValue::UNDEFINED)
            .unwrap(),
        "codeSessionContext",
    );
    assert!(!js_sys::Object::is(&first, &after));
    assert_eq!(get(&after, "session_id").as_string().as_deref(), Some("e1"));
}

#[wasm_bindgen_test]
fn an_event_batch_retains_the_host_rewrite_and_folds_the_result() {
    let mut g = gate(SEEDED);
    let batch = g
        .begin_event_batch(
            js(r#"[{"id":"c1","name":"create_file","args":{}}]"#),
            JsValue::UNDEFINED,
        )
        .unwrap();
    let dispatch = get(&batch, "dispatch");
    let request = Array::from(&dispatch).get(0);
    Reflect::set(&request, &"codeSessionContext".into(), &js(r#"{"session_id":"h9","files":[{"id":"n1","name":"n.txt","storage_session_id":"h9","kind":"user","resource_id":"n1"}]}"#)).unwrap();
    let options = js(r#"{"results":[{"toolCallId":"c1","status":"error"}],"now":7}"#);
    Reflect::set(&options, &"requests".into(), &dispatch).unwrap();
    let id = get(&batch, "id").as_f64().unwrap() as u32;
    assert_eq!(g.complete_event_batch(id, options).unwrap(), "folded");
    let entry = g.session("execute_code".into()).unwrap();
    assert_eq!(get(&entry, "session_id").as_string().as_deref(), Some("h9"));
    let names: Vec<String> = Array::from(&get(&entry, "files"))
        .iter()
        .map(|f| get(&f, "name").as_string().unwrap())
        .collect();
    assert_eq!(names, ["a.txt", "n.txt"]);
}

#[wasm_bindgen_test]
fn a_refused_fold_leaves_the_sessions_as_they_were() {
    let mut g = gate(SEEDED);
    let before = JSON::stringify(&g.sessions()).unwrap();
    let err = g
        .fold_results("event".into(), js(r#"[{"name":"bash_tool","status":"success","artifact":{"session_id":"e5"}},{"name":"bash_tool","status":"success","artifact":{"session_id":"e6","files":[{"id":"x"}]}}]"#), js(r#"{"now":1}"#))
        .unwrap_err();
    assert_eq!(
        get(&err, "code").as_string().as_deref(),
        Some("missing_field")
    );
    assert_eq!(
        get(&err, "path").as_string().as_deref(),
        Some("results[1].artifact.files[0].name")
    );
    assert_eq!(JSON::stringify(&g.sessions()).unwrap(), before);
}
