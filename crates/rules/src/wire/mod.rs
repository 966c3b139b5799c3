//! The exec wire: what each built-in code tool sends to the sandbox, and the artifact it makes of the
//! answer.
//!
//! The SDK's four code tools (`execute_code`, `bash_tool`, `run_tools_with_code`, `run_tools_with_bash`)
//! each build the first request of an execution from three sources: the tool factory params, what the
//! ToolNode injects into the tool call, and the model's arguments. This module reproduces that request
//! (route, the SDK's own headers, body) and the artifact each tool returns for the sandbox's answer, for
//! SDK 3.6.x ([`Profile::V3_6`]) and 3.9.1+ ([`Profile::V3_9`]).
//!
//! Inputs are host data. Functions cannot cross into the core, so:
//! - auth headers stay with the host: `authHeaders` in the factory params is stripped like the SDK strips
//!   it, and never reported; the host adds its own auth headers to the request it sends;
//! - the SDK's `toolMap` (functions) has no representation: non-empty tool definitions (`toolDefs`, or
//!   `tools`) stand for "a tool map is present", which is what the ToolNode injects (it builds both from
//!   the same list);
//! - an abort signal is represented by the additive `requestId` on the tool call: the SDK then sends a
//!   random `X-LibreChat-Code-Request-ID`; here the host picks the id (and posts `{request_id}` to
//!   `<endpoint>/cancel` itself when it aborts);
//! - the `CODE_API_RUN_TIMEOUT_MS` environment variable is not read: the factory's `runTimeoutMs` is the
//!   only source of the programmatic timeout cap (default 15 000 ms).
//!
//! Everything is validated before anything is built; an `Err` means no request exists.

mod artifact;
mod direct;
mod factory;
mod identifiers;
mod injected;
mod model_args;
mod programmatic;
mod route;
#[cfg(test)]
mod tests;

use artifact::{build_artifact, execution_error_message, sandbox_error, Shape};
pub use artifact::{ArtifactDeliveryFailure, ExecArtifact, ExecResponseOutcome};
use direct::build_direct;
pub use factory::ExecToolFactoryParams;
use factory::Factory;
use injected::Injected;
pub use injected::{ExecToolCallContext, NamedToolDefinition, ProgrammaticToolDefinition};
use model_args::check_model_args;
use programmatic::build_programmatic;
use route::{resolve_route, Route};

use super::config::Profile;
use super::error::{ErrorCode, GateError, GateResult, Path};
use super::json::{self, Json, JsonMap, Raw};
use super::tools::{
    BASH_PROGRAMMATIC_TOOL_CALLING, BASH_TOOL, EXECUTE_CODE, PROGRAMMATIC_TOOL_CALLING,
};

/// The route of a plain execution, relative to the Code API base URL.
pub const EXEC_ENDPOINT: &str = "exec";
/// The route of a programmatic execution (tool round trips, attached workspaces).
pub const PROGRAMMATIC_ENDPOINT: &str = "exec/programmatic";

/// `Content-Type` of every request.
pub const CONTENT_TYPE: &str = "application/json";
/// `User-Agent` of every request.
pub const USER_AGENT: &str = "LibreChat/1.0";
/// Asserts the factory's `executionProfile` to the Code API.
pub const EXPECTED_PROFILE_HEADER: &str = "X-CodeAPI-Expected-Profile";
/// Names the attached workspace (3.9 bash tools).
pub const WORKSPACE_HEADER: &str = "X-LibreChat-Code-Workspace-ID";
/// Identifies a cancellable programmatic request (3.9).
pub const REQUEST_ID_HEADER: &str = "X-LibreChat-Code-Request-ID";

/// The prefix 3.9 puts before bash code sent to `/exec/programmatic`: a no-op background job whose pid is
/// waited on, so that `$!` is defined for the model's code.
pub const BASH_BACKGROUND_PID_GUARD: &str = ": &\nwait \"$!\"";

/// `SUPPORTED_LANGUAGES`: the `lang` enum of `execute_code`.
pub const SUPPORTED_LANGUAGES: [&str; 13] = [
    "py", "js", "ts", "c", "cpp", "java", "php", "rs", "go", "d", "f90", "r", "bash",
];

/// The floor of every programmatic timeout, in milliseconds.
pub const MIN_RUN_TIMEOUT_MS: f64 = 1000.0;
/// The timeout cap when the factory sets none.
pub const DEFAULT_RUN_TIMEOUT_MS: f64 = 15000.0;
/// The smallest `maximum` the timeout schema ever declares (it is raised to a larger cap).
pub const MAX_RUN_TIMEOUT_SCHEMA_MS: f64 = 300000.0;

/// The first line of the SDK's answer to an unusable programmatic status.
const UNAVAILABLE_MESSAGE: &str = "Code execution is temporarily unavailable. Please retry.";

