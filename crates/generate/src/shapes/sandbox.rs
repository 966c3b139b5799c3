//! The sandbox wire: building a request for a sandbox server, reading its answer, and the gate's
//! forwarding path (`sandboxRequest`, `sandboxAnswer`).

use super::SessionArtifact;
use super::{DirectInjection, RequestSessionFields, ToolCallRequest};

/// What a call runs in the sandbox.
#[derive(tsify::Tsify)]
pub(crate) struct SandboxRun {
    /// codeapi: one of `execute_code`'s languages ("py", "bash", …).
    lang: String,
    code: String,
    #[tsify(optional)]
    args: Option<Vec<String>>,
}

/// Where and how a request is sent, as `buildSandboxRequest` and `Gate.sandboxRequest` both take it.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SandboxTarget {
    #[tsify(type = "SandboxDialect")]
    dialect: String,
    /// What runs; optional for `execute_code` (`{lang, code, args?}`) and `bash_tool` (`{command,
    /// args?}`), read from `modelArgs`.
    #[serde(default)]
    run: Option<SandboxRun>,
    /// codeapi / LibreCodeInterpreter `user_id`.
    #[serde(default)]
    user_id: Option<String>,
    /// LibreCodeInterpreter `entity_id`.
    #[serde(default)]
    entity_id: Option<String>,
    /// Run timeout in ms (LibreCodeInterpreter: clamped to 1000–300000).
    #[serde(default)]
    timeout_ms: Option<f64>,
    /// codeapi: the Bearer token; LibreCodeInterpreter: the API key. Absent: add your own auth header.
    #[serde(default)]
    credential: Option<String>,
    /// codeapi `X-CodeAPI-Expected-Profile`.
    #[serde(default)]
    execution_profile: Option<String>,
    /// `X-LibreChat-Code-Request-ID`.
    #[serde(default)]
    request_id: Option<String>,
}

/// `buildSandboxRequest`'s options. Unknown keys are ignored, a misspelt known key is refused (README,
/// *Errors*).
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SandboxRequestOptions {
    #[serde(flatten)]
    target: SandboxTarget,
    /// The tool the model called (a built-in code tool or a host-declared one).
    tool: String,
    /// The model's arguments; trusted fields are dropped and named in `droppedFields`.
    #[serde(default)]
    #[tsify(type = "Record<string, unknown> | null")]
    model_args: Option<()>,
    /// The gate's context for the call: a direct injection or an event request (other keys ignored).
    #[serde(default)]
    context: Option<CallContext>,
}

/// The gate's context for a call, as `buildSandboxRequest` reads it.
#[derive(tsify::Tsify)]
#[serde(untagged)]
pub(crate) enum CallContext {
    Direct(DirectInjection),
    Event(RequestSessionFields),
    Request(ToolCallRequest),
}

/// One change `buildSandboxRequest` made to the refs it was given.
#[derive(tsify::Tsify)]
pub(crate) struct RefNote {
    /// The ref's place in the context's file list.
    index: f64,
    id: String,
    name: String,
    #[tsify(type = "RefAction")]
    action: String,
    #[tsify(type = "RefProblem")]
    reason: String,
    message: String,
}

/// A request to POST to `<baseUrl>/<endpoint>` with `headers` and `JSON.stringify(body)`.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SandboxRequest {
    #[tsify(type = "\"exec\"")]
    endpoint: String,
    #[tsify(type = "Record<string, string>")]
    headers: (),
    #[tsify(type = "Record<string, unknown>")]
    body: (),
    /// Trusted fields dropped from the model's arguments.
    dropped_fields: Vec<String>,
    /// What was changed in the refs.
    refs: Vec<RefNote>,
}

/// How a run ended, in codeapi's (piston's) words; LibreCodeInterpreter reports none of it.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SandboxRunReport {
    /// `RE` (non-zero exit), `SG` (signal), `TO` (timeout), `OL` / `EL` (stdout / stderr past the
    /// limit), `XX`.
    #[tsify(optional)]
    status: Option<String>,
    #[tsify(optional)]
    signal: Option<String>,
    #[tsify(optional)]
    message: Option<String>,
    /// Wall-clock milliseconds.
    #[tsify(optional)]
    wall_time: Option<f64>,
    /// Why the sandbox stopped the run, when it did: not the tool's success (a non-zero exit is not a
    /// stop).
    #[tsify(
        optional,
        type = "\"output_limit\" | \"timeout\" | \"signal\" | \"sandbox_failure\""
    )]
    stopped: Option<String>,
}

