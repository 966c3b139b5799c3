//! The gate operations of the forwarding path (declared in [`super::registry`]): a dispatched call's
//! `/exec` request with its body as text, and the sandbox's answer read into the batch.
//!
//! `sandboxRequest`'s answer is two texts on two lines: the JSON of everything but the body, then the
//! body as it goes on the wire (JSON text holds no raw line break, so the first one ends the head).

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::fields;
use super::gate_ops;
use super::params::Params;
use super::GateSession;
use crate::core::calls::batch::{Disposition, PlannedEventRequest};
use crate::core::calls::gate::Gate;
use crate::core::error::{GateError, GateResult, Path};
use crate::core::json::write::{push_json, push_key, push_str, push_u64};
use crate::core::json::{self, Json, Opts, Str};
use crate::core::sandbox::{check_forwarded_options, ArtifactOut, Dialect, SandboxRequest};
use crate::core::sessions::merge::Artifact;

/// The JSON text of a sandbox request's answer without its body: `{ endpoint, headers, droppedFields,
/// refs }`, and for the forwarding path (`forwarded`) `sessionId` and `runtimeSessionHint` when set.
/// What `buildSandboxRequest` and `sandboxRequest` answer besides the body, written by hand: it is on
/// every forwarded call, and serde's writer costs several times as much for these few members.
/// The text has room for `more` bytes after it (a body to follow).
pub(super) fn request_head(request: &SandboxRequest<'_>, forwarded: bool, more: usize) -> String {
    let mut out = String::with_capacity(160 + request.headers.len() * 48 + more);
    out.push('{');
    write_head_members(&mut out, request, forwarded);
    out.push('}');
    out
}

/// The members of [`request_head`], without its braces.
fn write_head_members(out: &mut String, request: &SandboxRequest<'_>, forwarded: bool) {
    push_key(out, "endpoint", true);
    push_str(out, request.endpoint);
    push_key(out, "headers", false);
    out.push('{');
    for (i, (name, value)) in request.headers.iter().enumerate() {
        push_key(out, name, i == 0);
        push_str(out, value);
    }
    out.push('}');
    push_key(out, "droppedFields", false);
    out.push('[');
    for (i, field) in request.dropped_fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str(out, field);
    }
    out.push(']');
    push_key(out, "refs", false);
    // A note is rare (a ref the dialect refused or changed): serde writes the list when there is one.
    if request.refs.is_empty() {
        out.push_str("[]");
    } else {
        push_json(out, &request.refs);
    }
    if forwarded {
        if let Some(s) = request.body.session_id {
            push_key(out, "sessionId", false);
            push_str(out, s);
        }
        if let Some(h) = request.body.runtime_session_hint {
            push_key(out, "runtimeSessionHint", false);
            push_str(out, h);
        }
    }
}

/// The request options of the forwarding path's last call: their text, their tree, and whether the
/// members every request of a batch shares passed [`check_forwarded_options`].
#[derive(Debug)]
pub(super) struct RequestOptions {
    text: Box<str>,
    tree: Json,
    checked: bool,
}

/// `sandboxRequest(batch, id, options)`.
pub(super) fn sandbox_request(s: &mut GateSession, p: &Params<'_>) -> GateResult<String> {
    let batch = p.id(0)?;
    let id = p.string(1)?;
    let options = request_options(s, p, 2)?;
    let answer = answer_request(&s.gate, batch, &id, &options.tree);
    s.request_options = Some(options);
    answer
}

/// The request options of argument `at`: those of the same text as last time are the same (the
/// caller puts them back in `s.request_options`).
fn request_options(s: &mut GateSession, p: &Params<'_>, at: usize) -> GateResult<RequestOptions> {
    let text = p
        .text(at)
        .ok_or_else(|| GateError::expected(&Path::root(""), "an options object", "undefined"))?;
    Ok(match s.request_options.take() {
        Some(last) if *last.text == *text => last,
        _ => RequestOptions {
            text: text.into(),
            tree: json::parse(text, &Path::root(""))?,
            checked: false,
        },
    })
}

