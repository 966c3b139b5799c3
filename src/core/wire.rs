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

use super::config::Profile;
use super::error::{ErrorCode, GateError, GateResult, Path};
use super::tools::{
    BASH_PROGRAMMATIC_TOOL_CALLING, BASH_TOOL, EXECUTE_CODE, PROGRAMMATIC_TOOL_CALLING,
};
use super::value::{Object, Value};

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
    pub body: Object,
}

/// What a sandbox answer means for the tool.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecOutcome {
    /// The execution finished: the tool returns this artifact (the one the session fold reads).
    Completed {
        /// `{session_id, files, …}` shaped per tool and profile.
        artifact: Object,
    },
    /// The programmatic sandbox asks for tool results: the round trip is not finished, and the host
    /// continues it (running the requested tools and posting `{continuation_token, tool_results}`).
    ToolCallRequired,
}

/// Builds the first sandbox request `tool` makes, as the SDK of `profile` does.
///
/// - `factory`: the tool factory params as plain data (`statefulSessions`, `executionProfile`,
///   `runtimeSessionHint`, `session_id`, `files`, `user_id`, `workspaceId`, `workspaceInstanceId`,
///   `runTimeoutMs`, …). `execute_code` and `bash_tool` spread every param they do not consume into the
///   body, as the SDK does (so `session_id`, `files`, `user_id`, and anything else reach the wire).
/// - `tool_call`: what the ToolNode injects (`session_id`, `_injected_files`, `_runtime_session_hint`;
///   for the programmatic tools `toolDefs`/`tools`, `disallowedToolDefs`, `programmaticToolName`,
///   `name`), plus `requestId` (see the module docs).
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
    factory: &Value,
    tool_call: &Value,
    model_args: &Value,
) -> GateResult<ExecRequest> {
    let tool = ExecTool::parse(tool, &Path::root("tool"))?;
    let factory = Factory::read(profile, tool, factory, &Path::root("factory"))?;
    let args = check_model_args(
        tool,
        factory.run_timeout_cap,
        model_args,
        &Path::root("modelArgs"),
    )?;
    let call = Injected::read(tool, tool_call, &Path::root("toolCall"))?;
    match tool {
        ExecTool::ExecuteCode | ExecTool::Bash => {
            Ok(build_direct(profile, tool, &factory, &call, args))
        }
        ExecTool::Programmatic | ExecTool::BashProgrammatic => {
            build_programmatic(profile, tool, &factory, &call, args)
        }
    }
}

/// Reads the sandbox's answer to the first request of `tool` and returns what the tool makes of it.
///
/// `endpoint` is the route the request went to ([`ExecRequest::endpoint`]); `None` means the tool's
/// usual route (`exec/programmatic` for the programmatic tools and an attached-workspace `bash_tool`,
/// `exec` otherwise). It matters because a programmatic tool that selected no tools runs on plain `/exec`
/// (3.9), whose answer has no `status`.
///
/// - `execute_code`, `bash_tool` and the plain-`/exec` fallback never look at `status`.
/// - An attached-workspace `bash_tool` requires `status: "completed"`.
/// - A programmatic answer: `completed` gives the artifact, `tool_call_required` gives
///   [`ExecOutcome::ToolCallRequired`], `error` and anything else are [`ErrorCode::SandboxError`]s whose
///   message is the SDK's error text (without the reminder the SDK appends when the code mentions
///   `/mnt/data`).
///
/// A body that the fold could not use (`files` not an array of objects, `session_id` not a string,
/// 3.9 `deleted_files` not an array of strings) is a [`ErrorCode::SandboxError`] too, where the SDK would
/// fail or pass the garbage on.
pub fn read_exec_response(
    profile: Profile,
    tool: &str,
    factory: &Value,
    endpoint: Option<&str>,
    response: &Value,
) -> GateResult<ExecOutcome> {
    let tool = ExecTool::parse(tool, &Path::root("tool"))?;
    let factory = Factory::read(profile, tool, factory, &Path::root("factory"))?;
    let route = resolve_route(profile, tool, &factory, endpoint, &Path::root("endpoint"))?;
    let at = Path::root("response");
    let response = response
        .as_object()
        .ok_or_else(|| GateError::expected(&at, "an object", response.type_name()))?;

    let shape = match (tool, route) {
        (ExecTool::ExecuteCode, _) | (ExecTool::Bash, Route::Exec) => Shape::Execution,
        (ExecTool::Bash, Route::Programmatic) => {
            if response.get("status") != Some(&Value::String("completed".into())) {
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
            match response.get("status").and_then(Value::as_str) {
                Some("completed") => Shape::Programmatic,
                Some("tool_call_required") => return Ok(ExecOutcome::ToolCallRequired),
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
    Ok(ExecOutcome::Completed { artifact })
}

// ---------------------------------------------------------------------------------------------------
// Routes

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Exec,
    Programmatic,
}

impl Route {
    fn endpoint(self) -> &'static str {
        match self {
            Route::Exec => EXEC_ENDPOINT,
            Route::Programmatic => PROGRAMMATIC_ENDPOINT,
        }
    }
}

/// The routes `tool` can take; the first is the one that does not depend on the model's arguments.
fn routes(profile: Profile, tool: ExecTool, factory: &Factory<'_>) -> &'static [Route] {
    match tool {
        ExecTool::ExecuteCode => &[Route::Exec],
        ExecTool::Bash if factory.workspace.is_some() => &[Route::Programmatic],
        ExecTool::Bash => &[Route::Exec],
        ExecTool::BashProgrammatic if factory.workspace.is_some() => &[Route::Programmatic],
        ExecTool::Programmatic | ExecTool::BashProgrammatic if profile.is_3_9() => {
            &[Route::Programmatic, Route::Exec]
        }
        ExecTool::Programmatic | ExecTool::BashProgrammatic => &[Route::Programmatic],
    }
}

fn resolve_route(
    profile: Profile,
    tool: ExecTool,
    factory: &Factory<'_>,
    endpoint: Option<&str>,
    path: &Path<'_>,
) -> GateResult<Route> {
    let allowed = routes(profile, tool, factory);
    let Some(endpoint) = endpoint else {
        return Ok(allowed.first().copied().unwrap_or(Route::Exec));
    };
    allowed
        .iter()
        .copied()
        .find(|r| r.endpoint() == endpoint)
        .ok_or_else(|| {
            let known: Vec<&str> = allowed.iter().map(|r| r.endpoint()).collect();
            GateError::new(
                ErrorCode::InvalidValue,
                path,
                format!(
                    "{} never sends to {endpoint:?} with this profile and factory (its routes: {})",
                    tool.name(),
                    known.join(", ")
                ),
            )
        })
}

// ---------------------------------------------------------------------------------------------------
// Factory params

/// A validated attached workspace (3.9 bash tools).
#[derive(Debug, Clone, PartialEq)]
struct Workspace {
    /// Trimmed, pattern-checked.
    id: String,
    /// Trimmed, 64 lowercase hex characters.
    instance_id: Option<String>,
}

/// The factory params, validated, with the values the tools consult pulled out.
struct Factory<'a> {
    params: &'a Object,
    execution_profile: Option<&'a str>,
    stateful_sessions: bool,
    runtime_session_hint: Option<&'a str>,
    run_timeout_cap: f64,
    workspace: Option<Workspace>,
}

impl<'a> Factory<'a> {
    fn read(
        profile: Profile,
        tool: ExecTool,
        v: &'a Value,
        path: &Path<'_>,
    ) -> GateResult<Factory<'a>> {
        let params = v
            .as_object()
            .ok_or_else(|| GateError::expected(path, "an object", v.type_name()))?;
        let execution_profile = optional_str(params, "executionProfile", path)?;
        let runtime_session_hint = optional_str(params, "runtimeSessionHint", path)?;
        // Only the programmatic tools read runTimeoutMs; the others spread it into the body untouched.
        let run_timeout_cap = if tool.is_programmatic() {
            match params.get("runTimeoutMs") {
                None | Some(Value::Null) => DEFAULT_RUN_TIMEOUT_MS,
                Some(Value::Number(n)) => normalize_timeout(*n).unwrap_or(DEFAULT_RUN_TIMEOUT_MS),
                Some(other) => {
                    return Err(GateError::expected(
                        &path.key("runTimeoutMs"),
                        "a number",
                        other.type_name(),
                    ))
                }
            }
        } else {
            DEFAULT_RUN_TIMEOUT_MS
        };
        let workspace = if tool.knows_workspaces(profile) {
            read_workspace(tool, params, path)?
        } else {
            None
        };
        Ok(Factory {
            params,
            execution_profile,
            // Only boolean true: the SDK compares with `=== true`.
            stateful_sessions: params.get("statefulSessions") == Some(&Value::Bool(true)),
            runtime_session_hint,
            run_timeout_cap,
            workspace,
        })
    }

    /// `selectRuntimeSessionHint`: a non-empty factory hint wins over the injected one; the result counts
    /// only when non-empty.
    fn chosen_hint<'b>(&'b self, injected: Option<&'b str>) -> Option<&'b str> {
        match self.runtime_session_hint {
            Some(h) if !h.is_empty() => Some(h),
            _ => injected.filter(|h| !h.is_empty()),
        }
    }

    fn profile_is_default(&self) -> bool {
        self.execution_profile == Some("default")
    }
}

/// The SDK factory order matters for which message a doubly-bad config gets: `bash_tool` checks the
/// instance id before the workspace id, `run_tools_with_bash` the other way round.
fn read_workspace(
    tool: ExecTool,
    params: &Object,
    path: &Path<'_>,
) -> GateResult<Option<Workspace>> {
    let id_path = path.key("workspaceId");
    let id = optional_str(params, "workspaceId", path)?
        .map(js_trim)
        .filter(|s| !s.is_empty());
    let check_id = || -> GateResult<()> {
        match id {
            Some(id) if !is_valid_workspace_id(id) => Err(GateError::new(
                ErrorCode::InvalidFactory,
                &id_path,
                "Invalid attached workspace identifier",
            )),
            _ => Ok(()),
        }
    };
    if tool == ExecTool::BashProgrammatic {
        check_id()?;
    }
    let instance = optional_str(params, "workspaceInstanceId", path)?
        .map(js_trim)
        .filter(|s| !s.is_empty());
    if let Some(instance) = instance {
        if id.is_none() || !is_valid_instance_id(instance) {
            return Err(GateError::new(
                ErrorCode::InvalidFactory,
                &path.key("workspaceInstanceId"),
                "Invalid attached workspace instance identifier",
            ));
        }
    }
    check_id()?;
    Ok(id.map(|id| Workspace {
        id: id.to_owned(),
        instance_id: instance.map(str::to_owned),
    }))
}

/// `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`.
fn is_valid_workspace_id(id: &str) -> bool {
    let mut chars = id.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && id.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'))
}

/// `^[a-f0-9]{64}$`.
fn is_valid_instance_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| matches!(b, b'a'..=b'f' | b'0'..=b'9'))
}

