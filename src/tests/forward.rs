//! The forwarding path's operations (`forward_ops.rs`) driven through [`crate::call`].

use serde_json::json;

use super::op;
use crate::{call, new_gate};

/// `sandboxAnswer`'s hand-written answer is the JSON of what it read.
#[test]
fn sandbox_answers_are_the_json_of_what_was_read() {
    let config = r#"{"toolExecution":{"sandbox":{"statefulSessions":true}}}"#;
    let (mut s, _) = new_gate(&[Some(config)]).unwrap();
    let calls = r#"[{"id":"c1","name":"bash_tool","args":{"command":"ls"}},{"id":"c2","name":"bash_tool","args":{"command":"ls"}}]"#;
    let planned = call(&mut s, op("beginEventBatch"), &[Some(calls), None, None]).unwrap();
    let planned: serde_json::Value = serde_json::from_str(&planned).unwrap();
    let batch = planned["id"].to_string();
    let body = r#"{"session_id":"e\u00e91","files":[{"id":"f","name":"o.txt"}],"stdout":"a\"b\n\u0001","stderr":"","code":3,"status":"RE","message":"exit 3","wall_time":12.5}"#;
    let answer = call(
        &mut s,
        op("sandboxAnswer"),
        &[
            Some(&batch),
            Some("\"c1\""),
            Some(r#"{"status":200}"#),
            Some(body),
        ],
    )
    .unwrap();
    let expected = json!({
        "stdout": "a\"b\n\u{1}",
        "stderr": "",
        "exitCode": 3,
        "run": { "status": "RE", "message": "exit 3", "wallTime": 12.5 },
        "sessionId": "e\u{e9}1",
        "files": 1,
    });
    assert_eq!(answer, expected.to_string());
    // No exit code, no report of the run: neither member.
    let plain = r#"{"session_id":"e2","files":[],"stdout":"","stderr":"x"}"#;
    let answer = call(
        &mut s,
        op("sandboxAnswer"),
        &[
            Some(&batch),
            Some("\"c2\""),
            Some(r#"{"status":200}"#),
            Some(plain),
        ],
    )
    .unwrap();
    assert_eq!(
        answer,
        json!({ "stdout": "", "stderr": "x", "sessionId": "e2", "files": 0 }).to_string()
    );
}

/// The options of one call are never those of another: a remembered text answers only the same
/// text, and a refused one leaves nothing behind.
#[test]
fn request_options_are_read_for_each_text() {
    let (mut s, _) = new_gate(&[Some("{}")]).unwrap();
    let calls = r#"[{"id":"c1","name":"bash_tool","args":{"command":"ls"}}]"#;
    let planned = call(&mut s, op("beginEventBatch"), &[Some(calls), None, None]).unwrap();
    let planned: serde_json::Value = serde_json::from_str(&planned).unwrap();
    let batch = planned["id"].to_string();
    let mut request = |options: &str| {
        call(
            &mut s,
            op("sandboxRequest"),
            &[Some(&batch), Some("\"c1\""), Some(options)],
        )
        .map(|a| a.split_once('\n').map(|(_, body)| body.to_owned()).unwrap())
    };
    let a = r#"{"dialect":"codeapi","userId":"ua"}"#;
    let b = r#"{"dialect":"codeapi","userId":"ub"}"#;
    for (options, user) in [(a, "ua"), (a, "ua"), (b, "ub"), (a, "ua")] {
        let body = request(options).unwrap();
        assert!(body.contains(&format!(r#""user_id":"{user}""#)), "{body}");
    }
    let e = request(r#"{"dialect":"codeapi","userId":"#).unwrap_err();
    assert_eq!(
        e.code,
        code_session_gate_rules::error::ErrorCode::InvalidJson
    );
    let e = request(r#"{"dialect":"codeapi","userId":3}"#).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.path.as_str()),
        ("invalid_type", "userId")
    );
    assert!(request(b).unwrap().contains(r#""user_id":"ub""#));
}

/// `forwardEventBatch` answers what `beginEventBatch` and `sandboxRequest` answer for each call:
/// the heads with each call's id and name, the bodies in order, the planner's rejected calls, and
/// a call whose request cannot be built under `refused`; options no request could be built with
/// plan nothing.
#[test]
fn a_forwarded_batch_is_the_batch_and_each_calls_request() {
    let config = r#"{"toolExecution":{"sandbox":{"statefulSessions":true}},"sessions":[["execute_code",{"session_id":"e0","files":[{"id":"aaaaaaaaaaaaaaaaaaaaa","name":"a.txt","storage_session_id":"sssssssssssssssssssss"}],"lastUpdated":1}]]}"#;
    let calls = r#"[{"id":"c1","name":"bash_tool","args":{"command":"ls"}},{"id":"c2","name":"create_file","args":{"path":"x"}},{"id":"c3","name":"execute_code","args":"not json"},{"id":"c4","name":"execute_code","args":{"lang":"py","code":"1"}}]"#;
    let options = r#"{"threadId":"t1"}"#;
    let request = r#"{"dialect":"codeapi","userId":"u1"}"#;
    let (mut twin, _) = new_gate(&[Some(config)]).unwrap();
    let (mut s, _) = new_gate(&[Some(config)]).unwrap();

    // Options no request could be built with: refused, and nothing planned.
    // Each twice: a refused text is refused again (what passed is remembered, not what failed).
    for bad in [
        r#"{"dialect":"e2b"}"#,
        r#"{"dialect":"e2b"}"#,
        r#"{"userId":"u1"}"#,
        r#"{"dialect":"codeapi","timeoutMs":"x"}"#,
        r#"{"dialect":"codeapi","timeoutMs":"x"}"#,
    ] {
        let e = call(
            &mut s,
            op("forwardEventBatch"),
            &[Some(calls), Some(options), Some(bad)],
        )
        .unwrap_err();
        assert!(!e.path.is_empty(), "{e:?}");
    }
    assert_eq!(s.gate.open_batches(), 0, "nothing planned");

    let planned = call(
        &mut twin,
        op("beginEventBatch"),
        &[Some(calls), Some(options), None],
    )
    .unwrap();
    let planned: serde_json::Value = serde_json::from_str(&planned).unwrap();
    let answer = call(
        &mut s,
        op("forwardEventBatch"),
        &[Some(calls), Some(options), Some(request)],
    )
    .unwrap();
    let mut lines = answer.split('\n');
    let head: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let bodies: Vec<&str> = lines.collect();
    assert!(head["id"].as_u64().is_some_and(|id| id > 0));
    assert_eq!(s.gate.open_batches(), 1);
    assert_eq!(head["rejected"], planned["rejected"]);
    assert_eq!(head["eager"], planned["eager"]);
    let batch = planned["id"].to_string();
    // The dispatched calls, in order: a host tool without its run is refused as sandboxRequest
    // refuses it; the others' requests are sandboxRequest's.
    let mut built = 0;
    for dispatched in planned["dispatch"].as_array().unwrap() {
        let id = dispatched["id"].as_str().unwrap();
        let quoted = serde_json::to_string(id).unwrap();
        let single = call(
            &mut twin,
            op("sandboxRequest"),
            &[Some(&batch), Some(&quoted), Some(request)],
        );
        match single {
            Ok(text) => {
                let (single_head, single_body) = text.split_once('\n').unwrap();
                let mut expected: serde_json::Value = serde_json::from_str(single_head).unwrap();
                let mut with_call = json!({ "id": id, "name": dispatched["name"] });
                with_call
                    .as_object_mut()
                    .unwrap()
                    .append(expected.as_object_mut().unwrap());
                assert_eq!(head["requests"][built], with_call);
                assert_eq!(bodies[built], single_body);
                built += 1;
            }
            Err(e) => {
                let refused = head["refused"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["id"] == id)
                    .unwrap();
                assert_eq!(
                    refused,
                    &json!({ "id": id, "name": dispatched["name"], "args": dispatched["args"], "code": e.code.as_str(), "path": e.path, "message": e.to_string() })
                );
            }
        }
    }
    assert_eq!((built, bodies.len()), (2, 2));
    assert_eq!(head["requests"].as_array().unwrap().len(), 2);
    assert_eq!(head["refused"].as_array().unwrap().len(), 1);
    assert_eq!(head["rejected"].as_array().unwrap().len(), 1);
}
