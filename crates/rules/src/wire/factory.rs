//! The tool factory params, validated, with the values the tools consult pulled out (the execution
//! profile, the stateful flag, the hint, the programmatic timeout cap, an attached workspace).

use super::identifiers::js_trim;
use super::{ExecTool, DEFAULT_RUN_TIMEOUT_MS, MIN_RUN_TIMEOUT_MS};
use crate::config::Profile;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, Json, JsonMap};

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
    pub(super) params: &'a JsonMap,
    pub(super) execution_profile: Option<&'a str>,
    pub(super) stateful_sessions: bool,
    pub(super) runtime_session_hint: Option<&'a str>,
    pub(super) run_timeout_cap: f64,
    pub(super) workspace: Option<Workspace>,
}

impl<'a> Factory<'a> {
    pub(super) fn read(
        profile: Profile,
        tool: ExecTool,
        v: &'a Json,
        path: &Path<'_>,
    ) -> GateResult<Factory<'a>> {
        let params = v
            .as_object()
            .ok_or_else(|| GateError::expected(path, "an object", json::type_name(v)))?;
        let execution_profile = optional_str(params, "executionProfile", path)?;
        if let Some(p) = execution_profile {
            super::check_header_value(p, &path.key("executionProfile"))?;
        }
        let runtime_session_hint = optional_str(params, "runtimeSessionHint", path)?;
        // Only the programmatic tools read runTimeoutMs; the others spread it into the body untouched.
        let run_timeout_cap = if tool.is_programmatic() {
            match params.get("runTimeoutMs") {
                None | Some(Json::Null) => DEFAULT_RUN_TIMEOUT_MS,
                Some(Json::Number(n)) => {
                    normalize_timeout(json::number_value(n)).unwrap_or(DEFAULT_RUN_TIMEOUT_MS)
                }
                Some(other) => {
                    return Err(GateError::expected(
                        &path.key("runTimeoutMs"),
                        "a number",
                        json::type_name(other),
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
            stateful_sessions: params.get("statefulSessions") == Some(&Json::Bool(true)),
            runtime_session_hint,
            run_timeout_cap,
            workspace,
        })
    }

    /// `selectRuntimeSessionHint`: a non-empty factory hint wins over the injected one; the result counts
    /// only when non-empty.
    pub(super) fn chosen_hint<'b>(&'b self, injected: Option<&'b str>) -> Option<&'b str> {
        match self.runtime_session_hint {
            Some(h) if !h.is_empty() => Some(h),
            _ => injected.filter(|h| !h.is_empty()),
        }
    }

    pub(super) fn profile_is_default(&self) -> bool {
        self.execution_profile == Some("default")
    }
}

/// The SDK factory order matters for which message a doubly-bad config gets: `bash_tool` checks the
/// instance id before the workspace id, `run_tools_with_bash` the other way round.
pub(super) fn read_workspace(
    tool: ExecTool,
    params: &JsonMap,
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

/// A string under `key`, with `null` and absence both meaning "not set" (the SDK's `??` / `?.`).
pub(super) fn optional_str<'a>(
    obj: &'a JsonMap,
    key: &str,
    path: &Path<'_>,
) -> GateResult<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s)),
        Some(other) => Err(GateError::expected(
            &path.key(key),
            "a string",
            json::type_name(other),
        )),
    }
}
