//! The answers that carry session fields (`fields.rs`), as the operations write them.
use serde_json::{json, Value};

use crate::{call, new_gate, GATE_OPS};

fn op(name: &str) -> u32 {
    GATE_OPS.iter().position(|n| *n == name).unwrap() as u32
}

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Files whose strings need escapes, a skill with a version as written, a ref without a storage id.
const CONFIG: &str = r#"{"codeSessionToolNames":["create_file"],"toolExecution":{"sandbox":{"statefulSessions":true}},
    "sessions":[["execute_code",{"session_id":"e\"0","files":[
        {"id":"a","name":"q\"uote\n.txt","storage_session_id":"s\\1"},
        {"id":"b","name":"SKILL.md","kind":"skill","version":2.50,"resource_id":"sk"}],"lastUpdated":1}],
        ["other",{"files":[{"id":"c","name":"c.txt"}]}]]}"#;

#[test]
fn batch_answers_are_json_with_every_field() {
    let (mut s, _) = new_gate(&[Some(CONFIG)]).unwrap();
    let calls = r#"[{"id":"c\"1","name":"bash_tool","args":{"command":"ls \"x\""}},
        {"id":"c2","name":"create_file","args":"not json"},
        {"id":"c3","name":"bash_tool","args":{}}]"#;
    let batch = call(
        &mut s,
        op("beginEventBatch"),
        &[Some(calls), Some(r#"{"threadId":"t\"1"}"#), None],
    )
    .unwrap();
    let v = parsed(&batch);
    let context = &v["contexts"][0];
    assert_eq!(context["session_id"], "e\"0");
    assert_eq!(
        context["files"]["add"],
        parsed(
            r#"[["a","a","q\"uote\n.txt","s\\1","user"],["b","sk","SKILL.md","e\"0","skill",2.50]]"#
        )
    );
    assert!(
        batch.contains("2.50"),
        "a version is written as it came: {batch}"
    );
    let dispatch = v["dispatch"].as_array().unwrap();
    assert_eq!(dispatch.len(), 2);
    assert_eq!(dispatch[0]["id"], "c\"1");
    assert_eq!(dispatch[0]["args"], json!({"command": "ls \"x\""}));
    assert_eq!(dispatch[0]["ctx"], 0);
    assert_eq!(dispatch[0]["runtimeSessionHint"], "t\"1");
    assert_eq!(dispatch[0]["codeSessionBaselineId"], "e\"0");
    assert_eq!(dispatch[1]["ctx"], 0, "one context per partition state");
    assert_eq!(v["rejected"][0]["id"], "c2");
    assert!(v["rejected"][0]["errorMessage"].is_string());
    assert_eq!(v["eager"], json!([]));
    assert_eq!(
        v["id"].as_u64(),
        batch
            .get(6..)
            .and_then(|t| t.split(',').next())
            .and_then(|t| t.parse().ok())
    );

    // The same list again, for a caller that holds it: its generation alone.
    let gen = context["files"]["gen"].as_u64().unwrap().to_string();
    let one = r#"[{"id":"p1","name":"bash_tool","args":{"command":"ls"}}]"#;
    let again = call(
        &mut s,
        op("beginEventBatch"),
        &[Some(one), Some("{}"), Some(&gen)],
    )
    .unwrap();
    let again = parsed(&again);
    assert_eq!(
        again["contexts"][0]["files"],
        json!({ "gen": context["files"]["gen"] })
    );
    assert_eq!(again["dispatch"][0]["id"], "p1");
    assert_eq!(again["rejected"], json!([]));
}

#[test]
fn context_and_direct_answers_are_json_with_every_field() {
    let (mut s, _) = new_gate(&[Some(CONFIG)]).unwrap();
    let direct = call(
        &mut s,
        op("contextForCall"),
        &[
            Some("\"direct\""),
            Some("\"bash_tool\""),
            Some(r#"{"threadId":"t"}"#),
            None,
            None,
        ],
    )
    .unwrap();
    let v = parsed(&direct);
    assert!(v["dep"].is_u64());
    assert_eq!(v["fields"]["session_id"], "e\"0");
    assert_eq!(v["fields"]["_injected_files"]["add"][0][2], "q\"uote\n.txt");
    assert_eq!(v["fields"]["_runtime_session_hint"], "t");
    // A partition seeded without session_id: no key, and a ref without a storage id is `null`.
    let other = call(
        &mut s,
        op("contextForCall"),
        &[
            Some("\"event\""),
            Some("\"bash_tool\""),
            Some(r#"{"codeSessionKey":"other"}"#),
            None,
            None,
        ],
    )
    .unwrap();
    let v = parsed(&other);
    let context = &v["fields"]["codeSessionContext"];
    assert_eq!(context.get("session_id"), None);
    assert_eq!(
        context["files"]["add"],
        json!([["c", "c", "c.txt", null, "user"]])
    );
    // A tool outside the session: no fields, no dependency on a partition.
    let none = call(
        &mut s,
        op("contextForCall"),
        &[Some("\"event\""), Some("\"web_search\""), None, None, None],
    )
    .unwrap();
    assert_eq!(parsed(&none), json!({ "dep": null, "fields": {} }));
    let batch = call(
        &mut s,
        op("beginDirectBatch"),
        &[
            Some(r#"[{"id":"d1","name":"bash_tool"},{"name":"web_search"}]"#),
            None,
            None,
        ],
    )
    .unwrap();
    let v = parsed(&batch);
    assert_eq!(v["injections"][0]["session_id"], "e\"0");
    assert_eq!(v["injections"][1], json!({}));
}