/// `normalizeTimeoutMs`: finite numbers only, floored, at least one second.
fn normalize_timeout(n: f64) -> Option<f64> {
    n.is_finite().then(|| n.floor().max(MIN_RUN_TIMEOUT_MS))
}

// ---------------------------------------------------------------------------------------------------
// Model arguments: the checks langchain's JSON-schema validator (@cfworker/json-schema) applies to each
// tool's declared schema. Undeclared keys pass unchecked, as the schemas allow additional properties.

fn check_model_args<'a>(
    tool: ExecTool,
    cap: f64,
    v: &'a Value,
    path: &Path<'_>,
) -> GateResult<&'a Object> {
    let args = v
        .as_object()
        .ok_or_else(|| GateError::expected(path, "an object", v.type_name()))?;
    arg_string(args, "intent", false, path)?;
    match tool {
        ExecTool::ExecuteCode => {
            if let Some(lang) = arg_string(args, "lang", true, path)? {
                if !SUPPORTED_LANGUAGES.contains(&lang) {
                    return Err(bad_arg(
                        &path.key("lang"),
                        format!("must be one of {}", SUPPORTED_LANGUAGES.join(", ")),
                    ));
                }
            }
            arg_string(args, "code", true, path)?;
            arg_string_array(args, "args", path)?;
        }
        ExecTool::Bash => {
            arg_string(args, "command", true, path)?;
            arg_string_array(args, "args", path)?;
        }
        ExecTool::Programmatic | ExecTool::BashProgrammatic => {
            if arg_string(args, "code", true, path)? == Some("") {
                return Err(bad_arg(&path.key("code"), "must not be empty"));
            }
            if let Some(manifest) = arg_string_array(args, "tool_manifest", path)? {
                for (i, name) in manifest.iter().enumerate() {
                    if manifest
                        .get(..i)
                        .is_some_and(|before| before.contains(name))
                    {
                        return Err(bad_arg(
                            &path.key("tool_manifest").index(i),
                            format!("duplicates an earlier item ({name:?})"),
                        ));
                    }
                }
            }
            check_timeout_arg(args, cap, path)?;
        }
    }
    Ok(args)
}

fn bad_arg(path: &Path<'_>, message: impl Into<String>) -> GateError {
    GateError::new(ErrorCode::InvalidModelArgs, path, message)
}

/// A declared string property: present values must be strings; `required` ones must be present.
fn arg_string<'a>(
    args: &'a Object,
    key: &str,
    required: bool,
    path: &Path<'_>,
) -> GateResult<Option<&'a str>> {
    match args.get(key) {
        None if required => Err(bad_arg(&path.key(key), "is required")),
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(bad_arg(
            &path.key(key),
            format!("expected a string, got {}", other.type_name()),
        )),
    }
}

/// A declared `array` of `string` property (optional in every schema that has one).
fn arg_string_array<'a>(
    args: &'a Object,
    key: &str,
    path: &Path<'_>,
) -> GateResult<Option<Vec<&'a str>>> {
    let Some(v) = args.get(key) else {
        return Ok(None);
    };
    let at = path.key(key);
    let Value::Array(items) = v else {
        return Err(bad_arg(
            &at,
            format!("expected an array of strings, got {}", v.type_name()),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str().ok_or_else(|| {
                bad_arg(
                    &at.index(i),
                    format!("expected a string, got {}", item.type_name()),
                )
            })
        })
        .collect::<GateResult<Vec<&str>>>()
        .map(Some)
}

/// `timeout`: an integer in `[1000, max(cap, 300000)]` (the schema's bounds; the cap itself is applied
/// afterwards by clamping, not by refusing).
fn check_timeout_arg(args: &Object, cap: f64, path: &Path<'_>) -> GateResult<()> {
    let Some(v) = args.get("timeout") else {
        return Ok(());
    };
    let at = path.key("timeout");
    let Value::Number(n) = v else {
        return Err(bad_arg(
            &at,
            format!("expected an integer, got {}", v.type_name()),
        ));
    };
    if !n.is_finite() || n.fract() != 0.0 {
        return Err(bad_arg(
            &at,
            "expected an integer number of milliseconds".to_owned(),
        ));
    }
    let max = cap.max(MAX_RUN_TIMEOUT_SCHEMA_MS);
    if *n < MIN_RUN_TIMEOUT_MS || *n > max {
        return Err(bad_arg(
            &at,
            // Whole milliseconds, printed as integers: formatting a float would link Rust's float
            // printing into the .wasm.
            format!(
                "must be between {} and {} milliseconds",
                MIN_RUN_TIMEOUT_MS as u64, max as u64
            ),
        ));
    }
    Ok(())
}

/// `clampCodeApiRunTimeoutMs`: the (normalised) model timeout, at most the cap; the cap when absent.
fn clamp_timeout(args: &Object, cap: f64) -> f64 {
    match args.get("timeout") {
        Some(Value::Number(n)) => normalize_timeout(*n).map_or(cap, |t| t.min(cap)),
        _ => cap,
    }
}

// ---------------------------------------------------------------------------------------------------
// What the ToolNode injects

/// A tool definition offered to the programmatic tools.
#[derive(Debug, Clone, Copy)]
struct ToolDef<'a> {
    name: &'a str,
    def: &'a Value,
}

struct Injected<'a> {
    /// Present (string or null) as injected; the programmatic route sends it verbatim.
    session_id: Option<&'a Value>,
    /// Non-empty only: an empty list counts as none.
    injected_files: Option<&'a Vec<Value>>,
    runtime_session_hint: Option<&'a str>,
    request_id: Option<&'a str>,
    /// `toolDefs ?? tools`; `None` when neither is given.
    tool_defs: Option<Vec<ToolDef<'a>>>,
    disallowed: Option<Vec<&'a str>>,
    programmatic_name: &'a str,
}

impl<'a> Injected<'a> {
    fn read(tool: ExecTool, v: &'a Value, path: &Path<'_>) -> GateResult<Injected<'a>> {
        let call = v
            .as_object()
            .ok_or_else(|| GateError::expected(path, "an object", v.type_name()))?;
        let session_id = match call.get("session_id") {
            None => None,
            Some(s @ (Value::String(_) | Value::Null)) => Some(s),
            Some(other) => {
                return Err(GateError::expected(
                    &path.key("session_id"),
                    "a string",
                    other.type_name(),
                ))
            }
        };
        let injected_files = match call.get("_injected_files") {
            None | Some(Value::Null) => None,
            Some(Value::Array(files)) => {
                let at = path.key("_injected_files");
                for (i, f) in files.iter().enumerate() {
                    if f.as_object().is_none() {
                        return Err(GateError::expected(
                            &at.index(i),
                            "a file object",
                            f.type_name(),
                        ));
                    }
                }
                Some(files).filter(|f| !f.is_empty())
            }
            Some(other) => {
                return Err(GateError::expected(
                    &path.key("_injected_files"),
                    "an array of files",
                    other.type_name(),
                ))
            }
        };
        let runtime_session_hint = optional_str(call, "_runtime_session_hint", path)?;
        let request_id = optional_str(call, "requestId", path)?;
        if request_id == Some("") {
            return Err(GateError::new(
                ErrorCode::InvalidValue,
                &path.key("requestId"),
                "must not be empty (it becomes a header value)",
            ));
        }

        let mut injected = Injected {
            session_id,
            injected_files,
            runtime_session_hint,
            request_id,
            tool_defs: None,
            disallowed: None,
            programmatic_name: tool.name(),
        };
        if tool.is_programmatic() {
            // `toolDefs ?? tools`: a null toolDefs falls through to tools.
            injected.tool_defs = match call.get("toolDefs") {
                None | Some(Value::Null) => tool_def_list(call, "tools", path)?,
                Some(_) => tool_def_list(call, "toolDefs", path)?,
            };
            injected.disallowed = tool_def_list(call, "disallowedToolDefs", path)?
                .map(|defs| defs.iter().map(|d| d.name).collect());
            injected.programmatic_name = match optional_str(call, "programmaticToolName", path)? {
                Some(name) => name,
                None => match call.get("name") {
                    Some(Value::String(name)) if !name.is_empty() => name,
                    _ => tool.name(),
                },
            };
        }
        Ok(injected)
    }

    /// The ToolNode builds its tool map and definitions from one list, so non-empty definitions stand
    /// for a present, non-empty tool map.
    fn has_tool_map(&self) -> bool {
        self.tool_defs.as_ref().is_some_and(|d| !d.is_empty())
    }
}

/// An array of `{ name: string, … }` under `key`, or `None` when absent or null.
fn tool_def_list<'a>(
    call: &'a Object,
    key: &str,
    path: &Path<'_>,
) -> GateResult<Option<Vec<ToolDef<'a>>>> {
    let at = path.key(key);
    match call.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, def)| {
                let item = at.index(i);
                let obj = def.as_object().ok_or_else(|| {
                    GateError::expected(&item, "a tool definition object", def.type_name())
                })?;
                match obj.get("name") {
                    Some(Value::String(name)) => Ok(ToolDef { name, def }),
                    Some(other) => Err(GateError::expected(
                        &item.key("name"),
                        "a string",
                        other.type_name(),
                    )),
                    None => Err(GateError::missing(&item.key("name"))),
                }
            })
            .collect::<GateResult<Vec<_>>>()
            .map(Some),
        Some(other) => Err(GateError::expected(
            &at,
            "an array of tool definitions",
            other.type_name(),
        )),
    }
}

// ---------------------------------------------------------------------------------------------------
// execute_code / bash_tool

/// Factory params the direct tools consume instead of forwarding.
const DIRECT_CONSUMED: [&str; 5] = [
    "authHeaders",
    "baseUrl",
    "executionProfile",
    "runtimeSessionHint",
    "statefulSessions",
];
/// What 3.9's `bash_tool` additionally consumes.
const WORKSPACE_PARAMS: [&str; 2] = ["workspaceId", "workspaceInstanceId"];

