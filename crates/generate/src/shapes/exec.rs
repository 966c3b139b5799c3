//! The SDK's own wire (`buildExecRequest`, `readExecResponse`) and its request planner
//! (`planToolRequests`).

use super::{CodeEnvFile, FileRef, OtherKeys};

/// The tool factory params as plain data. `execute_code` and `bash_tool` spread every key they do
/// not consume into the request body, as the SDK does. `authHeaders` is stripped and never reported:
/// the host adds its own auth headers (functions cannot be passed). `baseUrl` is stripped too; the
/// host owns it.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecToolFactoryParams {
    /// Only `true` lets `execute_code` / `bash_tool` send a runtime hint.
    #[tsify(optional, type = "unknown")]
    stateful_sessions: Option<()>,
    /// Sent as `X-CodeAPI-Expected-Profile`; `"default"` also suppresses the runtime hint.
    #[serde(default)]
    #[tsify(type = "\"default\" | \"stateful\" | (string & {}) | null")]
    execution_profile: Option<String>,
    /// A non-empty factory hint wins over the injected `_runtime_session_hint`.
    #[serde(default)]
    runtime_session_hint: Option<String>,
    #[tsify(optional)]
    #[serde(rename = "session_id")]
    session_id: Option<String>,
    #[tsify(optional)]
    #[serde(rename = "user_id")]
    user_id: Option<String>,
    #[tsify(optional)]
    files: Option<Vec<CodeEnvFile>>,
    /// 3.9 bash tools: the attached workspace (trimmed; `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`).
    #[serde(default)]
    workspace_id: Option<String>,
    /// 3.9 bash tools: 64 lowercase hex characters, only with a workspace.
    #[serde(default)]
    workspace_instance_id: Option<String>,
    /// Programmatic tools: the per-run timeout cap in ms (default 15000; the CODE_API_RUN_TIMEOUT_MS
    /// env is not read).
    #[serde(default)]
    run_timeout_ms: Option<f64>,
    #[serde(flatten)]
    other: OtherKeys,
}

/// A tool the programmatic tools may offer to the code (sent verbatim in `tools`).
#[derive(tsify::Tsify)]
pub(crate) struct ProgrammaticToolDefinition {
    name: String,
    #[tsify(optional)]
    description: Option<String>,
    #[tsify(optional, type = "unknown")]
    parameters: Option<()>,
    #[serde(flatten)]
    other: OtherKeys,
}

/// A direct-only tool: its name is all the gate reads.
#[derive(tsify::Tsify)]
pub(crate) struct NamedToolDefinition {
    name: String,
    #[serde(flatten)]
    other: OtherKeys,
}

/// What the ToolNode injects into the tool call.
#[derive(tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecToolCallContext {
    /// Sent by the programmatic tools only (verbatim; on plain /exec only when non-empty).
    #[serde(default, rename = "session_id")]
    session_id: Option<String>,
    /// Replaces `files` when non-empty.
    #[serde(default, rename = "_injected_files")]
    injected_files: Option<Vec<CodeEnvFile>>,
    #[serde(default, rename = "_runtime_session_hint")]
    runtime_session_hint: Option<String>,
    /// Programmatic tools: the tools the code may call (non-empty stands for the SDK's tool map).
    #[serde(default)]
    tool_defs: Option<Vec<ProgrammaticToolDefinition>>,
    /// Programmatic tools: used when `toolDefs` is absent or null.
    #[serde(default)]
    tools: Option<Vec<ProgrammaticToolDefinition>>,
    /// Programmatic tools: direct-only tools, which make a `tool_manifest` mandatory.
    #[serde(default)]
    disallowed_tool_defs: Option<Vec<NamedToolDefinition>>,
    /// The tool name used in selection error messages.
    #[serde(default)]
    programmatic_tool_name: Option<String>,
    #[tsify(optional)]
    name: Option<String>,
    /// Stands for "invoked with an abort signal": sent as `X-LibreChat-Code-Request-ID` on 3.9
    /// programmatic requests.
    #[serde(default)]
    request_id: Option<String>,
    #[serde(flatten)]
    other: OtherKeys,
}

/// A normalised `artifact_delivery` failure report (3.9).
#[derive(tsify::Tsify)]
pub(crate) struct ArtifactDeliveryFailure {
    #[tsify(type = "\"artifact_delivery_failed\"")]
    code: String,
    #[tsify(type = "\"partial\" | \"failed\"")]
    status: String,
    attempted: f64,
    delivered: f64,
    failed: f64,
}

/// The artifact a code tool returns; the session fold reads it.
#[derive(tsify::Tsify)]
pub(crate) struct ExecArtifact {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    files: Option<Vec<FileRef>>,
    #[tsify(optional)]
    deleted_files: Option<Vec<String>>,
    #[tsify(optional)]
    artifact_delivery: Option<ArtifactDeliveryFailure>,
    #[tsify(optional, type = "unknown")]
    runtime_session_id: Option<()>,
    #[tsify(optional, type = "unknown")]
    runtime_status: Option<()>,
}

/// `tool_call_required`: a programmatic round trip the host continues itself.
#[derive(tsify::Tsify)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum ExecResponseOutcome {
    Completed { artifact: ExecArtifact },
    ToolCallRequired {},
}
