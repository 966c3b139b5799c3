//! The gate operations of the forwarding path (declared in [`super::registry`]): a dispatched call's
//! `/exec` request with its body as text, and the sandbox's answer read into the batch.
//!
//! `sandboxRequest`'s answer is two texts on two lines: the JSON of everything but the body, then the
//! body as it goes on the wire (JSON text holds no raw line break, so the first one ends the head).

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::fields;
use super::gate_ops;
use crate::session::{GateSession, RequestOptions};
use code_session_gate_rules::calls::batch::{Disposition, EventCall, PlannedEventRequest};
use code_session_gate_rules::calls::gate::Gate;
use code_session_gate_rules::calls::options::BatchOptions;
use code_session_gate_rules::error::{GateError, GateResult, Path};
use code_session_gate_rules::json::write::{push_json, push_key, push_str, push_u64};
use code_session_gate_rules::json::{self, Json, Str};
use code_session_gate_rules::sandbox::{
    check_forwarded_options, ArtifactOut, Dialect, SandboxRequest,
};
use code_session_gate_rules::sessions::merge::Artifact;

/// The TypeScript declarations of the inputs read here.
#[cfg(feature = "typescript")]
pub(crate) const DECLARATIONS: [&str; 1] = {
    use tsify::Tsify;
    [ForwardedAnswerInput::DECL]
};

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

/// `sandboxRequest(batch, id, options)`.
pub(super) fn sandbox_request(
    s: &mut GateSession,
    batch: u32,
    id: Str<'_>,
    options: Option<&str>,
) -> GateResult<String> {
    let options = request_options(s, options)?;
    let answer = answer_request(&s.gate, batch, &id, &options.tree);
    s.request_options = Some(options);
    answer
}

/// The request options of text `text`: those of the same text as last time are the same (the caller
/// puts them back in `s.request_options`).
fn request_options(s: &mut GateSession, text: Option<&str>) -> GateResult<RequestOptions> {
    let text =
        text.ok_or_else(|| GateError::expected(&Path::root(""), "an options object", "undefined"))?;
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
pub(super) fn forward_event_batch(
    s: &mut GateSession,
    calls: Vec<EventCall<'_>>,
    batch_options: BatchOptions<'_>,
    request: Option<&str>,
) -> GateResult<String> {
    let mut options = request_options(s, request)?;
    // Options that passed once pass again (the same text is the same tree).
    let checked = if options.checked {
        Ok(())
    } else {
        check_forwarded_options(&options.tree)
    };
    options.checked = checked.is_ok();
    let answer = checked
        .and_then(|()| gate_ops::plan_event_batch(s, &calls, &batch_options))
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

/// `Gate.sandboxAnswer`'s answer: what came back. Unknown keys are ignored, a misspelt known key is
/// refused (README, *Errors*).
// Read under the key policy (`Opts`); the body itself comes as its own text when it is a string or
// bytes, which is how the JavaScript layer passes it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ForwardedAnswerInput<'a> {
    /// The HTTP status.
    status: u16,
    /// The body: its text, or its bytes (`await response.arrayBuffer()`, read as UTF-8 like
    /// `response.text()`).
    #[serde(borrow)]
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "string | ArrayBuffer | ArrayBufferView")
    )]
    body: Option<Str<'a>>,
    /// The `Retry-After` header, if any.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    retry_after: Option<Str<'a>>,
    /// Checked when given; the answer is read the same in both dialects.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "SandboxDialect | null"))]
    dialect: Option<Str<'a>>,
    /// Also return the artifact kept for the fold, as an object (`artifact`).
    // The JavaScript layer reads it and never passes it (it asks `forwarded_artifact` for the
    // artifact): named here so that a misspelling of it is refused.
    #[serde(default)]
    #[cfg_attr(feature = "typescript", tsify(type = "boolean | null"))]
    #[allow(dead_code)]
    with_artifact: IgnoredAny,
}

/// `sandboxAnswer(batch, id, answer)`: `{ stdout, stderr, exitCode?, run?, sessionId, files }`.
pub(super) fn sandbox_answer(
    s: &mut GateSession,
    batch: u32,
    id: Str<'_>,
    input: ForwardedAnswerInput<'_>,
    raw_body: Option<&str>,
) -> GateResult<String> {
    if let Some(d) = &input.dialect {
        Dialect::parse(d, &Path::root("dialect"))?;
    }
    let body: &str = match (raw_body, &input.body) {
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
pub(super) fn forwarded_artifact(
    s: &mut GateSession,
    batch: u32,
    id: Str<'_>,
) -> GateResult<String> {
    let artifact = s.gate.forwarded_artifact(batch, &id)?;
    Ok(json::to_text(&ArtifactOut::of(&artifact)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use code_session_gate_rules::sandbox::build_sandbox_request;
    use serde_json::json;

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
}
