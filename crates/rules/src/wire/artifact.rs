//! Answers and artifacts: what each tool makes of the sandbox's answer (the artifact the session fold
//! reads) and the SDK's error texts for a failed execution.

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::config::Profile;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, Json, JsonMap};

/// What a sandbox answer means for the tool: its artifact, or `tool_call_required`, a programmatic
/// round trip the host continues itself.
// Written as `readExecResponse`'s answer; its declaration is derived from the variants.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub enum ExecResponseOutcome<'r> {
    /// The execution finished: the tool returns this artifact (the one the session fold reads).
    Completed {
        /// `{session_id, files, …}` shaped per tool and profile.
        artifact: ExecArtifact<'r>,
    },
    /// `tool_call_required`: the programmatic sandbox asks for tool results, so the round trip is not
    /// finished, and the host continues it (running the requested tools and posting
    /// `{continuation_token, tool_results}`).
    ToolCallRequired {},
}

/// The artifact a code tool returns; the session fold reads it.
// Written in the order of its tool's shape (`Serialize` below): the direct tools put the delivery
// report before the deletions, the programmatic ones after.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ExecArtifact<'r> {
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string | null"))]
    session_id: Option<&'r Json>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "FileRef[] | null"))]
    files: Option<&'r Json>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "string[]"))]
    deleted_files: Option<&'r Json>,
    #[cfg_attr(feature = "typescript", tsify(optional))]
    artifact_delivery: Option<ArtifactDeliveryFailure<'r>>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "unknown"))]
    runtime_session_id: Option<&'r Json>,
    #[cfg_attr(feature = "typescript", tsify(optional, type = "unknown"))]
    runtime_status: Option<&'r Json>,
    // Not a member: tsify leaves out what serde skips.
    #[cfg_attr(feature = "typescript", serde(skip))]
    shape: Shape,
}

impl Serialize for ExecArtifact<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let delivery = self.artifact_delivery.as_ref();
        let (early, late) = match self.shape {
            Shape::Execution => (delivery, None),
            Shape::Programmatic => (None, delivery),
        };
        let mut map = s.serialize_map(None)?;
        if let Some(v) = self.session_id {
            map.serialize_entry("session_id", v)?;
        }
        if let Some(v) = self.files {
            map.serialize_entry("files", v)?;
        }
        if let Some(v) = early {
            map.serialize_entry("artifact_delivery", v)?;
        }
        if let Some(v) = self.deleted_files {
            map.serialize_entry("deleted_files", v)?;
        }
        if let Some(v) = late {
            map.serialize_entry("artifact_delivery", v)?;
        }
        if let Some(v) = self.runtime_session_id {
            map.serialize_entry("runtime_session_id", v)?;
        }
        if let Some(v) = self.runtime_status {
            map.serialize_entry("runtime_status", v)?;
        }
        map.end()
    }
}

/// A normalised `artifact_delivery` failure report (3.9).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(tsify::Tsify))]
pub struct ArtifactDeliveryFailure<'r> {
    #[cfg_attr(feature = "typescript", tsify(type = "\"artifact_delivery_failed\""))]
    code: &'static str,
    #[cfg_attr(feature = "typescript", tsify(type = "\"partial\" | \"failed\""))]
    status: &'r str,
    // Each count written as JavaScript writes a number (`2`, never `2.0`).
    #[serde(serialize_with = "js_number")]
    attempted: f64,
    #[serde(serialize_with = "js_number")]
    delivered: f64,
    #[serde(serialize_with = "js_number")]
    failed: f64,
}

/// A count as `JSON.stringify` writes it.
fn js_number<S: Serializer>(n: &f64, s: S) -> Result<S::Ok, S::Error> {
    json::number_from_f64(*n).serialize(s)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `execute_code` / `bash_tool`: `files` only when non-empty.
    Execution,
    /// The programmatic tools: `files` always copied.
    Programmatic,
}

pub(super) fn sandbox_error(path: &Path<'_>, message: impl Into<String>) -> GateError {
    GateError::new(ErrorCode::SandboxError, path, message)
}