/// `forwardEventBatch(calls, options, request)`: the event batch `beginEventBatch` plans, and the
/// `/exec` request of each dispatched call as `sandboxRequest` builds it with `request`, in one answer
/// (no context lists, no second call per request). Options no request could be built with are refused
/// before anything is planned; a call whose own request cannot be built (a host tool without its
/// `run`, a hint too long for the dialect) is listed under `refused` and stays dispatched.
///
/// The answer is the JSON of `{ id, requests, refused, rejected, eager }`, each request without its
/// body, then each body on a line of its own, in the order of `requests` (JSON text holds no raw line
/// break).
pub(super) fn forward_event_batch(s: &mut GateSession, p: &Params<'_>) -> GateResult<String> {
    let mut options = request_options(s, p, 2)?;
    // Options that passed once pass again (the same text is the same tree).
    let checked = if options.checked {
        Ok(())
    } else {
        check_forwarded_options(&options.tree)
    };
    options.checked = checked.is_ok();
    let answer = checked
        .and_then(|()| gate_ops::plan_event_batch(s, p))
        .map(|(batch, planned)| answer_forwarded_batch(&s.gate, batch, &planned, &options.tree));
    s.request_options = Some(options);
    answer
}

/// [`forward_event_batch`]'s answer for the batch planned as `planned`.
fn answer_forwarded_batch(
    gate: &Gate,
    batch: u32,
    planned: &[PlannedEventRequest],
    options: &Json,
) -> String {
    let mut head = String::with_capacity(256);
    let mut bodies = String::new();
    let mut refused = String::new();
    head.push_str("{\"id\":");
    push_u64(&mut head, batch.into());
    push_key(&mut head, "requests", false);
    head.push('[');
    let mut first = true;
    for call in planned
        .iter()
        .filter(|r| r.disposition == Disposition::Dispatch)
    {
        match gate.forward_request(batch, &call.id, options) {
            Ok(request) => {
                if !first {
                    head.push(',');
                }
                first = false;
                head.push('{');
                push_key(&mut head, "id", true);
                push_str(&mut head, &call.id);
                push_key(&mut head, "name", false);
                push_str(&mut head, &call.name);
                head.push(',');
                write_head_members(&mut head, &request, true);
                head.push('}');
                bodies.reserve(1 + request.body.size_hint());
                bodies.push(crate::wire::BODY_SEPARATOR);
                request.body.write_json(&mut bodies);
            }
            Err(e) => {
                refused.push(if refused.is_empty() { '[' } else { ',' });
                refused.push('{');
                push_key(&mut refused, "id", true);
                push_str(&mut refused, &call.id);
                push_key(&mut refused, "name", false);
                push_str(&mut refused, &call.name);
                push_key(&mut refused, "code", false);
                push_str(&mut refused, e.code.as_str());
                push_key(&mut refused, "path", false);
                push_str(&mut refused, &e.path);
                push_key(&mut refused, "message", false);
                push_str(&mut refused, &e.to_string());
                refused.push('}');
            }
        }
    }
    head.push(']');
    push_key(&mut head, "refused", false);
    if refused.is_empty() {
        head.push_str("[]");
    } else {
        head.push_str(&refused);
        head.push(']');
    }
    fields::write_not_dispatched(planned, &mut head);
    head.push('}');
    head.push_str(&bodies);
    head
}

/// `sandboxRequest`'s answer for `options`: the head, a line break, the body.
fn answer_request(gate: &Gate, batch: u32, id: &str, options: &Json) -> GateResult<String> {
    let request = gate.forward_request(batch, id, options)?;
    // The body written in place: at 200 files it is most of the answer.
    let mut out = request_head(&request, true, 1 + request.body.size_hint());
    out.push(crate::wire::BODY_SEPARATOR);
    request.body.write_json(&mut out);
    Ok(out)
}

/// The answer object of `sandboxAnswer` (the body itself comes as its own text when it is a string or
/// bytes, which is how the JavaScript layer passes it), read under the key policy ([`Opts`]).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerInput<'a> {
    #[serde(default, borrow)]
    dialect: Option<Str<'a>>,
    status: u16,
    #[serde(default, borrow)]
    body: Option<Str<'a>>,
    #[serde(default, borrow)]
    retry_after: Option<Str<'a>>,
    /// `withArtifact`, which the JavaScript layer reads and never passes (it asks
    /// [`forwarded_artifact`] for the artifact): named here so that a misspelling of it is refused.
    #[serde(default)]
    #[allow(dead_code)]
    with_artifact: IgnoredAny,
}

