//! The answers of the forwarding path and of the sandbox functions that carry a sandbox request or
//! read a sandbox's answer: each written by hand from a struct whose fields are its keys (every
//! forwarded call writes one, and serde's writer costs several times as much for these few members),
//! from which its TypeScript declaration is derived. The declarations say what the host receives once
//! the JavaScript layer has put each body after its head back in place (`sandboxRequest`'s answer is
//! the head's JSON, a line break, then the body; `forwardEventBatch`'s the batch's JSON, then each
//! body on a line of its own: JSON text holds no raw line break).

use super::fields::{EagerAnswered, RejectedCall};
use crate::Refusal;
use code_session_gate_rules::json::write::{push_json, push_key, push_str, push_u64};
use code_session_gate_rules::json::{JsonMap, RawText};
use code_session_gate_rules::sandbox::refs::RefNote;
use code_session_gate_rules::sandbox::{ExecBody, RunReport, SandboxRequest};

/// The TypeScript declarations of the answers written here, in the order a reader meets them.
#[cfg(feature = "typescript")]
pub(crate) const DECLARATIONS: [&str; 5] = {
    use tsify::Tsify;
    [
        RequestHead::DECL,
        ForwardedCallRequest::DECL,
        RefusedCall::DECL,
        ForwardedBatch::DECL,
        ForwardedAnswer::DECL,
    ]
};

/// A dispatched call's request: POST `body` (JSON text, ready for `fetch`) to `<baseUrl>/<endpoint>`.
// Written as its head (everything but the body, whose text follows it), for the forwarding path and,
// without the session it sends, for `buildSandboxRequest` (whose answer `SandboxRequest` declares).
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[cfg_attr(
    feature = "typescript",
    tsify(rename = "ForwardedRequest"),
    serde(rename_all = "camelCase")
)]
pub(crate) struct RequestHead<'r> {
    #[cfg_attr(feature = "typescript", tsify(type = "\"exec\""))]
    endpoint: &'r str,
    #[cfg_attr(feature = "typescript", tsify(type = "Record<string, string>"))]
    headers: &'r [(&'static str, String)],
    /// The `/exec` body as JSON text (its UTF-8 bytes with `bodyBytes: true`).
    // Written after the head (by `write_body`), where the layer takes it from.
    #[cfg_attr(feature = "typescript", tsify(type = "string | Uint8Array"))]
    body: &'r ExecBody<'r>,
    /// Trusted fields dropped from the model's arguments.
    #[cfg_attr(feature = "typescript", tsify(type = "string[]"))]
    dropped_fields: &'r [String],
    /// What was changed in the refs.
    #[cfg_attr(feature = "typescript", tsify(type = "RefNote[]"))]
    refs: &'r [RefNote],
    /// The exec session sent (LibreCodeInterpreter).
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    session_id: Option<&'r str>,
    /// The runtime hint sent (codeapi).
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string"))]
    runtime_session_hint: Option<&'r str>,
}

impl<'r> RequestHead<'r> {
    /// The head of `request`, with the session it sends when it is `forwarded` (a dispatched call's).
    pub(crate) fn of(request: &'r SandboxRequest<'r>, forwarded: bool) -> Self {
        RequestHead {
            endpoint: request.endpoint,
            headers: &request.headers,
            body: &request.body,
            dropped_fields: &request.dropped_fields,
            refs: &request.refs,
            session_id: request.body.session_id.filter(|_| forwarded),
            runtime_session_hint: request.body.runtime_session_hint.filter(|_| forwarded),
        }
    }

    /// The head's JSON text, with room for `more` bytes after it (a body to follow).
    pub(crate) fn text(&self, more: usize) -> String {
        let mut out = String::with_capacity(160 + self.headers.len() * 48 + more);
        out.push('{');
        self.write_members(&mut out);
        out.push('}');
        out
    }