fn build_direct(
    profile: Profile,
    tool: ExecTool,
    factory: &Factory<'_>,
    call: &Injected<'_>,
    args: &Object,
) -> ExecRequest {
    let workspaces = tool.knows_workspaces(profile);
    let ws = factory.workspace.as_ref();
    let mut body = Object::new();
    // The model keys each tool destructures out of its arguments (never forwarded as such).
    let taken: &[&str] = match tool {
        ExecTool::ExecuteCode => {
            body.insert("lang", args.get("lang").cloned().unwrap_or(Value::Null));
            body.insert("code", args.get("code").cloned().unwrap_or(Value::Null));
            &["lang", "code", "intent", "runtime_session_hint"]
        }
        _ if workspaces => {
            let command = args
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let model_args = args.get("args");
            body.insert("lang", "bash".into());
            match ws {
                Some(_) => {
                    let command =
                        command_with_arguments(command, model_args.and_then(Value::as_array));
                    body.insert("code", prepare_bash_programmatic_code(&command).into());
                    body.insert("tools", Value::Array(Vec::new()));
                }
                None => {
                    body.insert("code", command.into());
                    if let Some(a) = model_args {
                        body.insert("args", a.clone());
                    }
                }
            }
            &[
                "command",
                "intent",
                "runtime_session_hint",
                "workspace_instance_id",
                "args",
            ]
        }
        _ => {
            // 3.6 forwards `args` (and a model `workspace_instance_id`) among the other model keys.
            body.insert("lang", "bash".into());
            body.insert("code", args.get("command").cloned().unwrap_or(Value::Null));
            &["command", "intent", "runtime_session_hint"]
        }
    };
    for (k, v) in args.iter() {
        if !taken.contains(&k) {
            body.insert(k, v.clone());
        }
    }
    for (k, v) in factory.params.iter() {
        let consumed =
            DIRECT_CONSUMED.contains(&k) || (workspaces && WORKSPACE_PARAMS.contains(&k));
        if !consumed {
            body.insert(k, v.clone());
        }
    }
    if let Some(instance) = ws.and_then(|w| w.instance_id.as_ref()) {
        body.insert("workspace_instance_id", instance.as_str().into());
    }
    // The direct tools need the stateful flag before a hint may leave; the programmatic ones do not.
    if factory.stateful_sessions && !factory.profile_is_default() {
        if let Some(hint) = factory.chosen_hint(call.runtime_session_hint) {
            body.insert("runtime_session_hint", hint.into());
        }
    }
    // The injected exec session_id is not sent by these tools: only files carry the session.
    if let Some(files) = call.injected_files {
        body.insert("files", Value::Array(files.clone()));
    }

    let route = if ws.is_some() {
        Route::Programmatic
    } else {
        Route::Exec
    };
    let mut headers = base_headers();
    if let Some(ws) = ws {
        headers.push((WORKSPACE_HEADER, ws.id.clone()));
    }
    if let Some(p) = factory.execution_profile {
        headers.push((EXPECTED_PROFILE_HEADER, p.to_owned()));
    }
    // Only the programmatic request helper, which the attached-workspace route goes through, sends the
    // cancellable request id.
    if ws.is_some() {
        if let Some(id) = call.request_id {
            headers.push((REQUEST_ID_HEADER, id.to_owned()));
        }
    }
    ExecRequest {
        endpoint: route.endpoint(),
        headers,
        body,
    }
}

/// `bash -c '<command>' -- '<arg>'…`, or the bare command when there are no arguments.
fn command_with_arguments(command: &str, args: Option<&[Value]>) -> String {
    let args: Vec<&str> = args
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if args.is_empty() {
        return command.to_owned();
    }
    let quoted: Vec<String> = args.iter().map(|a| quote_bash_argument(a)).collect();
    format!(
        "bash -c {} -- {}",
        quote_bash_argument(command),
        quoted.join(" ")
    )
}

/// Single quotes, with each `'` spelled `'"'"'`.
fn quote_bash_argument(value: &str) -> String {
    format!("'{}'", value.replace('\'', "'\"'\"'"))
}

fn prepare_bash_programmatic_code(code: &str) -> String {
    format!("{BASH_BACKGROUND_PID_GUARD}\n{code}")
}

fn base_headers() -> Vec<(&'static str, String)> {
    vec![
        ("Content-Type", CONTENT_TYPE.to_owned()),
        ("User-Agent", USER_AGENT.to_owned()),
    ]
}

// ---------------------------------------------------------------------------------------------------
// run_tools_with_code / run_tools_with_bash

fn build_programmatic(
    profile: Profile,
    tool: ExecTool,
    factory: &Factory<'_>,
    call: &Injected<'_>,
    args: &Object,
) -> GateResult<ExecRequest> {
    let code = args.get("code").and_then(Value::as_str).unwrap_or_default();
    let manifest: Option<Vec<&str>> = args
        .get("tool_manifest")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect());
    let timeout = clamp_timeout(args, factory.run_timeout_cap);
    let ptn = call.programmatic_name;
    let allowed = call.tool_defs.as_deref().unwrap_or_default();
    let disallowed = call.disallowed.as_deref().unwrap_or_default();
    let manifest_path = Path::root("modelArgs");
    let selected = select_tools(
        manifest.as_deref(),
        allowed,
        disallowed,
        ptn,
        &manifest_path,
    )?;

    let no_tools = profile.is_3_9()
        && selected.is_empty()
        && (manifest.as_ref().is_some_and(Vec::is_empty)
            || call.tool_defs.is_some()
            || call.disallowed.is_some());
    if !no_tools && !call.has_tool_map() {
        return Err(GateError::new(
            ErrorCode::ToolSelection,
            &Path::root("toolCall").key("toolDefs"),
            "No toolMap provided. ToolNode should inject this from AgentContext when invoked through the graph.",
        ));
    }
    if profile.is_3_9() {
        assert_unambiguous(&selected, tool == ExecTool::BashProgrammatic, ptn)?;
    }

    let hint = if factory.profile_is_default() {
        None
    } else {
        factory.chosen_hint(call.runtime_session_hint)
    };
    let ws = factory.workspace.as_ref();
    let mut headers = base_headers();
    if let Some(ws) = ws {
        headers.push((WORKSPACE_HEADER, ws.id.clone()));
    }
    if let Some(p) = factory.execution_profile {
        headers.push((EXPECTED_PROFILE_HEADER, p.to_owned()));
    }

    let mut body = Object::new();
    if no_tools && ws.is_none() {
        // 3.9's plain /exec fallback: no tool definitions, no request id, and only a non-empty session.
        let (lang, code) = match tool {
            ExecTool::BashProgrammatic => ("bash", code.to_owned()),
            _ => ("py", wrap_python_for_plain_execution(code)),
        };
        body.insert("lang", lang.into());
        body.insert("code", code.into());
        body.insert("timeout", Value::Number(timeout));
        if let Some(Value::String(s)) = call.session_id {
            if !s.is_empty() {
                body.insert("session_id", Value::String(s.clone()));
            }
        }
        if let Some(files) = call.injected_files {
            body.insert("files", Value::Array(files.clone()));
        }
        if let Some(hint) = hint {
            body.insert("runtime_session_hint", hint.into());
        }
        return Ok(ExecRequest {
            endpoint: EXEC_ENDPOINT,
            headers,
            body,
        });
    }

    if tool == ExecTool::BashProgrammatic {
        body.insert("lang", "bash".into());
        let code = if profile.is_3_9() {
            prepare_bash_programmatic_code(code)
        } else {
            code.to_owned()
        };
        body.insert("code", code.into());
    } else {
        body.insert("code", code.into());
    }
    body.insert(
        "tools",
        Value::Array(selected.iter().map(|d| d.def.clone()).collect()),
    );
    if let Some(session) = call.session_id {
        body.insert("session_id", session.clone());
    }
    body.insert("timeout", Value::Number(timeout));
    if let Some(instance) = ws.and_then(|w| w.instance_id.as_ref()) {
        body.insert("workspace_instance_id", instance.as_str().into());
    }
    if let Some(files) = call.injected_files {
        body.insert("files", Value::Array(files.clone()));
    }
    if let Some(hint) = hint {
        body.insert("runtime_session_hint", hint.into());
    }
    if profile.is_3_9() {
        if let Some(id) = call.request_id {
            headers.push((REQUEST_ID_HEADER, id.to_owned()));
        }
    }
    Ok(ExecRequest {
        endpoint: PROGRAMMATIC_ENDPOINT,
        headers,
        body,
    })
}

/// `selectProgrammaticTools`: without a manifest every offered tool (unless direct-only tools exist);
/// with one, exactly the listed tools, refusing direct-only and unknown names.
fn select_tools<'a>(
    requested: Option<&[&str]>,
    allowed: &[ToolDef<'a>],
    disallowed: &[&str],
    ptn: &str,
    args_path: &Path<'_>,
) -> GateResult<Vec<ToolDef<'a>>> {
    let at = args_path.key("tool_manifest");
    let Some(requested) = requested else {
        if !disallowed.is_empty() {
            return Err(GateError::new(
                ErrorCode::ToolSelection,
                &at,
                format!(
                    "\"{ptn}\" requires a tool_manifest when direct-only tools are configured. List every \
                     registered tool name used by the submitted code in the tool_manifest field."
                ),
            ));
        }
        return Ok(allowed.to_vec());
    };
    let requested = unique(requested.iter().copied());
    let refused = unique(requested.iter().copied().filter(|n| disallowed.contains(n)));
    if !refused.is_empty() {
        let one = refused.len() == 1;
        return Err(GateError::new(
            ErrorCode::ToolSelection,
            &at,
            format!(
                "Tool{} {} cannot be called from \"{ptn}\" because the{} not marked for code_execution. \
                 Call {} directly instead.",
                if one { "" } else { "s" },
                quoted_list(&refused),
                if one { " tool is" } else { "se tools are" },
                if one { "it" } else { "them" },
            ),
        ));
    }
    // A later definition of the same name replaces an earlier one, as building a Map does.
    let find = |name: &str| allowed.iter().rev().find(|d| d.name == name).copied();
    let unknown: Vec<&str> = requested
        .iter()
        .copied()
        .filter(|n| find(n).is_none())
        .collect();
    if !unknown.is_empty() {
        let one = unknown.len() == 1;
        return Err(GateError::new(
            ErrorCode::ToolSelection,
            &at,
            format!(
                "Tool{} {} cannot be used by \"{ptn}\" because {} not available for code_execution.",
                if one { "" } else { "s" },
                quoted_list(&unknown),
                if one { "it is" } else { "they are" },
            ),
        ));
    }
    Ok(requested.iter().filter_map(|n| find(n)).collect())
}

/// First occurrences, in order.
fn unique<'s>(items: impl Iterator<Item = &'s str>) -> Vec<&'s str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// 3.9 refuses two selected tools whose sandbox identifiers collide, since the code could not say which
/// one it calls.
fn assert_unambiguous(selected: &[ToolDef<'_>], bash: bool, ptn: &str) -> GateResult<()> {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for def in selected {
        let identifier = if bash {
            normalize_to_bash_identifier(def.name)
        } else {
            normalize_to_python_identifier(def.name)
        };
        match seen.iter_mut().find(|(id, _)| *id == identifier) {
            Some((_, prior)) if *prior != def.name => {
                return Err(GateError::new(
                    ErrorCode::ToolSelection,
                    &Path::root("toolCall").key("toolDefs"),
                    format!(
                        "Tools \"{prior}\" and \"{}\" both become \"{identifier}\" in the sandbox, so \"{ptn}\" \
                         cannot tell which one the code means. Call them directly, or rename one.",
                        def.name
                    ),
                ))
            }
            Some(_) => {}
            None => seen.push((identifier, def.name)),
        }
    }
    Ok(())
}

const PYTHON_KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