/// `sandboxAnswer(batch, id, answer)`: `{ stdout, stderr, exitCode?, run?, sessionId, files }`.
pub(super) fn sandbox_answer(s: &mut GateSession, p: &Params<'_>) -> GateResult<String> {
    let batch = p.id(0)?;
    let id = p.string(1)?;
    let input: Opts<AnswerInput<'_>> = p.present(2)?;
    let input = input.0;
    if let Some(d) = &input.dialect {
        Dialect::parse(d, &Path::root("dialect"))?;
    }
    let body: &str = match (p.text(3), &input.body) {
        // The body as the host gave it (its text, or its bytes read as UTF-8).
        (Some(raw), _) => raw,
        (None, Some(b)) => b,
        (None, None) => return Err(GateError::missing(&Path::root("body"))),
    };
    let read =
        s.gate
            .forward_answer(batch, &id, input.status, body, input.retry_after.as_deref())?;
    // Written by hand (every forwarded call has one): `{ stdout, stderr, exitCode?, run?, sessionId,
    // files }`, `run` by serde when the sandbox reported one.
    let artifact: &Artifact<'_> = &read.artifact;
    let mut out = String::with_capacity(64 + read.stdout.len() + read.stderr.len());
    out.push('{');
    push_key(&mut out, "stdout", true);
    push_str(&mut out, &read.stdout);
    push_key(&mut out, "stderr", false);
    push_str(&mut out, &read.stderr);
    if let Some(code) = &read.exit_code {
        push_key(&mut out, "exitCode", false);
        out.push_str(code.get());
    }
    if !read.run.is_empty() {
        push_key(&mut out, "run", false);
        push_json(&mut out, &read.run);
    }
    push_key(&mut out, "sessionId", false);
    push_str(&mut out, &artifact.exec_session_id);
    push_key(&mut out, "files", false);
    push_u64(&mut out, artifact.files.len() as u64);
    out.push('}');
    Ok(out)
}

