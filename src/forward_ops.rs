//! The gate operations of the forwarding path (declared in [`super::registry`]): a dispatched call's
//! `/exec` request with its body as text, and the sandbox's answer read into the batch.
//!
//! `sandboxRequest`'s answer is two texts on two lines: the JSON of everything but the body, then the
//! body as it goes on the wire (JSON text holds no raw line break, so the first one ends the head).

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::fields;
use super::forwarded::{ForwardedAnswer, ForwardedBatch, RefusedCall, RequestHead};
use super::gate_ops;
use crate::session::{GateSession, RequestOptions};
use crate::Refusal;
use code_session_gate_rules::calls::batch::{Disposition, EventCall, PlannedEventRequest};
use code_session_gate_rules::calls::gate::Gate;
use code_session_gate_rules::calls::options::BatchOptions;
use code_session_gate_rules::error::{GateError, GateResult, Path};
use code_session_gate_rules::json::{self, Str};
use code_session_gate_rules::sandbox::{ArtifactOut, Dialect, SandboxRequest, Target};
use code_session_gate_rules::sessions::merge::Artifact;

/// The TypeScript declarations of the inputs read here.
#[cfg(feature = "typescript")]
pub(crate) const DECLARATIONS: [&str; 1] = {
    use tsify::Tsify;
    [ForwardedAnswerInput::DECL]
};

/// `sandboxRequest(batch, id, options)`.
pub(super) fn sandbox_request(
    s: &mut GateSession,
    batch: u32,
    id: Str<'_>,
    options: Option<&str>,
) -> GateResult<String> {
    let options = request_options(s, options)?;
    let answer = answer_request(&s.gate, batch, &id, &options.target);
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
            target: Target::read_forwarded(text)?,
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
    // Options no request could be built with are refused by their reading, before anything is planned.
    let options = request_options(s, request)?;
    let answer = gate_ops::plan_event_batch(s, &calls, &batch_options)
        .map(|(batch, planned)| answer_forwarded_batch(&s.gate, batch, &planned, &options.target));
    s.request_options = Some(options);
    answer
}

/// [`forward_event_batch`]'s answer for the batch planned as `planned`.
fn answer_forwarded_batch(
    gate: &Gate,
    batch: u32,
    planned: &[PlannedEventRequest],
    options: &Target<'_>,
) -> String {
    let built: Vec<(&PlannedEventRequest, GateResult<SandboxRequest<'_>>)> = planned
        .iter()
        .filter(|r| r.disposition == Disposition::Dispatch)
        .map(|call| (call, gate.forward_request(batch, &call.id, options)))
        .collect();
    let (mut requests, mut refused) = (Vec::new(), Vec::new());
    for (call, request) in &built {
        match request {
            Ok(r) => requests.push((call.id.as_str(), call.name.as_str(), r)),
            Err(e) => refused.push(RefusedCall::new(
                &call.id,
                &call.name,
                &call.args,
                Refusal::of(e),
            )),
        }
    }
    let (rejected, eager) = fields::not_dispatched(planned);
    ForwardedBatch {
        id: batch,
        requests,
        refused,
        rejected,
        eager,
    }
    .text()
}

/// `sandboxRequest`'s answer for `options`: the head, a line break, the body.
fn answer_request(gate: &Gate, batch: u32, id: &str, options: &Target<'_>) -> GateResult<String> {
    let request = gate.forward_request(batch, id, options)?;
    let head = RequestHead::of(&request, true);
    // The body written in place: at 200 files it is most of the answer.
    let mut out = head.text(1 + request.body.size_hint());
    head.write_body(&mut out);
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
    let artifact: &Artifact<'_> = &read.artifact;
    Ok(ForwardedAnswer {
        stdout: &read.stdout,
        stderr: &read.stderr,
        exit_code: read.exit_code.as_ref(),
        run: (!read.run.is_empty()).then_some(&read.run),
        session_id: &artifact.exec_session_id,
        files: artifact.files.len(),
    }
    .text())
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
    use code_session_gate_rules::sandbox::{build_sandbox_request, SandboxInput};
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
        let text = options.to_string();
        let input = SandboxInput::read(&text).unwrap();
        let request = build_sandbox_request(&input).unwrap();
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
        assert_eq!(
            RequestHead::of(&request, false).text(0),
            members.to_string()
        );
        let mut forwarded = members;
        forwarded["runtimeSessionHint"] = json!("hint-1");
        assert_eq!(
            RequestHead::of(&request, true).text(0),
            forwarded.to_string()
        );
        assert!(request.body.session_id.is_none());

        let lci = json!({
            "dialect": "librecodeinterpreter",
            "tool": "bash_tool",
            "modelArgs": { "command": "ls" },
            "context": { "codeSessionContext": { "session_id": "e\n1" } },
        });
        let text = lci.to_string();
        let input = SandboxInput::read(&text).unwrap();
        let request = build_sandbox_request(&input).unwrap();
        let expected = json!({
            "endpoint": "exec",
            "headers": { "Content-Type": "application/json", "User-Agent": "LibreChat/1.0" },
            "droppedFields": [],
            "refs": [],
            "sessionId": "e\n1",
        });
        assert_eq!(
            RequestHead::of(&request, true).text(0),
            expected.to_string()
        );
    }
}