    /// The head's members, without its braces.
    fn write_members(&self, out: &mut String) {
        push_key(out, "endpoint", true);
        push_str(out, self.endpoint);
        push_key(out, "headers", false);
        out.push('{');
        for (i, (name, value)) in self.headers.iter().enumerate() {
            push_key(out, name, i == 0);
            push_str(out, value);
        }
        out.push('}');
        push_key(out, "droppedFields", false);
        out.push('[');
        for (i, field) in self.dropped_fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_str(out, field);
        }
        out.push(']');
        push_key(out, "refs", false);
        // A note is rare (a ref the dialect refused or changed): serde writes the list when there is one.
        if self.refs.is_empty() {
            out.push_str("[]");
        } else {
            push_json(out, &self.refs);
        }
        if let Some(s) = self.session_id {
            push_key(out, "sessionId", false);
            push_str(out, s);
        }
        if let Some(h) = self.runtime_session_hint {
            push_key(out, "runtimeSessionHint", false);
            push_str(out, h);
        }
    }

    /// The body after its head: the separator, then its text.
    pub(crate) fn write_body(&self, out: &mut String) {
        out.reserve(1 + self.body.size_hint());
        out.push(crate::wire::BODY_SEPARATOR);
        self.body.write_json(out);
    }
}

/// A dispatched call's `/exec` request in a `forwardEventBatch` answer.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub(crate) struct ForwardedCallRequest<'r> {
    /// The call's id (`sandboxAnswer` takes it).
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    id: &'r str,
    /// Its tool.
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    name: &'r str,
    #[cfg_attr(feature = "typescript", serde(flatten))]
    request: ForwardedRequest<'r>,
}

/// What [`ForwardedCallRequest`] extends: its request, under the name TypeScript knows it by (the
/// declaration of [`RequestHead`]).
type ForwardedRequest<'r> = RequestHead<'r>;

/// A dispatched call whose request could not be built, with the refusal `sandboxRequest` would throw.
// Written as its refusal's members, which the layer makes the error.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub(crate) struct RefusedCall<'r> {
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    id: &'r str,
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    name: &'r str,
    /// The call's arguments as the planner dispatched them (parsed and coerced, as `beginEventBatch`'s
    /// request carries them), so that a host can build the call's own `run` from them.
    #[cfg_attr(feature = "typescript", tsify(type = "Record<string, unknown>"))]
    args: &'r JsonMap,
    #[cfg_attr(feature = "typescript", tsify(type = "CodeSessionGateError"))]
    error: Refusal<'r>,
}

/// `Gate.forwardEventBatch`'s answer: the batch `beginEventBatch` plans, with the request of each
/// dispatched call as `sandboxRequest` builds it, instead of the requests the host would run.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub(crate) struct ForwardedBatch<'r> {
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    pub(crate) id: u32,
    /// The `/exec` request of each dispatched call whose request could be built, in dispatch order.
    #[cfg_attr(feature = "typescript", tsify(type = "ForwardedCallRequest[]"))]
    pub(crate) requests: Vec<(&'r str, &'r str, &'r SandboxRequest<'r>)>,
    /// Dispatched calls whose request could not be built (a host tool without its `run`, a hint the
    /// dialect refuses): still in the batch, which folds nothing for them unless `sandboxRequest`
    /// builds theirs and `sandboxAnswer` reads its answer.
    #[cfg_attr(feature = "typescript", tsify(type = "RefusedCall[]"))]
    pub(crate) refused: Vec<RefusedCall<'r>>,
    /// Calls the planner refused (answered with an error, never dispatched).
    #[cfg_attr(feature = "typescript", tsify(type = "RejectedCall[]"))]
    pub(crate) rejected: Vec<RejectedCall<'r>>,
    /// Calls answered by an eager prestart; `matched: false` ends in an error.
    #[cfg_attr(feature = "typescript", tsify(type = "EagerAnswered[]"))]
    pub(crate) eager: Vec<EagerAnswered<'r>>,
}