const BASH_RESERVED: [&str; 23] = [
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done",
    "in", "function", "select", "time", "coproc", "declare", "typeset", "local", "readonly",
    "export", "unset",
];

/// `normalizeToPythonIdentifier`.
fn normalize_to_python_identifier(name: &str) -> String {
    normalize_identifier(name, false, &PYTHON_KEYWORDS)
}

/// `normalizeToBashIdentifier` (which also maps `.` to `_`).
fn normalize_to_bash_identifier(name: &str) -> String {
    normalize_identifier(name, true, &BASH_RESERVED)
}

fn normalize_identifier(name: &str, dot_is_separator: bool, reserved: &[&str]) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c == '-' || is_js_whitespace(c) || (dot_is_separator && c == '.') {
            out.push('_');
        } else if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if reserved.contains(&out.as_str()) {
        out.push_str("_tool");
    }
    out
}

/// The wrapper 3.9 puts around Python sent to plain `/exec`, so that top-level `await` works there too.
fn wrap_python_for_plain_execution(code: &str) -> String {
    let body: Vec<String> = code
        .split('\n')
        .map(|line| {
            if js_trim(line).is_empty() {
                String::new()
            } else {
                format!("    {line}")
            }
        })
        .collect();
    format!(
        "async def __user_main__():\n    \"\"\"Auto-generated wrapper for user code to support top-level await\"\"\"\n{}\n\nif __name__ == \"__main__\":\n    import asyncio\n    asyncio.run(__user_main__())\n",
        body.join("\n")
    )
}

// ---------------------------------------------------------------------------------------------------
// Answers and artifacts

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `execute_code` / `bash_tool`: `files` only when non-empty.
    Execution,
    /// The programmatic tools: `files` always copied.
    Programmatic,
}

fn sandbox_error(path: &Path<'_>, message: impl Into<String>) -> GateError {
    GateError::new(ErrorCode::SandboxError, path, message)
}

/// `r[key]` when absent, `null`, or an array whose every item passes `item_ok`; a sandbox error naming
/// the offending item or value otherwise.
fn answer_list<'v>(
    r: &'v Object,
    key: &str,
    path: &Path<'_>,
    item_ok: fn(&Value) -> bool,
    item: &str,
    list: &str,
) -> GateResult<Option<&'v Value>> {
    let at = path.key(key);
    match r.get(key) {
        v @ (None | Some(Value::Null)) => Ok(v),
        Some(v @ Value::Array(items)) => match items.iter().position(|x| !item_ok(x)) {
            None => Ok(Some(v)),
            Some(i) => {
                let bad = items.get(i).map_or("nothing", Value::type_name);
                Err(sandbox_error(
                    &at.index(i),
                    format!("expected {item}, got {bad}"),
                ))
            }
        },
        Some(other) => Err(sandbox_error(
            &at,
            format!("expected {list}, got {}", other.type_name()),
        )),
    }
}

fn build_artifact(
    profile: Profile,
    shape: Shape,
    r: &Object,
    path: &Path<'_>,
) -> GateResult<Object> {
    let session_id = match r.get("session_id") {
        v @ (None | Some(Value::String(_) | Value::Null)) => v,
        Some(other) => {
            return Err(sandbox_error(
                &path.key("session_id"),
                format!("expected a string, got {}", other.type_name()),
            ))
        }
    };
    let files = answer_list(
        r,
        "files",
        path,
        |f| f.as_object().is_some(),
        "a file object",
        "an array of files",
    )?;
    // 3.6 neither echoes deletions nor reads delivery reports.
    let (deleted, delivery) = if profile.is_3_9() {
        let deleted = answer_list(
            r,
            "deleted_files",
            path,
            |n| n.as_str().is_some(),
            "a file name",
            "an array of names",
        )?
        .filter(|v| !v.is_null());
        (
            deleted,
            normalize_artifact_delivery(r.get("artifact_delivery")),
        )
    } else {
        (None, None)
    };

    let mut a = Object::new();
    if let Some(s) = session_id {
        a.insert("session_id", s.clone());
    }
    match shape {
        Shape::Execution => {
            if let Some(f @ Value::Array(items)) = files {
                if !items.is_empty() {
                    a.insert("files", f.clone());
                }
            }
            if let Some(d) = delivery {
                a.insert("artifact_delivery", Value::Object(d));
            }
            if let Some(d) = deleted {
                a.insert("deleted_files", d.clone());
            }
        }
        Shape::Programmatic => {
            if let Some(f) = files {
                a.insert("files", f.clone());
            }
            if let Some(d) = deleted {
                a.insert("deleted_files", d.clone());
            }
            if let Some(d) = delivery {
                a.insert("artifact_delivery", Value::Object(d));
            }
        }
    }
    match r.get("runtime_session_id") {
        None | Some(Value::Null) => {}
        Some(id) => {
            a.insert("runtime_session_id", id.clone());
            if let Some(status) = r.get("runtime_status") {
                a.insert("runtime_status", status.clone());
            }
        }
    }
    Ok(a)
}

/// `normalizeArtifactDeliveryFailure`: a failure report is kept (with only its five keys) when it is
/// internally consistent; anything else is dropped silently.
fn normalize_artifact_delivery(v: Option<&Value>) -> Option<Object> {
    let report = v?.as_object()?;
    let count = |key: &str| match report.get(key) {
        Some(Value::Number(n)) if n.is_finite() && n.fract() == 0.0 && *n >= 0.0 => Some(*n),
        _ => None,
    };
    let (attempted, delivered, failed) =
        (count("attempted")?, count("delivered")?, count("failed")?);
    let status = report.get("status").and_then(Value::as_str)?;
    let consistent = report.get("code").and_then(Value::as_str) == Some("artifact_delivery_failed")
        && matches!(status, "partial" | "failed")
        && failed != 0.0
        && attempted == delivered + failed
        && !(status == "failed" && delivered != 0.0)
        && !(status == "partial" && delivered == 0.0);
    if !consistent {
        return None;
    }
    let mut out = Object::new();
    out.insert("code", "artifact_delivery_failed".into());
    out.insert("status", status.into());
    out.insert("attempted", Value::Number(attempted));
    out.insert("delivered", Value::Number(delivered));
    out.insert("failed", Value::Number(failed));
    Some(out)
}

/// `buildCodeApiExecutionErrorMessage`: a fixed sentence, a safe detail for the sandbox errors the SDK
/// recognises, and the sandbox's stderr.
fn execution_error_message(r: &Object) -> String {
    let mut message = String::from("Code execution failed.");
    if let Some(detail) = r
        .get("error")
        .and_then(Value::as_str)
        .and_then(safe_error_detail)
    {
        message.push(' ');
        message.push_str(&detail);
    }
    if let Some(stderr) = r
        .get("stderr")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        message.push_str("\n\nStderr:\n");
        message.push_str(stderr);
    }
    message
}

fn safe_error_detail(error: &str) -> Option<String> {
    let exact = match error {
        "Execution failed or timed out" => Some("Execution failed or timed out."),
        "Out of memory" => Some("Execution exceeded the memory limit."),
        "Time limit exceeded" => Some("Execution exceeded the time limit."),
        "sandbox emitted an empty pending tool call block; aborting to avoid a tight retry loop" => {
            Some("Generated code emitted an invalid empty tool request.")
        }
        "stderr length exceeded" => Some("Execution error output exceeded the size limit."),
        "stdout length exceeded" => Some("Execution output exceeded the size limit."),
        _ => None,
    };
    if let Some(exact) = exact {
        return Some(exact.to_owned());
    }
    // /^Sandbox exited with code (?:-?\d{1,4}|unknown)$/
    if let Some(code) = error.strip_prefix("Sandbox exited with code ") {
        let digits = code.strip_prefix('-').unwrap_or(code);
        let numeric = (1..=4).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
        if numeric || code == "unknown" {
            return Some(format!("Execution exited with code {code}"));
        }
    }
    // /^Sandbox requested an unregistered tool: .+$/ (`.` stops at line terminators)
    if let Some(name) = error.strip_prefix("Sandbox requested an unregistered tool: ") {
        if !name.is_empty() && !name.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
            return Some("Generated code requested a tool that is not available.".to_owned());
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------------
// Small helpers

/// A string under `key`, with `null` and absence both meaning "not set" (the SDK's `??` / `?.`).
fn optional_str<'a>(obj: &'a Object, key: &str, path: &Path<'_>) -> GateResult<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(GateError::expected(
            &path.key(key),
            "a string",
            other.type_name(),
        )),
    }
}