/// `forwardedArtifact(batch, id)`: the artifact kept for the fold from the answer `sandboxAnswer` read
/// for the call (what `withArtifact: true` adds to that answer).
pub(super) fn forwarded_artifact(s: &mut GateSession, p: &Params<'_>) -> GateResult<String> {
    let batch = p.id(0)?;
    let id = p.string(1)?;
    let artifact = s.gate.forwarded_artifact(batch, &id)?;
    Ok(json::to_text(&ArtifactOut::of(&artifact)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::sandbox::build_sandbox_request;
    use serde_json::json;

    /// Gate operation `name`'s number.
    fn op(name: &str) -> u32 {
        super::super::GATE_OPS
            .iter()
            .position(|n| *n == name)
            .unwrap() as u32
    }

    /// The hand-written head is the JSON of its members, in order, escapes included.
    #[test]
    fn request_heads_are_the_json_of_their_members() {
        let options = json!({
            "dialect": "codeapi",
            "tool": "bash_tool",
            "modelArgs": { "command": "ls", "user_id": "forged", "entity_id": "x" },
            "context": {
                "codeSessionContext": { "session_id": "e1", "files": [
                    { "id": "aaaaaaaaaaaaaaaaaaaaa", "name": "a\"b.txt", "storage_session_id": "sssssssssssssssssssss" },
                    { "id": "bad id", "name": "c.txt", "storage_session_id": "sssssssssssssssssssss" },
                ] },
                "runtimeSessionHint": "hint-1",
            },
            "credential": "k\\\"ey",
            "executionProfile": "py",
            "requestId": "r\u{e9}q",
        });
        let request = build_sandbox_request(&options).unwrap();
        assert!(!request.refs.is_empty() && !request.dropped_fields.is_empty());
        let headers: serde_json::Map<String, serde_json::Value> = request
            .headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect();
        let members = json!({
            "endpoint": request.endpoint,
            "headers": headers,
            "droppedFields": request.dropped_fields,
            "refs": request.refs,
        });
        assert_eq!(request_head(&request, false, 0), members.to_string());
        let mut forwarded = members;
        forwarded["runtimeSessionHint"] = json!("hint-1");
        assert_eq!(request_head(&request, true, 0), forwarded.to_string());
        assert!(request.body.session_id.is_none());

        let lci = json!({
            "dialect": "librecodeinterpreter",
            "tool": "bash_tool",
            "modelArgs": { "command": "ls" },
            "context": { "codeSessionContext": { "session_id": "e\n1" } },
        });
        let request = build_sandbox_request(&lci).unwrap();
        let expected = json!({
            "endpoint": "exec",
            "headers": { "Content-Type": "application/json", "User-Agent": "LibreChat/1.0" },
            "droppedFields": [],
            "refs": [],
            "sessionId": "e\n1",
        });
        assert_eq!(request_head(&request, true, 0), expected.to_string());
    }

    /// `sandboxAnswer`'s hand-written answer is the JSON of what it read.
    #[test]
    fn sandbox_answers_are_the_json_of_what_was_read() {
        let config = r#"{"toolExecution":{"sandbox":{"statefulSessions":true}}}"#;
        let (mut s, _) = super::super::new_gate(&[Some(config)]).unwrap();
        let calls = r#"[{"id":"c1","name":"bash_tool","args":{"command":"ls"}},{"id":"c2","name":"bash_tool","args":{"command":"ls"}}]"#;
        let planned =
            super::super::call(&mut s, op("beginEventBatch"), &[Some(calls), None, None]).unwrap();
        let planned: serde_json::Value = serde_json::from_str(&planned).unwrap();
        let batch = planned["id"].to_string();
        let body = r#"{"session_id":"e\u00e91","files":[{"id":"f","name":"o.txt"}],"stdout":"a\"b\n\u0001","stderr":"","code":3,"status":"RE","message":"exit 3","wall_time":12.5}"#;
        let answer = super::super::call(
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
        let answer = super::super::call(
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
        let (mut s, _) = super::super::new_gate(&[Some("{}")]).unwrap();
        let calls = r#"[{"id":"c1","name":"bash_tool","args":{"command":"ls"}}]"#;
        let planned =
            super::super::call(&mut s, op("beginEventBatch"), &[Some(calls), None, None]).unwrap();
        let planned: serde_json::Value = serde_json::from_str(&planned).unwrap();
        let batch = planned["id"].to_string();
        let mut request = |options: &str| {
            super::super::call(
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
        assert_eq!(e.code, crate::core::error::ErrorCode::InvalidJson);
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
        let (mut twin, _) = super::super::new_gate(&[Some(config)]).unwrap();
        let (mut s, _) = super::super::new_gate(&[Some(config)]).unwrap();

        // Options no request could be built with: refused, and nothing planned.
        // Each twice: a refused text is refused again (what passed is remembered, not what failed).
        for bad in [
            r#"{"dialect":"e2b"}"#,
            r#"{"dialect":"e2b"}"#,
            r#"{"userId":"u1"}"#,
            r#"{"dialect":"codeapi","timeoutMs":"x"}"#,
            r#"{"dialect":"codeapi","timeoutMs":"x"}"#,
        ] {
            let e = super::super::call(
                &mut s,
                op("forwardEventBatch"),
                &[Some(calls), Some(options), Some(bad)],
            )
            .unwrap_err();
            assert!(!e.path.is_empty(), "{e:?}");
        }
        assert_eq!(s.gate.open_batches(), 0, "nothing planned");

        let planned = super::super::call(
            &mut twin,
            op("beginEventBatch"),
            &[Some(calls), Some(options), None],
        )
        .unwrap();
        let planned: serde_json::Value = serde_json::from_str(&planned).unwrap();
        let answer = super::super::call(
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
            let single = super::super::call(
                &mut twin,
                op("sandboxRequest"),
                &[Some(&batch), Some(&quoted), Some(request)],
            );
            match single {
                Ok(text) => {
                    let (single_head, single_body) = text.split_once('\n').unwrap();
                    let mut expected: serde_json::Value =
                        serde_json::from_str(single_head).unwrap();
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
                        &json!({ "id": id, "name": dispatched["name"], "code": e.code.as_str(), "path": e.path, "message": e.to_string() })
                    );
                }
            }
        }
        assert_eq!((built, bodies.len()), (2, 2));
        assert_eq!(head["requests"].as_array().unwrap().len(), 2);
        assert_eq!(head["refused"].as_array().unwrap().len(), 1);
        assert_eq!(head["rejected"].as_array().unwrap().len(), 1);
    }
}