/// Refuses a header value holding CR, LF or NUL: sent as is it would end the header and let the value
/// write headers (or a body) of its own.
pub fn check_header_value(value: &str, path: &Path<'_>) -> GateResult<()> {
    if value.contains(['\r', '\n', '\0']) {
        Err(GateError::new(
            ErrorCode::InvalidValue,
            path,
            "a header value must not hold CR, LF or NUL",
        ))
    } else {
        Ok(())
    }
}

/// One of the four built-in code tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecTool {
    /// `execute_code`.
    ExecuteCode,
    /// `bash_tool`.
    Bash,
    /// `run_tools_with_code`.
    Programmatic,
    /// `run_tools_with_bash`.
    BashProgrammatic,
}

impl ExecTool {
    /// Reads a tool name; anything but the four built-in code tools is refused.
    pub fn parse(name: &str, path: &Path<'_>) -> GateResult<ExecTool> {
        match name {
            EXECUTE_CODE => Ok(ExecTool::ExecuteCode),
            BASH_TOOL => Ok(ExecTool::Bash),
            PROGRAMMATIC_TOOL_CALLING => Ok(ExecTool::Programmatic),
            BASH_PROGRAMMATIC_TOOL_CALLING => Ok(ExecTool::BashProgrammatic),
            _ => Err(GateError::new(
                ErrorCode::InvalidValue,
                path,
                format!(
                    "unknown code tool {name:?} (known: {EXECUTE_CODE}, {BASH_TOOL}, \
                     {PROGRAMMATIC_TOOL_CALLING}, {BASH_PROGRAMMATIC_TOOL_CALLING})"
                ),
            )),
        }
    }

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            ExecTool::ExecuteCode => EXECUTE_CODE,
            ExecTool::Bash => BASH_TOOL,
            ExecTool::Programmatic => PROGRAMMATIC_TOOL_CALLING,
            ExecTool::BashProgrammatic => BASH_PROGRAMMATIC_TOOL_CALLING,
        }
    }

    fn is_programmatic(self) -> bool {
        matches!(self, ExecTool::Programmatic | ExecTool::BashProgrammatic)
    }

    /// Only the bash tools know attached workspaces, and only from 3.9.1 on.
    fn knows_workspaces(self, profile: Profile) -> bool {
        profile.is_3_9() && matches!(self, ExecTool::Bash | ExecTool::BashProgrammatic)
    }
}

/// The first request of an execution. The host sends `POST <baseUrl>/<endpoint>` with these headers plus
/// its own auth headers, and `body` as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecRequest {
    /// [`EXEC_ENDPOINT`] or [`PROGRAMMATIC_ENDPOINT`].
    pub endpoint: &'static str,
    /// The SDK's own headers, in the SDK's order (auth headers excluded: they are the host's).
    pub headers: Vec<(&'static str, String)>,
    /// The JSON body, keys in the order the SDK serialises them.
    pub body: JsonMap,
}

/// The TypeScript declarations of the exec wire's options and answers, derived from the types that
/// read and write them, in the order a reader meets them.
#[cfg(feature = "typescript")]
pub const DECLARATIONS: [&str; 7] = {
    use tsify::Tsify;
    [
        ExecToolFactoryParams::DECL,
        ProgrammaticToolDefinition::DECL,
        NamedToolDefinition::DECL,
        ExecToolCallContext::DECL,
        ArtifactDeliveryFailure::DECL,
        ExecArtifact::DECL,
        ExecResponseOutcome::DECL,
    ]
};

/// An object argument of the exec wire (the factory params, the tool call; `None`: none, `{}`),
/// checked whole before anything is read, as `JSON.parse` of it would be ([`json::check_deep`]).
fn check_object(raw: Option<Raw<'_>>, path: &Path<'_>) -> GateResult<()> {
    raw.map_or(Ok(()), |r| json::check_deep(r.get(), path))
}