/// JavaScript's whitespace (`\s`, and what `String.prototype.trim` removes): the ECMAScript WhiteSpace
/// and LineTerminator sets, which differ from Rust's `char::is_whitespace` (U+FEFF yes, U+0085 no).
fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::json;

    fn j(text: &str) -> Value {
        json::parse(text, &Path::root("test")).unwrap()
    }

    fn build(
        profile: Profile,
        tool: &str,
        factory: &str,
        call: &str,
        args: &str,
    ) -> GateResult<ExecRequest> {
        build_exec_request(profile, tool, &j(factory), &j(call), &j(args))
    }

    fn ok(profile: Profile, tool: &str, factory: &str, call: &str, args: &str) -> ExecRequest {
        match build(profile, tool, factory, call, args) {
            Ok(r) => r,
            Err(e) => panic!("{tool} {factory} {call} {args}: {e}"),
        }
    }

    fn err(profile: Profile, tool: &str, factory: &str, call: &str, args: &str) -> GateError {
        match build(profile, tool, factory, call, args) {
            Ok(r) => panic!("expected an error, got {r:?}"),
            Err(e) => e,
        }
    }

    fn body(r: &ExecRequest) -> Value {
        Value::Object(r.body.clone())
    }

    fn header<'r>(r: &'r ExecRequest, name: &str) -> Option<&'r str> {
        r.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    fn keys(o: &Object) -> Vec<&str> {
        o.iter().map(|(k, _)| k).collect()
    }

    fn read(
        profile: Profile,
        tool: &str,
        factory: &str,
        endpoint: Option<&str>,
        resp: &str,
    ) -> GateResult<ExecOutcome> {
        read_exec_response(profile, tool, &j(factory), endpoint, &j(resp))
    }

    fn artifact(
        profile: Profile,
        tool: &str,
        factory: &str,
        endpoint: Option<&str>,
        resp: &str,
    ) -> Value {
        match read(profile, tool, factory, endpoint, resp) {
            Ok(ExecOutcome::Completed { artifact }) => Value::Object(artifact),
            other => panic!("expected an artifact, got {other:?}"),
        }
    }

    const BOTH: [Profile; 2] = [Profile::V3_6, Profile::V3_9];
    const HELPER: &str = r#"{"toolDefs":[{"name":"h"}]}"#;
    const GUARD: &str = ": &\nwait \"$!\"\n";

    // ----- execute_code / bash_tool bodies

    #[test]
    fn execute_code_spreads_model_then_factory_and_strips_consumed_keys() {
        for p in BOTH {
            let r = ok(
                p,
                "execute_code",
                r#"{"proxy":"p","debug":true,"maxRoundTrips":3,"baseUrl":"http://h/v1","session_id":"fs",
                    "user_id":"u","executionProfile":"stateful","authHeaders":{"X-Key":"k"},"lang":"js"}"#,
                "{}",
                r#"{"lang":"py","code":"x","intent":"i","timeout":5,"zzz":1,"runtime_session_hint":"m"}"#,
            );
            assert_eq!(r.endpoint, "exec");
            assert_eq!(
                body(&r),
                j(
                    r#"{"lang":"js","code":"x","timeout":5,"zzz":1,"proxy":"p","debug":true,"maxRoundTrips":3,
                      "session_id":"fs","user_id":"u"}"#
                )
            );
            assert_eq!(
                keys(&r.body),
                [
                    "lang",
                    "code",
                    "timeout",
                    "zzz",
                    "proxy",
                    "debug",
                    "maxRoundTrips",
                    "session_id",
                    "user_id"
                ]
            );
            assert_eq!(
                r.headers,
                [
                    ("Content-Type", "application/json".to_owned()),
                    ("User-Agent", "LibreChat/1.0".to_owned()),
                    ("X-CodeAPI-Expected-Profile", "stateful".to_owned()),
                ]
            );
        }
    }

    #[test]
    fn no_expected_profile_header_without_execution_profile() {
        let r = ok(
            Profile::V3_9,
            "bash_tool",
            r#"{"executionProfile":null}"#,
            "{}",
            r#"{"command":"ls"}"#,
        );
        assert_eq!(header(&r, EXPECTED_PROFILE_HEADER), None);
        assert_eq!(r.headers.len(), 2);
    }

    #[test]
    fn direct_tools_need_the_stateful_flag_for_a_hint() {
        let cases = [
            // factory, injected hint, expected
            (
                r#"{"statefulSessions":true}"#,
                Some("conv-42"),
                Some("conv-42"),
            ),
            (r#"{}"#, Some("conv-42"), None),
            (r#"{"statefulSessions":"true"}"#, Some("conv-42"), None),
            (
                r#"{"statefulSessions":true,"executionProfile":"default"}"#,
                Some("h"),
                None,
            ),
            (
                r#"{"statefulSessions":true,"runtimeSessionHint":"user-1"}"#,
                Some("inj"),
                Some("user-1"),
            ),
            (
                r#"{"statefulSessions":true,"runtimeSessionHint":""}"#,
                Some("inj"),
                Some("inj"),
            ),
            (
                r#"{"statefulSessions":true,"runtimeSessionHint":""}"#,
                Some(""),
                None,
            ),
            (r#"{"statefulSessions":true}"#, None, None),
        ];
        for p in BOTH {
            for tool in ["execute_code", "bash_tool"] {
                for (factory, injected, want) in cases {
                    let call = match injected {
                        Some(h) => format!(r#"{{"_runtime_session_hint":"{h}"}}"#),
                        None => "{}".to_owned(),
                    };
                    let args =
                        r#"{"lang":"py","code":"x","command":"x","runtime_session_hint":"model"}"#;
                    let r = ok(p, tool, factory, &call, args);
                    assert_eq!(
                        r.body.get("runtime_session_hint").and_then(Value::as_str),
                        want,
                        "{tool} {factory} {call}"
                    );
                }
            }
        }
    }

    #[test]
    fn injected_files_replace_factory_files_and_session_id_stays_off_the_wire() {
        for p in BOTH {
            let f = r#"{"files":[{"id":"factory"}]}"#;
            let with = ok(
                p,
                "execute_code",
                f,
                r#"{"session_id":"prev","_injected_files":[{"id":"inj"}]}"#,
                r#"{"lang":"py","code":"x"}"#,
            );
            assert_eq!(with.body.get("files"), Some(&j(r#"[{"id":"inj"}]"#)));
            assert!(!with.body.contains_key("session_id"));
            assert!(!with.body.contains_key("_injected_files"));
            let empty = ok(
                p,
                "bash_tool",
                f,
                r#"{"session_id":"prev","_injected_files":[]}"#,
                r#"{"command":"x"}"#,
            );
            assert_eq!(empty.body.get("files"), Some(&j(r#"[{"id":"factory"}]"#)));
            assert!(!empty.body.contains_key("session_id"));
        }
    }

    #[test]
    fn bash_args_position_and_model_instance_id_differ_by_profile() {
        let args = r#"{"command":"echo","zz":1,"args":["x"],"workspace_instance_id":"model"}"#;
        let old = ok(Profile::V3_6, "bash_tool", "{}", "{}", args);
        assert_eq!(
            keys(&old.body),
            ["lang", "code", "zz", "args", "workspace_instance_id"]
        );
        let new = ok(Profile::V3_9, "bash_tool", "{}", "{}", args);
        assert_eq!(keys(&new.body), ["lang", "code", "args", "zz"]);
        assert_eq!(new.body.get("code"), Some(&j(r#""echo""#)));
        assert_eq!(new.endpoint, "exec");
    }

    #[test]
    fn a_model_lang_overrides_bash_but_not_execute_code() {
        // bash_tool does not destructure `lang`, so the model's key lands over "bash" in place.
        let r = ok(
            Profile::V3_9,
            "bash_tool",
            "{}",
            "{}",
            r#"{"command":"x","lang":"py"}"#,
        );
        assert_eq!(r.body.get("lang"), Some(&j(r#""py""#)));
        assert_eq!(keys(&r.body), ["lang", "code"]);
    }

    #[test]
    fn workspace_params_are_plain_factory_params_in_3_6() {
        let r = ok(
            Profile::V3_6,
            "bash_tool",
            r#"{"workspaceId":"-","workspaceInstanceId":"x"}"#,
            "{}",
            r#"{"command":"x"}"#,
        );
        assert_eq!(r.endpoint, "exec");
        assert_eq!(
            body(&r),
            j(r#"{"lang":"bash","code":"x","workspaceId":"-","workspaceInstanceId":"x"}"#)
        );
        // execute_code never knew them.
        let r = ok(
            Profile::V3_9,
            "execute_code",
            r#"{"workspaceId":"w"}"#,
            "{}",
            r#"{"lang":"py","code":"x"}"#,
        );
        assert_eq!(r.body.get("workspaceId"), Some(&j(r#""w""#)));
    }

    #[test]
    fn attached_workspace_bash_runs_programmatic() {
        let inst = "a".repeat(64);
        let factory = format!(
            r#"{{"workspaceId":" ws1\n","workspaceInstanceId":" {inst} ","executionProfile":"stateful",
                 "statefulSessions":true,"runtimeSessionHint":"h","user_id":"u"}}"#
        );
        let r = ok(
            Profile::V3_9,
            "bash_tool",
            &factory,
            r#"{"session_id":"s","_injected_files":[{"id":"f"}],"requestId":"rid"}"#,
            r#"{"command":"x","args":[],"zz":1,"workspace_instance_id":"model"}"#,
        );
        assert_eq!(r.endpoint, "exec/programmatic");
        let mut want =
            j(r#"{"lang":"bash","code":": &\nwait \"$!\"\nx","tools":[],"zz":1,"user_id":"u"}"#);
        if let Value::Object(o) = &mut want {
            o.insert("workspace_instance_id", inst.as_str().into());
            o.insert("runtime_session_hint", "h".into());
            o.insert("files", j(r#"[{"id":"f"}]"#));
        }
        assert_eq!(body(&r), want);
        assert_eq!(
            keys(&r.body),
            [
                "lang",
                "code",
                "tools",
                "zz",
                "user_id",
                "workspace_instance_id",
                "runtime_session_hint",
                "files"
            ]
        );
        let names: Vec<&str> = r.headers.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "Content-Type",
                "User-Agent",
                WORKSPACE_HEADER,
                EXPECTED_PROFILE_HEADER,
                REQUEST_ID_HEADER
            ]
        );
        assert_eq!(header(&r, WORKSPACE_HEADER), Some("ws1"));
        assert_eq!(header(&r, REQUEST_ID_HEADER), Some("rid"));
    }

    #[test]
    fn attached_workspace_folds_args_into_a_quoted_command() {
        let r = ok(
            Profile::V3_9,
            "bash_tool",
            r#"{"workspaceId":"ws-1"}"#,
            "{}",
            r#"{"command":"echo","args":["a b","c'd"]}"#,
        );
        assert_eq!(
            r.body.get("code"),
            Some(&Value::String(format!(
                "{GUARD}bash -c 'echo' -- 'a b' 'c'\"'\"'d'"
            )))
        );
        assert!(!r.body.contains_key("args"));
    }

    #[test]
    fn request_id_only_where_the_sdk_uses_its_programmatic_helper() {
        let call = r#"{"requestId":"r1"}"#;
        let plain_bash = ok(Profile::V3_9, "bash_tool", "{}", call, r#"{"command":"x"}"#);
        assert_eq!(header(&plain_bash, REQUEST_ID_HEADER), None);
        let code = ok(
            Profile::V3_9,
            "execute_code",
            "{}",
            call,
            r#"{"lang":"py","code":"x"}"#,
        );
        assert_eq!(header(&code, REQUEST_ID_HEADER), None);
        let ptc_call = r#"{"requestId":"r1","toolDefs":[{"name":"h"}]}"#;
        let ptc = ok(
            Profile::V3_9,
            "run_tools_with_code",
            r#"{"executionProfile":"default"}"#,
            ptc_call,
            r#"{"code":"x"}"#,
        );
        let names: Vec<&str> = ptc.headers.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "Content-Type",
                "User-Agent",
                EXPECTED_PROFILE_HEADER,
                REQUEST_ID_HEADER
            ]
        );
        let old = ok(
            Profile::V3_6,
            "run_tools_with_code",
            "{}",
            ptc_call,
            r#"{"code":"x"}"#,
        );
        assert_eq!(header(&old, REQUEST_ID_HEADER), None);
        let plain = ok(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            ptc_call,
            r#"{"code":"x","tool_manifest":[]}"#,
        );
        assert_eq!(plain.endpoint, "exec");
        assert_eq!(header(&plain, REQUEST_ID_HEADER), None);
        let e = err(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            r#"{"requestId":""}"#,
            r#"{"code":"x"}"#,
        );
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidValue, "toolCall.requestId")
        );
    }

    // ----- workspace validation

    #[test]
    fn workspace_ids_are_validated_like_the_factory() {
        let long_ok = format!("a{}", "b".repeat(127));
        let too_long = format!("a{}", "b".repeat(128));
        let inst = "0123456789abcdef".repeat(4);
        let cases: Vec<(String, Option<&str>)> = vec![
            (format!(r#"{{"workspaceId":"{long_ok}"}}"#), None),
            (
                format!(r#"{{"workspaceId":"{too_long}"}}"#),
                Some("Invalid attached workspace identifier"),
            ),
            (
                r#"{"workspaceId":" -ws"}"#.into(),
                Some("Invalid attached workspace identifier"),
            ),
            (r#"{"workspaceId":"a.b:c_d-e"}"#.into(), None),
            (
                r#"{"workspaceId":"a/b"}"#.into(),
                Some("Invalid attached workspace identifier"),
            ),
            (r#"{"workspaceId":"   "}"#.into(), None),
            (
                r#"{"workspaceInstanceId":"abc"}"#.into(),
                Some("Invalid attached workspace instance identifier"),
            ),
            (
                format!(r#"{{"workspaceInstanceId":"{inst}"}}"#),
                Some("Invalid attached workspace instance identifier"),
            ),
            (
                format!(
                    r#"{{"workspaceId":"w","workspaceInstanceId":"{}"}}"#,
                    inst.to_uppercase()
                ),
                Some("Invalid attached workspace instance identifier"),
            ),
            (
                format!(r#"{{"workspaceId":"w","workspaceInstanceId":"\t{inst}\n"}}"#),
                None,
            ),
            (r#"{"workspaceInstanceId":"  "}"#.into(), None),
        ];
        for tool in ["bash_tool", "run_tools_with_bash"] {
            let args = r#"{"command":"x","code":"x"}"#;
            for (factory, want) in &cases {
                let got = build(Profile::V3_9, tool, factory, HELPER, args);
                match want {
                    None => assert!(got.is_ok(), "{tool} {factory}: {got:?}"),
                    Some(message) => {
                        let e = got.err().unwrap();
                        assert_eq!(e.code, ErrorCode::InvalidFactory, "{tool} {factory}");
                        assert_eq!(e.message, *message, "{tool} {factory}");
                    }
                }
                // 3.6 does not know these params.
                assert!(build(Profile::V3_6, tool, factory, HELPER, args).is_ok());
            }
        }
        let e = err(
            Profile::V3_9,
            "bash_tool",
            r#"{"workspaceId":5}"#,
            "{}",
            r#"{"command":"x"}"#,
        );
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidType, "factory.workspaceId")
        );
    }

    #[test]
    fn the_two_bash_factories_check_workspace_ids_in_opposite_orders() {
        let f = r#"{"workspaceId":"-","workspaceInstanceId":"x"}"#;
        let e = err(Profile::V3_9, "bash_tool", f, "{}", r#"{"command":"x"}"#);
        assert_eq!(e.message, "Invalid attached workspace instance identifier");
        let e = err(
            Profile::V3_9,
            "run_tools_with_bash",
            f,
            HELPER,
            r#"{"code":"x"}"#,
        );
        assert_eq!(e.message, "Invalid attached workspace identifier");
    }

    // ----- programmatic bodies

    #[test]
    fn programmatic_body_carries_session_tools_timeout_files_and_hint() {
        for p in BOTH {
            let r = ok(
                p,
                "run_tools_with_code",
                r#"{"runtimeSessionHint":"","proxy":"x","user_id":"u"}"#,
                r#"{"session_id":"prev","_injected_files":[{"id":"f"}],"_runtime_session_hint":"t",
                    "toolDefs":[{"name":"h","description":"d"}]}"#,
                r#"{"code":"h()","intent":"i","zz":1}"#,
            );
            assert_eq!(r.endpoint, "exec/programmatic");
            assert_eq!(
                body(&r),
                j(
                    r#"{"code":"h()","tools":[{"name":"h","description":"d"}],"session_id":"prev","timeout":15000,
                      "files":[{"id":"f"}],"runtime_session_hint":"t"}"#
                )
            );
            assert_eq!(
                keys(&r.body),
                [
                    "code",
                    "tools",
                    "session_id",
                    "timeout",
                    "files",
                    "runtime_session_hint"
                ]
            );
        }
    }

    #[test]
    fn programmatic_session_id_is_sent_as_injected() {
        for p in BOTH {
            let with_null = ok(
                p,
                "run_tools_with_code",
                "{}",
                r#"{"session_id":null,"toolDefs":[{"name":"h"}]}"#,
                r#"{"code":"x"}"#,
            );
            assert_eq!(with_null.body.get("session_id"), Some(&Value::Null));
            let empty = ok(
                p,
                "run_tools_with_bash",
                "{}",
                r#"{"session_id":"","toolDefs":[{"name":"h"}]}"#,
                r#"{"code":"x"}"#,
            );
            assert_eq!(empty.body.get("session_id"), Some(&j(r#""""#)));
            let none = ok(p, "run_tools_with_code", "{}", HELPER, r#"{"code":"x"}"#);
            assert!(!none.body.contains_key("session_id"));
        }
    }

    #[test]
    fn programmatic_hint_needs_no_stateful_flag_but_not_the_default_profile() {
        for p in BOTH {
            let call = r#"{"_runtime_session_hint":"thread-7","toolDefs":[{"name":"h"}]}"#;
            let r = ok(p, "run_tools_with_code", "{}", call, r#"{"code":"x"}"#);
            assert_eq!(
                r.body.get("runtime_session_hint"),
                Some(&j(r#""thread-7""#))
            );
            let r = ok(
                p,
                "run_tools_with_bash",
                r#"{"executionProfile":"default"}"#,
                call,
                r#"{"code":"x"}"#,
            );
            assert!(!r.body.contains_key("runtime_session_hint"));
            let r = ok(
                p,
                "run_tools_with_bash",
                r#"{"runtimeSessionHint":"f"}"#,
                call,
                r#"{"code":"x"}"#,
            );
            assert_eq!(r.body.get("runtime_session_hint"), Some(&j(r#""f""#)));
        }
    }

    #[test]
    fn bash_programmatic_code_is_guarded_from_3_9() {
        let new = ok(
            Profile::V3_9,
            "run_tools_with_bash",
            "{}",
            HELPER,
            r#"{"code":"ls"}"#,
        );
        assert_eq!(
            new.body.get("code"),
            Some(&Value::String(format!("{GUARD}ls")))
        );
        assert_eq!(keys(&new.body), ["lang", "code", "tools", "timeout"]);
        let old = ok(
            Profile::V3_6,
            "run_tools_with_bash",
            "{}",
            HELPER,
            r#"{"code":"ls"}"#,
        );
        assert_eq!(old.body.get("code"), Some(&j(r#""ls""#)));
    }

    #[test]
    fn bash_programmatic_with_workspace() {
        let inst = "f".repeat(64);
        let f = format!(
            r#"{{"workspaceId":"w","workspaceInstanceId":"{inst}","executionProfile":"stateful"}}"#
        );
        let r = ok(
            Profile::V3_9,
            "run_tools_with_bash",
            &f,
            r#"{"session_id":"s","toolDefs":[{"name":"h"}],"requestId":"q"}"#,
            r#"{"code":"x"}"#,
        );
        assert_eq!(
            keys(&r.body),
            [
                "lang",
                "code",
                "tools",
                "session_id",
                "timeout",
                "workspace_instance_id"
            ]
        );
        let names: Vec<&str> = r.headers.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "Content-Type",
                "User-Agent",
                WORKSPACE_HEADER,
                EXPECTED_PROFILE_HEADER,
                REQUEST_ID_HEADER
            ]
        );
        // Without tools it still stays on the programmatic route, with an empty tool list.
        let r = ok(
            Profile::V3_9,
            "run_tools_with_bash",
            r#"{"workspaceId":"w"}"#,
            "{}",
            r#"{"code":"x","tool_manifest":[]}"#,
        );
        assert_eq!(r.endpoint, "exec/programmatic");
        assert_eq!(
            body(&r),
            j(r#"{"lang":"bash","code":": &\nwait \"$!\"\nx","tools":[],"timeout":15000}"#)
        );
    }

    #[test]
    fn timeouts_are_validated_by_the_schema_then_clamped_to_the_cap() {
        let cases: [(&str, &str, Option<f64>); 10] = [
            ("{}", r#"{"code":"x"}"#, Some(15000.0)),
            ("{}", r#"{"code":"x","timeout":300000}"#, Some(15000.0)),
            ("{}", r#"{"code":"x","timeout":2000.0}"#, Some(2000.0)),
            ("{}", r#"{"code":"x","timeout":999}"#, None),
            ("{}", r#"{"code":"x","timeout":1000.5}"#, None),
            ("{}", r#"{"code":"x","timeout":300001}"#, None),
            (
                r#"{"runTimeoutMs":600000}"#,
                r#"{"code":"x","timeout":450000}"#,
                Some(450000.0),
            ),
            (
                r#"{"runTimeoutMs":2500.7}"#,
                r#"{"code":"x","timeout":3000}"#,
                Some(2500.0),
            ),
            (r#"{"runTimeoutMs":500}"#, r#"{"code":"x"}"#, Some(1000.0)),
            (
                r#"{"runTimeoutMs":null}"#,
                r#"{"code":"x","timeout":"5000"}"#,
                None,
            ),
        ];
        for p in BOTH {
            for (factory, args, want) in cases {
                let got = build(p, "run_tools_with_code", factory, HELPER, args);
                match want {
                    Some(t) => assert_eq!(
                        got.map(|r| r.body.get("timeout").cloned()),
                        Ok(Some(Value::Number(t))),
                        "{factory} {args}"
                    ),
                    None => assert_eq!(
                        got.err().map(|e| e.code),
                        Some(ErrorCode::InvalidModelArgs),
                        "{factory} {args}"
                    ),
                }
            }
        }
        let e = err(
            Profile::V3_9,
            "run_tools_with_code",
            r#"{"runTimeoutMs":"5000"}"#,
            HELPER,
            r#"{"code":"x"}"#,
        );
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidType, "factory.runTimeoutMs")
        );
    }

    // ----- tool selection

    #[test]
    fn manifest_selects_in_its_order() {
        for p in BOTH {
            let r = ok(
                p,
                "run_tools_with_code",
                "{}",
                r#"{"toolDefs":[{"name":"a"},{"name":"b"},{"name":"c"}],"disallowedToolDefs":[{"name":"d"}]}"#,
                r#"{"code":"x","tool_manifest":["b","a"]}"#,
            );
            assert_eq!(
                r.body.get("tools"),
                Some(&j(r#"[{"name":"b"},{"name":"a"}]"#))
            );
        }
    }

    #[test]
    fn tools_key_stands_in_for_tool_defs() {
        let r = ok(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":null,"tools":[{"name":"t"}]}"#,
            r#"{"code":"x"}"#,
        );
        assert_eq!(r.body.get("tools"), Some(&j(r#"[{"name":"t"}]"#)));
    }

    #[test]
    fn selection_errors_carry_the_sdk_messages() {
        let cases = [
            (
                r#"{"toolDefs":[{"name":"h"}],"disallowedToolDefs":[{"name":"d"}]}"#,
                r#"{"code":"x"}"#,
                "\"run_tools_with_code\" requires a tool_manifest when direct-only tools are configured. List every registered tool name used by the submitted code in the tool_manifest field.",
            ),
            (
                r#"{"toolDefs":[{"name":"h"}],"disallowedToolDefs":[{"name":"d"},{"name":"e"}]}"#,
                r#"{"code":"x","tool_manifest":["d","e","h"]}"#,
                "Tools \"d\", \"e\" cannot be called from \"run_tools_with_code\" because these tools are not marked for code_execution. Call them directly instead.",
            ),
            (
                r#"{"toolDefs":[{"name":"h"}],"disallowedToolDefs":[{"name":"d"}]}"#,
                r#"{"code":"x","tool_manifest":["d"]}"#,
                "Tool \"d\" cannot be called from \"run_tools_with_code\" because the tool is not marked for code_execution. Call it directly instead.",
            ),
            (
                r#"{"toolDefs":[{"name":"h"}]}"#,
                r#"{"code":"x","tool_manifest":["q","h"]}"#,
                "Tool \"q\" cannot be used by \"run_tools_with_code\" because it is not available for code_execution.",
            ),
            (
                r#"{"toolDefs":[{"name":"h"}]}"#,
                r#"{"code":"x","tool_manifest":["q","r"]}"#,
                "Tools \"q\", \"r\" cannot be used by \"run_tools_with_code\" because they are not available for code_execution.",
            ),
            (
                "{}",
                r#"{"code":"x"}"#,
                "No toolMap provided. ToolNode should inject this from AgentContext when invoked through the graph.",
            ),
        ];
        for p in BOTH {
            for (call, args, message) in cases {
                let e = err(p, "run_tools_with_code", "{}", call, args);
                assert_eq!(e.code, ErrorCode::ToolSelection, "{call} {args}");
                assert_eq!(e.message, message, "{call} {args}");
            }
        }
    }

    #[test]
    fn programmatic_tool_name_in_messages() {
        let call = r#"{"name":"","programmaticToolName":"PX","disallowedToolDefs":[{"name":"d"}],"toolDefs":[{"name":"h"}]}"#;
        let e = err(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            call,
            r#"{"code":"x"}"#,
        );
        assert!(
            e.message.starts_with("\"PX\" requires a tool_manifest"),
            "{}",
            e.message
        );
        let call =
            r#"{"name":"alias","disallowedToolDefs":[{"name":"d"}],"toolDefs":[{"name":"h"}]}"#;
        let e = err(
            Profile::V3_9,
            "run_tools_with_bash",
            "{}",
            call,
            r#"{"code":"x"}"#,
        );
        assert!(e.message.starts_with("\"alias\" requires"), "{}", e.message);
        let call = r#"{"name":"","disallowedToolDefs":[{"name":"d"}],"toolDefs":[{"name":"h"}]}"#;
        let e = err(
            Profile::V3_9,
            "run_tools_with_bash",
            "{}",
            call,
            r#"{"code":"x"}"#,
        );
        assert!(
            e.message.starts_with("\"run_tools_with_bash\" requires"),
            "{}",
            e.message
        );
    }

    #[test]
    fn ambiguous_identifiers_are_refused_from_3_9() {
        let py = r#"{"toolDefs":[{"name":"a-b"},{"name":"a_b"}]}"#;
        let e = err(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            py,
            r#"{"code":"x"}"#,
        );
        assert_eq!(e.code, ErrorCode::ToolSelection);
        assert_eq!(
            e.message,
            "Tools \"a-b\" and \"a_b\" both become \"a_b\" in the sandbox, so \"run_tools_with_code\" cannot tell which one the code means. Call them directly, or rename one."
        );
        // Only bash maps dots.
        let dots = r#"{"toolDefs":[{"name":"a.b"},{"name":"a_b"}]}"#;
        assert!(build(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            dots,
            r#"{"code":"x"}"#
        )
        .is_ok());
        let e = err(
            Profile::V3_9,
            "run_tools_with_bash",
            "{}",
            dots,
            r#"{"code":"x"}"#,
        );
        assert!(e.message.contains("both become \"a_b\""), "{}", e.message);
        // Repeated identical names are not ambiguous; 3.6 never checks.
        let same = r#"{"toolDefs":[{"name":"a"},{"name":"a"}]}"#;
        assert!(build(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            same,
            r#"{"code":"x"}"#
        )
        .is_ok());
        assert!(build(
            Profile::V3_6,
            "run_tools_with_code",
            "{}",
            py,
            r#"{"code":"x"}"#
        )
        .is_ok());
        // Only the selected tools count.
        assert!(build(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            py,
            r#"{"code":"x","tool_manifest":["a_b"]}"#
        )
        .is_ok());
    }

    #[test]
    fn identifier_normalisation() {
        assert_eq!(normalize_to_python_identifier("class"), "class_tool");
        assert_eq!(normalize_to_python_identifier("1abc"), "_1abc");
        assert_eq!(
            normalize_to_python_identifier("a b\u{FEFF}c-d.e!"),
            "a_b_c_de"
        );
        assert_eq!(normalize_to_bash_identifier("done"), "done_tool");
        assert_eq!(normalize_to_bash_identifier("my.tool"), "my_tool");
        assert_eq!(normalize_to_python_identifier("\u{85}x"), "x");
    }

    // ----- the no-tools path

    #[test]
    fn no_tools_runs_plain_exec_in_3_9_only() {
        let call = r#"{"session_id":"prev","_injected_files":[{"id":"f"}],"_runtime_session_hint":"h","toolDefs":[{"name":"h"}]}"#;
        let r = ok(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            call,
            "{\"code\":\"a\\n  \\n\\tb\\r\\n\",\"tool_manifest\":[]}",
        );
        assert_eq!(r.endpoint, "exec");
        let wrapped = "async def __user_main__():\n    \"\"\"Auto-generated wrapper for user code to support top-level await\"\"\"\n    a\n\n    \tb\r\n\n\nif __name__ == \"__main__\":\n    import asyncio\n    asyncio.run(__user_main__())\n";
        let mut want = Object::new();
        want.insert("lang", "py".into());
        want.insert("code", wrapped.into());
        want.insert("timeout", Value::Number(15000.0));
        want.insert("session_id", "prev".into());
        want.insert("files", j(r#"[{"id":"f"}]"#));
        want.insert("runtime_session_hint", "h".into());
        assert_eq!(r.body, want);

        let bash = ok(
            Profile::V3_9,
            "run_tools_with_bash",
            "{}",
            r#"{"session_id":""}"#,
            r#"{"code":"ls","tool_manifest":[]}"#,
        );
        assert_eq!(bash.endpoint, "exec");
        assert_eq!(
            body(&bash),
            j(r#"{"lang":"bash","code":"ls","timeout":15000}"#)
        );

        // An empty offer (what a ToolNode without code tools injects) also takes the plain route.
        let r = ok(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":[]}"#,
            r#"{"code":"x"}"#,
        );
        assert_eq!(r.endpoint, "exec");
        let r = ok(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            r#"{"disallowedToolDefs":[]}"#,
            r#"{"code":"x"}"#,
        );
        assert_eq!(r.endpoint, "exec");

        // 3.6 sends an empty tool list when definitions exist, and refuses when none do.
        let old = ok(
            Profile::V3_6,
            "run_tools_with_code",
            "{}",
            r#"{"session_id":"","toolDefs":[{"name":"h"}]}"#,
            r#"{"code":"x","tool_manifest":[]}"#,
        );
        assert_eq!(old.endpoint, "exec/programmatic");
        assert_eq!(
            body(&old),
            j(r#"{"code":"x","tools":[],"session_id":"","timeout":15000}"#)
        );
        let e = err(
            Profile::V3_6,
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":[]}"#,
            r#"{"code":"x","tool_manifest":[]}"#,
        );
        assert_eq!(e.code, ErrorCode::ToolSelection);
    }

    // ----- model arguments

    #[test]
    fn model_args_are_checked_against_each_schema() {
        let refused = [
            (
                "execute_code",
                r#"{"lang":"python","code":"x"}"#,
                "modelArgs.lang",
            ),
            ("execute_code", r#"{"lang":"py"}"#, "modelArgs.code"),
            ("execute_code", r#"{"code":"x"}"#, "modelArgs.lang"),
            (
                "execute_code",
                r#"{"lang":"py","code":5}"#,
                "modelArgs.code",
            ),
            (
                "execute_code",
                r#"{"lang":"py","code":"x","args":[1]}"#,
                "modelArgs.args[0]",
            ),
            (
                "execute_code",
                r#"{"lang":"py","code":"x","intent":5}"#,
                "modelArgs.intent",
            ),
            ("bash_tool", r#"{"args":["a"]}"#, "modelArgs.command"),
            (
                "bash_tool",
                r#"{"command":"x","args":null}"#,
                "modelArgs.args",
            ),
            ("run_tools_with_code", r#"{"code":""}"#, "modelArgs.code"),
            (
                "run_tools_with_bash",
                r#"{"code":"x","tool_manifest":["h","h"]}"#,
                "modelArgs.tool_manifest[1]",
            ),
            (
                "run_tools_with_code",
                r#"{"code":"x","tool_manifest":null}"#,
                "modelArgs.tool_manifest",
            ),
            (
                "run_tools_with_code",
                r#"{"code":"x","timeout":null}"#,
                "modelArgs.timeout",
            ),
        ];
        for p in BOTH {
            for (tool, args, path) in refused {
                let e = err(p, tool, "{}", HELPER, args);
                assert_eq!(
                    (e.code, e.path.as_str()),
                    (ErrorCode::InvalidModelArgs, path),
                    "{tool} {args}"
                );
            }
            // Only the programmatic schemas have minLength; undeclared keys are not checked.
            assert!(build(
                p,
                "execute_code",
                "{}",
                "{}",
                r#"{"lang":"py","code":"","timeout":"x","runtime_session_hint":5}"#
            )
            .is_ok());
            assert!(build(
                p,
                "bash_tool",
                "{}",
                "{}",
                r#"{"command":"","workspace_instance_id":7}"#
            )
            .is_ok());
        }
    }

    #[test]
    fn non_object_inputs_and_unknown_tools_are_refused() {
        let p = Profile::V3_9;
        let args = r#"{"lang":"py","code":"x"}"#;
        assert_eq!(err(p, "execute_code", "null", "{}", args).path, "factory");
        assert_eq!(err(p, "execute_code", "{}", "[]", args).path, "toolCall");
        let e = err(p, "execute_code", "{}", "{}", r#""x""#);
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidType, "modelArgs")
        );
        let e = err(p, "create_file", "{}", "{}", args);
        assert_eq!((e.code, e.path.as_str()), (ErrorCode::InvalidValue, "tool"));
        let e = err(p, "execute_code", "{}", r#"{"_injected_files":"f"}"#, args);
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidType, "toolCall._injected_files")
        );
        let e = err(
            p,
            "run_tools_with_code",
            "{}",
            r#"{"toolDefs":[{"name":1}]}"#,
            r#"{"code":"x"}"#,
        );
        assert_eq!(e.path, "toolCall.toolDefs[0].name");
        let e = err(p, "execute_code", r#"{"executionProfile":1}"#, "{}", args);
        assert_eq!(e.path, "factory.executionProfile");
    }

    // ----- answers

    #[test]
    fn execution_artifacts_carry_files_only_when_non_empty() {
        for p in BOTH {
            for tool in ["execute_code", "bash_tool"] {
                let a = artifact(
                    p,
                    tool,
                    "{}",
                    None,
                    r#"{"session_id":"s1","stdout":"ok","stderr":"","files":[{"id":"o1","name":"out.png"}]}"#,
                );
                assert_eq!(
                    a,
                    j(r#"{"session_id":"s1","files":[{"id":"o1","name":"out.png"}]}"#)
                );
                let a = artifact(
                    p,
                    tool,
                    "{}",
                    Some("exec"),
                    r#"{"session_id":"s1","files":[]}"#,
                );
                assert_eq!(a, j(r#"{"session_id":"s1"}"#));
                let a = artifact(p, tool, "{}", None, r#"{"stdout":"","files":null}"#);
                assert_eq!(a, j("{}"));
            }
        }
    }

    #[test]
    fn deletions_and_delivery_reports_are_3_9_only() {
        let resp = r#"{"session_id":"s","files":[],"runtime_session_id":"r","runtime_status":"new","deleted_files":[],
            "artifact_delivery":{"code":"artifact_delivery_failed","status":"failed","attempted":2,"delivered":0,"failed":2,"x":1}}"#;
        let new = artifact(Profile::V3_9, "execute_code", "{}", None, resp);
        assert_eq!(
            new,
            j(
                r#"{"session_id":"s","artifact_delivery":{"code":"artifact_delivery_failed","status":"failed","attempted":2,
                  "delivered":0,"failed":2},"deleted_files":[],"runtime_session_id":"r","runtime_status":"new"}"#
            )
        );
        let old = artifact(Profile::V3_6, "execute_code", "{}", None, resp);
        assert_eq!(
            old,
            j(r#"{"session_id":"s","runtime_session_id":"r","runtime_status":"new"}"#)
        );
        let Value::Object(new) = new else {
            unreachable!()
        };
        assert_eq!(
            keys(&new),
            [
                "session_id",
                "artifact_delivery",
                "deleted_files",
                "runtime_session_id",
                "runtime_status"
            ]
        );
        // A null deletion list is not echoed; 3.6 does not even look at a malformed one.
        let a = artifact(
            Profile::V3_9,
            "bash_tool",
            "{}",
            None,
            r#"{"session_id":"s","deleted_files":null,"runtime_session_id":null,"runtime_status":"new"}"#,
        );
        assert_eq!(a, j(r#"{"session_id":"s"}"#));
        assert!(read(
            Profile::V3_6,
            "execute_code",
            "{}",
            None,
            r#"{"deleted_files":"x"}"#
        )
        .is_ok());
    }

    #[test]
    fn artifact_delivery_normalisation() {
        let kept = [
            r#"{"code":"artifact_delivery_failed","status":"partial","attempted":3,"delivered":2,"failed":1,"detail":"d"}"#,
            r#"{"code":"artifact_delivery_failed","status":"failed","attempted":1,"delivered":0,"failed":1}"#,
        ];
        let dropped = [
            r#"{"code":"other","status":"partial","attempted":3,"delivered":2,"failed":1}"#,
            r#"{"code":"artifact_delivery_failed","status":"done","attempted":3,"delivered":2,"failed":1}"#,
            r#"{"code":"artifact_delivery_failed","status":"partial","attempted":3,"delivered":2,"failed":0}"#,
            r#"{"code":"artifact_delivery_failed","status":"partial","attempted":4,"delivered":2,"failed":1}"#,
            r#"{"code":"artifact_delivery_failed","status":"failed","attempted":3,"delivered":2,"failed":1}"#,
            r#"{"code":"artifact_delivery_failed","status":"partial","attempted":1,"delivered":0,"failed":1}"#,
            r#"{"code":"artifact_delivery_failed","status":"partial","attempted":3.5,"delivered":2.5,"failed":1}"#,
            r#"{"code":"artifact_delivery_failed","status":"partial","attempted":1,"delivered":-1,"failed":2}"#,
            r#"{"code":"artifact_delivery_failed","status":"partial","attempted":"3","delivered":2,"failed":1}"#,
            r#"[1]"#,
            r#""failed""#,
        ];
        for report in kept {
            let a = artifact(
                Profile::V3_9,
                "run_tools_with_code",
                "{}",
                None,
                &format!(r#"{{"status":"completed","artifact_delivery":{report}}}"#),
            );
            let got = a
                .as_object()
                .and_then(|o| o.get("artifact_delivery"))
                .and_then(Value::as_object)
                .map(|o| o.len());
            assert_eq!(got, Some(5), "{report}");
        }
        for report in dropped {
            let a = artifact(
                Profile::V3_9,
                "execute_code",
                "{}",
                None,
                &format!(r#"{{"artifact_delivery":{report}}}"#),
            );
            assert_eq!(a, j("{}"), "{report}");
        }
    }

    #[test]
    fn programmatic_artifacts_always_copy_files() {
        for p in BOTH {
            let a = artifact(
                p,
                "run_tools_with_code",
                "{}",
                None,
                r#"{"status":"completed","session_id":"p1","files":[]}"#,
            );
            assert_eq!(a, j(r#"{"session_id":"p1","files":[]}"#));
            let a = artifact(
                p,
                "run_tools_with_bash",
                "{}",
                None,
                r#"{"status":"completed","session_id":null,"files":null,"runtime_session_id":"r"}"#,
            );
            assert_eq!(
                a,
                j(r#"{"session_id":null,"files":null,"runtime_session_id":"r"}"#)
            );
        }
        let a = artifact(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            None,
            r#"{"status":"completed","session_id":"p","files":[],"deleted_files":["a.txt"],
            "artifact_delivery":{"code":"artifact_delivery_failed","status":"failed","attempted":1,"delivered":0,"failed":1}}"#,
        );
        let Value::Object(a) = a else { unreachable!() };
        assert_eq!(
            keys(&a),
            ["session_id", "files", "deleted_files", "artifact_delivery"]
        );
    }

    #[test]
    fn programmatic_status_decides_the_outcome() {
        for p in BOTH {
            assert_eq!(
                read(
                    p,
                    "run_tools_with_code",
                    "{}",
                    None,
                    r#"{"status":"tool_call_required","tool_calls":[]}"#
                ),
                Ok(ExecOutcome::ToolCallRequired)
            );
            let e = read(
                p,
                "run_tools_with_code",
                "{}",
                None,
                r#"{"status":"error","error":"Time limit exceeded","stderr":"boom"}"#,
            )
            .unwrap_err();
            assert_eq!(e.code, ErrorCode::SandboxError);
            assert_eq!(e.message, "Programmatic execution failed: Code execution failed. Execution exceeded the time limit.\n\nStderr:\nboom");
            let e = read(
                p,
                "run_tools_with_bash",
                "{}",
                Some("exec/programmatic"),
                r#"{"status":"weird"}"#,
            )
            .unwrap_err();
            assert_eq!(e.message, "Bash programmatic execution failed: Code execution is temporarily unavailable. Please retry.");
            let e = read(
                p,
                "run_tools_with_code",
                "{}",
                None,
                r#"{"session_id":"s"}"#,
            )
            .unwrap_err();
            assert_eq!(e.code, ErrorCode::SandboxError);
        }
        // The plain /exec fallback never looks at status.
        let a = artifact(
            Profile::V3_9,
            "run_tools_with_code",
            "{}",
            Some("exec"),
            r#"{"status":"error","session_id":"s"}"#,
        );
        assert_eq!(a, j(r#"{"session_id":"s"}"#));
        // 3.6 has no such route.
        let e = read(
            Profile::V3_6,
            "run_tools_with_code",
            "{}",
            Some("exec"),
            r#"{"session_id":"s"}"#,
        )
        .unwrap_err();
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidValue, "endpoint")
        );
    }

    #[test]
    fn attached_workspace_bash_requires_completed() {
        let ws = r#"{"workspaceId":"w"}"#;
        let e = read(
            Profile::V3_9,
            "bash_tool",
            ws,
            None,
            r#"{"status":"tool_call_required"}"#,
        )
        .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                ErrorCode::SandboxError,
                "Execution error:\n\nCode execution failed."
            )
        );
        let a = artifact(
            Profile::V3_9,
            "bash_tool",
            ws,
            Some("exec/programmatic"),
            r#"{"status":"completed","session_id":"s","files":[{"id":"a"}]}"#,
        );
        assert_eq!(a, j(r#"{"session_id":"s","files":[{"id":"a"}]}"#));
        assert!(read(Profile::V3_9, "bash_tool", ws, Some("exec"), "{}").is_err());
        // Without a workspace, or in 3.6, bash_tool never checks status.
        assert!(read(
            Profile::V3_6,
            "bash_tool",
            ws,
            None,
            r#"{"status":"error"}"#
        )
        .is_ok());
    }

    #[test]
    fn execution_error_details() {
        let cases = [
            (
                "Sandbox exited with code -12",
                "Code execution failed. Execution exited with code -12",
            ),
            (
                "Sandbox exited with code unknown",
                "Code execution failed. Execution exited with code unknown",
            ),
            ("Sandbox exited with code 12345", "Code execution failed."),
            ("Sandbox exited with code 1\n", "Code execution failed."),
            (
                "Sandbox requested an unregistered tool: evil",
                "Code execution failed. Generated code requested a tool that is not available.",
            ),
            (
                "Sandbox requested an unregistered tool: ",
                "Code execution failed.",
            ),
            (
                "Out of memory",
                "Code execution failed. Execution exceeded the memory limit.",
            ),
            ("toString", "Code execution failed."),
        ];
        for (error, want) in cases {
            let mut r = Object::new();
            r.insert("error", error.into());
            r.insert("stderr", "".into());
            assert_eq!(execution_error_message(&r), want, "{error:?}");
        }
    }

    #[test]
    fn malformed_answers_are_sandbox_errors() {
        let cases = [
            (r#"{"files":"ab"}"#, "response.files"),
            (r#"{"files":[1]}"#, "response.files[0]"),
            (r#"{"session_id":5}"#, "response.session_id"),
            (r#"{"deleted_files":"a"}"#, "response.deleted_files"),
            (r#"{"deleted_files":[1]}"#, "response.deleted_files[0]"),
        ];
        for (resp, path) in cases {
            let e = read(Profile::V3_9, "execute_code", "{}", None, resp).unwrap_err();
            assert_eq!(
                (e.code, e.path.as_str()),
                (ErrorCode::SandboxError, path),
                "{resp}"
            );
        }
        let e = read(Profile::V3_9, "execute_code", "{}", None, "[]").unwrap_err();
        assert_eq!(
            (e.code, e.path.as_str()),
            (ErrorCode::InvalidType, "response")
        );
    }
}
