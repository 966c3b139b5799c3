//! The tool factory params, validated, with the values the tools consult pulled out (the execution
//! profile, the stateful flag, the hint, the programmatic timeout cap, an attached workspace).

use super::identifiers::js_trim;
use super::{ExecTool, DEFAULT_RUN_TIMEOUT_MS, MIN_RUN_TIMEOUT_MS};
use crate::config::Profile;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, Members, Raw, Str};

/// The tool factory params as plain data: the keys the tools read. `execute_code` and `bash_tool`
/// spread every key they do not consume into the request body, as the SDK does (`session_id`,
/// `user_id`, `files` and anything else, in their order). `authHeaders` is stripped and never
/// reported: the host adds its own auth headers (functions cannot be passed). `baseUrl` is stripped
/// too; the host owns it.
// Read by the reader of the SDK's spread objects (`json::read_spread`: no key policy, every member
// kept), each member kept as its JSON text until `Factory::read` reads it.
#[derive(Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ExecToolFactoryParams<'a> {
    /// Only `true` lets `execute_code` / `bash_tool` send a runtime hint.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(optional, type = "unknown"))]
    stateful_sessions: Option<Raw<'a>>,
    /// Sent as `X-CodeAPI-Expected-Profile`; `"default"` also suppresses the runtime hint.
    #[serde(default, borrow)]
    #[cfg_attr(
        feature = "typescript",
        tsify(type = "\"default\" | \"stateful\" | (string & {}) | null")
    )]
    execution_profile: Option<Raw<'a>>,
    /// A non-empty factory hint wins over the injected `_runtime_session_hint`.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    runtime_session_hint: Option<Raw<'a>>,
    /// 3.9 bash tools: the attached workspace (trimmed; `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    workspace_id: Option<Raw<'a>>,
    /// 3.9 bash tools: 64 lowercase hex characters, only with a workspace.
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "string | null"))]
    workspace_instance_id: Option<Raw<'a>>,
    /// Programmatic tools: the per-run timeout cap in ms (default 15000; the CODE_API_RUN_TIMEOUT_MS
    /// env is not read).
    #[serde(default, borrow)]
    #[cfg_attr(feature = "typescript", tsify(type = "number | null"))]
    run_timeout_ms: Option<Raw<'a>>,
}

crate::from_members!(ExecToolFactoryParams {
    stateful_sessions,
    execution_profile,
    runtime_session_hint,
    workspace_id,
    workspace_instance_id,
    run_timeout_ms,
});

/// A validated attached workspace (3.9 bash tools).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Workspace {
    /// Trimmed, pattern-checked.
    pub(super) id: String,
    /// Trimmed, 64 lowercase hex characters.
    pub(super) instance_id: Option<String>,
}

/// The factory params, validated, with the values the tools consult pulled out.
pub(super) struct Factory<'a> {
    /// Every param, in order: the direct tools spread those they do not consume.
    pub(super) members: Members<'a>,
    pub(super) execution_profile: Option<Str<'a>>,
    pub(super) stateful_sessions: bool,
    pub(super) runtime_session_hint: Option<Str<'a>>,
    pub(super) run_timeout_cap: f64,
    pub(super) workspace: Option<Workspace>,
}

impl<'a> Factory<'a> {
    /// The params `raw` (checked by `json::check_deep`; `None`: none), read for `tool` under
    /// `profile`.
    pub(super) fn read(
        profile: Profile,
        tool: ExecTool,
        raw: Option<Raw<'a>>,
        path: &Path<'_>,
    ) -> GateResult<Factory<'a>> {
        let json::Spread {
            named: params,
            members,
        } = match raw {
            Some(raw) => json::read_spread::<ExecToolFactoryParams<'a>>(raw, path, "an object")?,
            None => json::Spread::default(),
        };
        let execution_profile = optional_str(params.execution_profile, "executionProfile", path)?;
        if let Some(p) = &execution_profile {
            super::check_header_value(p, &path.key("executionProfile"))?;
        }
        let runtime_session_hint =
            optional_str(params.runtime_session_hint, "runtimeSessionHint", path)?;
        // Only the programmatic tools read runTimeoutMs; the others spread it into the body untouched.
        let run_timeout_cap = match params.run_timeout_ms {
            Some(n) if tool.is_programmatic() => match json::raw_type_name(n) {
                // A JSON number's text, read as `JSON.parse` reads it (correctly rounded).
                "number" => n
                    .get()
                    .parse::<f64>()
                    .ok()
                    .and_then(normalize_timeout)
                    .unwrap_or(DEFAULT_RUN_TIMEOUT_MS),
                other => {
                    return Err(GateError::expected(
                        &path.key("runTimeoutMs"),
                        "a number",
                        other,
                    ))
                }
            },
            _ => DEFAULT_RUN_TIMEOUT_MS,
        };
        let workspace = if tool.knows_workspaces(profile) {
            read_workspace(tool, &params, path)?
        } else {
            None
        };
        Ok(Factory {
            members,
            execution_profile,
            // Only boolean true: the SDK compares with `=== true`.
            stateful_sessions: params.stateful_sessions.is_some_and(json::is_true),
            runtime_session_hint,
            run_timeout_cap,
            workspace,
        })
    }

    /// `selectRuntimeSessionHint`: a non-empty factory hint wins over the injected one; the result counts
    /// only when non-empty.
    pub(super) fn chosen_hint<'b>(&'b self, injected: Option<&'b str>) -> Option<&'b str> {
        match self.runtime_session_hint.as_deref() {
            Some(h) if !h.is_empty() => Some(h),
            _ => injected.filter(|h| !h.is_empty()),
        }
    }

    pub(super) fn profile_is_default(&self) -> bool {
        self.execution_profile.as_deref() == Some("default")
    }
}

/// The SDK factory order matters for which message a doubly-bad config gets: `bash_tool` checks the
/// instance id before the workspace id, `run_tools_with_bash` the other way round.
fn read_workspace(
    tool: ExecTool,
    params: &ExecToolFactoryParams<'_>,
    path: &Path<'_>,
) -> GateResult<Option<Workspace>> {
    let id_path = path.key("workspaceId");
    let id = optional_str(params.workspace_id, "workspaceId", path)?;
    let id = id.as_deref().map(js_trim).filter(|s| !s.is_empty());
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
    let instance = optional_str(params.workspace_instance_id, "workspaceInstanceId", path)?;
    let instance = instance.as_deref().map(js_trim).filter(|s| !s.is_empty());
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
pub(super) fn is_valid_workspace_id(id: &str) -> bool {
    let mut chars = id.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && id.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'))
}

/// `^[a-f0-9]{64}$`.
pub(super) fn is_valid_instance_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| matches!(b, b'a'..=b'f' | b'0'..=b'9'))
}

/// `normalizeTimeoutMs`: finite numbers only, floored, at least one second.
pub(super) fn normalize_timeout(n: f64) -> Option<f64> {
    n.is_finite().then(|| n.floor().max(MIN_RUN_TIMEOUT_MS))
}

/// The member `key` (kept as `raw`; `null` is none: the SDK's `??` / `?.`) as a string.
pub(super) fn optional_str<'a>(
    raw: Option<Raw<'a>>,
    key: &str,
    path: &Path<'_>,
) -> GateResult<Option<Str<'a>>> {
    match raw.map(|r| (r, json::raw_type_name(r))) {
        None | Some((_, "null")) => Ok(None),
        Some((r, "string")) => json::decode(r.get(), key).map(Some),
        Some((_, other)) => Err(GateError::expected(&path.key(key), "a string", other)),
    }
}
