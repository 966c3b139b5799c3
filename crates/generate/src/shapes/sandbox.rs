//! The sandbox wire: building a request for a sandbox server, reading its answer, and the gate's
//! forwarding path (`sandboxRequest`, `sandboxAnswer`).

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