/// `r[key]` when absent, `null`, or an array whose every item passes `item_ok`; a sandbox error naming
/// the offending item or value otherwise.
pub(super) fn answer_list<'v>(
    r: &'v JsonMap,
    key: &str,
    path: &Path<'_>,
    item_ok: fn(&Json) -> bool,
    item: &str,
    list: &str,
) -> GateResult<Option<&'v Json>> {
    let at = path.key(key);
    match r.get(key) {
        v @ (None | Some(Json::Null)) => Ok(v),
        Some(v @ Json::Array(items)) => match items.iter().position(|x| !item_ok(x)) {
            None => Ok(Some(v)),
            Some(i) => {
                let bad = items.get(i).map_or("nothing", json::type_name);
                Err(sandbox_error(
                    &at.index(i),
                    format!("expected {item}, got {bad}"),
                ))
            }
        },
        Some(other) => Err(sandbox_error(
            &at,
            format!("expected {list}, got {}", json::type_name(other)),
        )),
    }
}

pub(super) fn build_artifact<'r>(
    profile: Profile,
    shape: Shape,
    r: &'r JsonMap,
    path: &Path<'_>,
) -> GateResult<ExecArtifact<'r>> {
    let session_id = match r.get("session_id") {
        v @ (None | Some(Json::String(_) | Json::Null)) => v,
        Some(other) => {
            return Err(sandbox_error(
                &path.key("session_id"),
                format!("expected a string, got {}", json::type_name(other)),
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
    let (deleted_files, artifact_delivery) = if profile.is_3_9() {
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
    let files = match shape {
        // The direct tools keep a non-empty list only.
        Shape::Execution => files.filter(|f| f.as_array().is_some_and(|items| !items.is_empty())),
        Shape::Programmatic => files,
    };
    let runtime_session_id = r.get("runtime_session_id").filter(|id| !id.is_null());
    Ok(ExecArtifact {
        session_id,
        files,
        deleted_files,
        artifact_delivery,
        runtime_session_id,
        runtime_status: runtime_session_id.and_then(|_| r.get("runtime_status")),
        shape,
    })
}

/// `normalizeArtifactDeliveryFailure`: a failure report is kept (with only its five keys) when it is
/// internally consistent; anything else is dropped silently.
pub(super) fn normalize_artifact_delivery(v: Option<&Json>) -> Option<ArtifactDeliveryFailure<'_>> {
    let report = v?.as_object()?;
    let count = |key: &str| match report.get(key) {
        Some(Json::Number(n)) => {
            let n = json::number_value(n);
            (n.is_finite() && n.fract() == 0.0 && n >= 0.0).then_some(n)
        }
        _ => None,
    };
    let (attempted, delivered, failed) =
        (count("attempted")?, count("delivered")?, count("failed")?);
    let status = report.get("status").and_then(Json::as_str)?;
    let consistent = report.get("code").and_then(Json::as_str) == Some("artifact_delivery_failed")
        && matches!(status, "partial" | "failed")
        && failed != 0.0
        && attempted == delivered + failed
        && !(status == "failed" && delivered != 0.0)
        && !(status == "partial" && delivered == 0.0);
    consistent.then_some(ArtifactDeliveryFailure {
        code: "artifact_delivery_failed",
        status,
        attempted,
        delivered,
        failed,
    })
}

/// `buildCodeApiExecutionErrorMessage`: a fixed sentence, a safe detail for the sandbox errors the SDK
/// recognises, and the sandbox's stderr.
pub(super) fn execution_error_message(r: &JsonMap) -> String {
    let mut message = String::from("Code execution failed.");
    if let Some(detail) = r
        .get("error")
        .and_then(Json::as_str)
        .and_then(safe_error_detail)
    {
        message.push(' ');
        message.push_str(&detail);
    }
    if let Some(stderr) = r
        .get("stderr")
        .and_then(Json::as_str)
        .filter(|s| !s.is_empty())
    {
        message.push_str("\n\nStderr:\n");
        message.push_str(stderr);
    }
    message
}

pub(super) fn safe_error_detail(error: &str) -> Option<String> {
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