impl ForwardedBatch<'_> {
    /// `{ id, requests, refused, rejected, eager }`, each request without its body, then each body on a
    /// line of its own, in the order of `requests`.
    pub(crate) fn text(&self) -> String {
        // The bodies follow in the same text, each given room by `write_body` (they were written
        // apart, then copied after the head).
        let mut head = String::with_capacity(256);
        head.push_str("{\"id\":");
        push_u64(&mut head, self.id.into());
        push_key(&mut head, "requests", false);
        head.push('[');
        for (i, (id, name, request)) in self.requests.iter().enumerate() {
            let call = ForwardedCallRequest {
                id,
                name,
                request: RequestHead::of(request, true),
            };
            if i > 0 {
                head.push(',');
            }
            head.push('{');
            push_key(&mut head, "id", true);
            push_str(&mut head, call.id);
            push_key(&mut head, "name", false);
            push_str(&mut head, call.name);
            head.push(',');
            call.request.write_members(&mut head);
            head.push('}');
        }
        head.push(']');
        push_key(&mut head, "refused", false);
        head.push('[');
        for (i, r) in self.refused.iter().enumerate() {
            if i > 0 {
                head.push(',');
            }
            head.push('{');
            push_key(&mut head, "id", true);
            push_str(&mut head, r.id);
            push_key(&mut head, "name", false);
            push_str(&mut head, r.name);
            push_key(&mut head, "args", false);
            push_json(&mut head, r.args);
            push_key(&mut head, "code", false);
            push_str(&mut head, r.error.code);
            push_key(&mut head, "path", false);
            push_str(&mut head, r.error.path);
            push_key(&mut head, "message", false);
            push_str(&mut head, &r.error.message);
            head.push('}');
        }
        head.push(']');
        super::fields::write_rejected_and_eager(&self.rejected, &self.eager, &mut head);
        head.push('}');
        for (_, _, request) in &self.requests {
            RequestHead::of(request, true).write_body(&mut head);
        }
        head
    }
}

impl<'r> RefusedCall<'r> {
    /// Call `id` (tool `name`, dispatched with `args`), refused with `error`.
    pub(crate) fn new(id: &'r str, name: &'r str, args: &'r JsonMap, error: Refusal<'r>) -> Self {
        RefusedCall {
            id,
            name,
            args,
            error,
        }
    }
}

/// A successful answer, read and kept for the batch's fold.
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
#[cfg_attr(feature = "typescript", serde(rename_all = "camelCase"))]
pub(crate) struct ForwardedAnswer<'r> {
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub(crate) stdout: &'r str,
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub(crate) stderr: &'r str,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "number"))]
    pub(crate) exit_code: Option<&'r RawText<'r>>,
    /// How the run ended, when the sandbox says (codeapi).
    #[cfg_attr(feature = "typescript", tsify(optional, type = "SandboxRunReport"))]
    pub(crate) run: Option<&'r RunReport<'r>>,
    /// The answer's exec session.
    #[cfg_attr(feature = "typescript", tsify(type = "string"))]
    pub(crate) session_id: &'r str,
    /// How many files the artifact holds.
    #[cfg_attr(feature = "typescript", tsify(type = "number"))]
    pub(crate) files: usize,
}

impl ForwardedAnswer<'_> {
    /// `{ stdout, stderr, exitCode?, run?, sessionId, files }`, `run` by serde when the sandbox reported
    /// one.
    pub(crate) fn text(&self) -> String {
        // The keys, the session id and the file count, with room for a few escapes.
        let mut out = String::with_capacity(
            96 + self.stdout.len() + self.stderr.len() + self.session_id.len(),
        );
        out.push('{');
        push_key(&mut out, "stdout", true);
        push_str(&mut out, self.stdout);
        push_key(&mut out, "stderr", false);
        push_str(&mut out, self.stderr);
        if let Some(code) = self.exit_code {
            push_key(&mut out, "exitCode", false);
            out.push_str(code.get());
        }
        if let Some(run) = self.run {
            push_key(&mut out, "run", false);
            push_json(&mut out, run);
        }
        push_key(&mut out, "sessionId", false);
        push_str(&mut out, self.session_id);
        push_key(&mut out, "files", false);
        push_u64(&mut out, self.files as u64);
        out.push('}');
        out
    }
}