/// What a run printed and how it ended, as both readers of a sandbox's answer give it.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunOutput {
    stdout: String,
    stderr: String,
    #[tsify(optional)]
    exit_code: Option<f64>,
    /// How the run ended, when the sandbox says (codeapi).
    #[tsify(optional)]
    run: Option<SandboxRunReport>,
}

/// A sandbox's successful answer.
#[derive(tsify::Tsify)]
pub(crate) struct SandboxAnswer {
    #[serde(flatten)]
    output: RunOutput,
    /// `{ session_id, files? }`: fold it (`foldResults`, a batch result's `artifact`).
    artifact: SessionArtifact,
}

/// `Gate.sandboxRequest`'s options: `buildSandboxRequest`'s but what the batch planned (the tool, its
/// arguments and its context). Unknown keys are ignored, a misspelt known key is refused (README,
/// *Errors*).
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ForwardRequestOptions {
    #[serde(flatten)]
    target: SandboxTarget,
    /// Also return the refs sent, as objects (`files`).
    #[serde(default)]
    with_files: Option<bool>,
    /// Return `body` as its UTF-8 bytes (a `Uint8Array`, what `fetch` sends as it is) instead of text.
    #[serde(default)]
    body_bytes: Option<bool>,
}

/// A ref as a sandbox receives it (codeapi always has `resource_id` and `kind`).
#[derive(tsify::Tsify)]
pub(crate) struct SandboxFileRef {
    id: String,
    #[tsify(optional)]
    resource_id: Option<String>,
    name: String,
    storage_session_id: String,
    #[tsify(optional)]
    kind: Option<String>,
    #[tsify(optional)]
    version: Option<f64>,
}

/// A dispatched call's request: POST `body` (JSON text, ready for `fetch`) to `<baseUrl>/<endpoint>`.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ForwardedRequest {
    #[tsify(type = "\"exec\"")]
    endpoint: String,
    #[tsify(type = "Record<string, string>")]
    headers: (),
    /// The `/exec` body as JSON text (its UTF-8 bytes with `bodyBytes: true`).
    #[tsify(type = "string | Uint8Array")]
    body: (),
    dropped_fields: Vec<String>,
    refs: Vec<RefNote>,
    /// The exec session sent (LibreCodeInterpreter).
    #[tsify(optional)]
    session_id: Option<String>,
    /// The runtime hint sent (codeapi).
    #[tsify(optional)]
    runtime_session_hint: Option<String>,
    /// The refs sent, with `withFiles: true`.
    #[tsify(optional)]
    files: Option<Vec<SandboxFileRef>>,
}

/// `Gate.forwardEventBatch`'s answer: the batch `beginEventBatch` plans, with the request of each
/// dispatched call as `sandboxRequest` builds it, instead of the requests the host would run.
#[derive(tsify::Tsify)]
pub(crate) struct ForwardedBatch {
    id: f64,
    /// The `/exec` request of each dispatched call whose request could be built, in dispatch order.
    requests: Vec<ForwardedCallRequest>,
    /// Dispatched calls whose request could not be built (a host tool without its `run`, a hint the
    /// dialect refuses): still in the batch, which folds nothing for them unless `sandboxRequest`
    /// builds theirs and `sandboxAnswer` reads its answer.
    refused: Vec<RefusedCall>,
    /// Calls the planner refused (answered with an error, never dispatched).
    rejected: Vec<super::RejectedCall>,
    /// Calls answered by an eager prestart; `matched: false` ends in an error.
    eager: Vec<super::EagerAnswered>,
}

/// A dispatched call's `/exec` request in a `forwardEventBatch` answer.
#[derive(tsify::Tsify)]
pub(crate) struct ForwardedCallRequest {
    /// The call's id (`sandboxAnswer` takes it).
    id: String,
    /// Its tool.
    name: String,
    #[serde(flatten)]
    request: ForwardedRequest,
}

/// A dispatched call whose request could not be built, with the refusal `sandboxRequest` would throw.
#[derive(tsify::Tsify)]
pub(crate) struct RefusedCall {
    id: String,
    name: String,
    error: super::CodeSessionGateError,
}

/// A successful answer, read and kept for the batch's fold.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ForwardedAnswer {
    #[serde(flatten)]
    output: RunOutput,
    /// The answer's exec session.
    session_id: String,
    /// How many files the artifact holds.
    files: f64,
    /// The artifact kept for the fold, with `withArtifact: true`.
    #[tsify(optional)]
    artifact: Option<SessionArtifact>,
}
