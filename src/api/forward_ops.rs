//! The gate operations of the forwarding path (declared in [`super::registry`]): a dispatched call's
//! `/exec` request with its body as text, and the sandbox's answer read into the batch.
//!
//! `sandboxRequest`'s answer is two texts on two lines: the JSON of everything but the body, then the
//! body as it goes on the wire (JSON text holds no raw line break, so the first one ends the head).

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::params::Params;
use super::GateSession;
use crate::core::error::{GateError, GateResult, Path};
use crate::core::json::{self, Opts, RawText, Str};
use crate::core::sandbox::refs::RefNote;
use crate::core::sandbox::{ArtifactOut, Dialect, RunReport, SandboxRequest};
use crate::core::sessions::merge::Artifact;

/// A sandbox request's answer without its body (and the refs sent as objects, which are written by
/// hand after it): what `buildSandboxRequest` and `sandboxRequest` answer besides the body.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RequestHead<'a> {
    endpoint: &'a str,
    headers: HeaderMap<'a>,
    dropped_fields: &'a [String],
    refs: &'a [RefNote],
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runtime_session_hint: Option<&'a str>,
}

impl<'a> RequestHead<'a> {
    /// The head of `request`'s answer (`sessionId` and `runtimeSessionHint` only for the forwarding path).
    pub(super) fn of(request: &'a SandboxRequest<'a>) -> Self {
        RequestHead {
            endpoint: request.endpoint,
            headers: HeaderMap(&request.headers),
            dropped_fields: &request.dropped_fields,
            refs: &request.refs,
            session_id: None,
            runtime_session_hint: None,
        }
    }
}

/// Headers as a JSON object, in order.
pub(super) struct HeaderMap<'a>(&'a [(&'static str, String)]);

impl serde::Serialize for HeaderMap<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// `sandboxRequest(batch, id, options)`.
pub(super) fn sandbox_request(s: &mut GateSession, p: &Params<'_>) -> GateResult<String> {
    let batch = p.id(0)?;
    let id = p.string(1)?;
    let text = p
        .text(2)
        .ok_or_else(|| GateError::expected(&Path::root(""), "an options object", "undefined"))?;
    let options = json::parse(text, &Path::root(""))?;
    let request = s.gate.forward_request(batch, &id, &options)?;
    let mut out = json::to_text(&RequestHead {
        session_id: request.body.session_id,
        runtime_session_hint: request.body.runtime_session_hint,
        ..RequestHead::of(&request)
    });
    out.push('\n');
    out.push_str(&request.body.to_json());
    Ok(out)
}

/// The answer object of `sandboxAnswer` (the body itself comes as its own text when it is a string or
/// bytes, which is how the JavaScript layer passes it), read under the key policy ([`Opts`]).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AnswerInput<'a> {
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
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        stdout: &'a str,
        stderr: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        exit_code: Option<&'a RawText<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<&'a RunReport<'a>>,
        session_id: &'a str,
        files: usize,
    }
    let artifact: &Artifact<'_> = &read.artifact;
    Ok(json::to_text(&Out {
        stdout: &read.stdout,
        stderr: &read.stderr,
        exit_code: read.exit_code.as_ref(),
        run: (!read.run.is_empty()).then_some(&read.run),
        session_id: &artifact.exec_session_id,
        files: artifact.files.len(),
    }))
}

/// `forwardedArtifact(batch, id)`: the artifact kept for the fold from the answer `sandboxAnswer` read
/// for the call (what `withArtifact: true` adds to that answer).
pub(super) fn forwarded_artifact(s: &mut GateSession, p: &Params<'_>) -> GateResult<String> {
    let batch = p.id(0)?;
    let id = p.string(1)?;
    let artifact = s.gate.forwarded_artifact(batch, &id)?;
    Ok(json::to_text(&ArtifactOut::of(&artifact)))
}