/// Builds the first sandbox request `tool` makes, as the SDK of `profile` does.
///
/// - `factory`: the JSON text of the tool factory params as plain data ([`ExecToolFactoryParams`]:
///   `statefulSessions`, `executionProfile`, `runtimeSessionHint`, `session_id`, `files`, `user_id`,
///   `workspaceId`, `workspaceInstanceId`, `runTimeoutMs`, …; `None`: none). `execute_code` and
///   `bash_tool` spread every param they do not consume into the body, as the SDK does (so
///   `session_id`, `files`, `user_id`, and anything else reach the wire).
/// - `tool_call`: the JSON text of what the ToolNode injects ([`ExecToolCallContext`]: `session_id`,
///   `_injected_files`, `_runtime_session_hint`; for the programmatic tools `toolDefs`/`tools`,
///   `disallowedToolDefs`, `programmaticToolName`, `name`; plus `requestId`, see the module docs;
///   `None`: none).
/// - `model_args`: the model's arguments, checked against the tool's declared JSON schema exactly where
///   langchain's validator rejects them.
///
/// Errors: [`ErrorCode::InvalidType`] for non-object inputs and mistyped host data,
/// [`ErrorCode::InvalidFactory`] for workspace ids the SDK factory refuses,
/// [`ErrorCode::InvalidModelArgs`] for arguments the schema rejects, [`ErrorCode::ToolSelection`] for the
/// programmatic tools' selection errors (with the SDK's message text).
pub fn build_exec_request(
    profile: Profile,
    tool: &str,
    factory: Option<Raw<'_>>,
    tool_call: Option<Raw<'_>>,
    model_args: &Json,
) -> GateResult<ExecRequest> {
    let (factory_at, call_at) = (Path::root("factory"), Path::root("toolCall"));
    check_object(factory, &factory_at)?;
    check_object(tool_call, &call_at)?;
    let tool = ExecTool::parse(tool, &Path::root("tool"))?;
    let factory = Factory::read(profile, tool, factory, &factory_at)?;
    let args = check_model_args(
        tool,
        factory.run_timeout_cap,
        model_args,
        &Path::root("modelArgs"),
    )?;
    let call = Injected::read(tool, tool_call, &call_at)?;
    match tool {
        ExecTool::ExecuteCode | ExecTool::Bash => build_direct(profile, tool, &factory, call, args),
        ExecTool::Programmatic | ExecTool::BashProgrammatic => {
            build_programmatic(profile, tool, &factory, call, args)
        }
    }
}

/// Reads the sandbox's answer to the first request of `tool` and returns what the tool makes of it.
///
/// `factory` is the factory params' JSON text, as [`build_exec_request`] takes it. `endpoint` is the
/// route the request went to ([`ExecRequest::endpoint`]); `None` means the tool's
/// usual route (`exec/programmatic` for the programmatic tools and an attached-workspace `bash_tool`,
/// `exec` otherwise). It matters because a programmatic tool that selected no tools runs on plain `/exec`
/// (3.9), whose answer has no `status`.
///
/// - `execute_code`, `bash_tool` and the plain-`/exec` fallback never look at `status`.
/// - An attached-workspace `bash_tool` requires `status: "completed"`.
/// - A programmatic answer: `completed` gives the artifact, `tool_call_required` gives
///   [`ExecResponseOutcome::ToolCallRequired`], `error` and anything else are
///   [`ErrorCode::SandboxError`]s whose message is the SDK's error text (without the reminder the SDK
///   appends when the code mentions `/mnt/data`).
///
/// A body that the fold could not use (`files` not an array of objects, `session_id` not a string,
/// 3.9 `deleted_files` not an array of strings) is a [`ErrorCode::SandboxError`] too, where the SDK would
/// fail or pass the garbage on.
pub fn read_exec_response<'r>(
    profile: Profile,
    tool: &str,
    factory: Option<Raw<'_>>,
    endpoint: Option<&str>,
    response: &'r Json,
) -> GateResult<ExecResponseOutcome<'r>> {
    let factory_at = Path::root("factory");
    check_object(factory, &factory_at)?;
    let tool = ExecTool::parse(tool, &Path::root("tool"))?;
    let factory = Factory::read(profile, tool, factory, &factory_at)?;
    let route = resolve_route(profile, tool, &factory, endpoint, &Path::root("endpoint"))?;
    let at = Path::root("response");
    let response = response
        .as_object()
        .ok_or_else(|| GateError::expected(&at, "an object", json::type_name(response)))?;

    let shape = match (tool, route) {
        (ExecTool::ExecuteCode, _) | (ExecTool::Bash, Route::Exec) => Shape::Execution,
        (ExecTool::Bash, Route::Programmatic) => {
            if response.get("status") != Some(&Json::String("completed".into())) {
                return Err(sandbox_error(
                    &at,
                    format!("Execution error:\n\n{}", execution_error_message(response)),
                ));
            }
            Shape::Execution
        }
        (_, Route::Exec) => Shape::Programmatic,
        (_, Route::Programmatic) => {
            let prefix = if tool == ExecTool::BashProgrammatic {
                "Bash programmatic execution failed: "
            } else {
                "Programmatic execution failed: "
            };
            match response.get("status").and_then(Json::as_str) {
                Some("completed") => Shape::Programmatic,
                Some("tool_call_required") => return Ok(ExecResponseOutcome::ToolCallRequired {}),
                Some("error") => {
                    return Err(sandbox_error(
                        &at.key("status"),
                        format!("{prefix}{}", execution_error_message(response)),
                    ))
                }
                _ => {
                    return Err(sandbox_error(
                        &at.key("status"),
                        format!("{prefix}{UNAVAILABLE_MESSAGE}"),
                    ))
                }
            }
        }
    };
    let artifact = build_artifact(profile, shape, response, &at)?;
    Ok(ExecResponseOutcome::Completed { artifact })
}
