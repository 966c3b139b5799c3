//! Answers and artifacts: what each tool makes of the sandbox's answer (the artifact the session fold
//! reads) and the SDK's error texts for a failed execution.

use crate::config::Profile;
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, Json, JsonMap};

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

pub(super) fn build_artifact(
    profile: Profile,
    shape: Shape,
    r: &JsonMap,
    path: &Path<'_>,
) -> GateResult<JsonMap> {
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

    let mut a = JsonMap::new();
    if let Some(s) = session_id {
        a.insert("session_id".into(), s.clone());
    }
    match shape {
        Shape::Execution => {
            if let Some(f @ Json::Array(items)) = files {
                if !items.is_empty() {
                    a.insert("files".into(), f.clone());
                }
            }
            if let Some(d) = delivery {
                a.insert("artifact_delivery".into(), Json::Object(d));
            }
            if let Some(d) = deleted {
                a.insert("deleted_files".into(), d.clone());
            }
        }
        Shape::Programmatic => {
            if let Some(f) = files {
                a.insert("files".into(), f.clone());
            }
            if let Some(d) = deleted {
                a.insert("deleted_files".into(), d.clone());
            }
            if let Some(d) = delivery {
                a.insert("artifact_delivery".into(), Json::Object(d));
            }
        }
    }
    match r.get("runtime_session_id") {
        None | Some(Json::Null) => {}
        Some(id) => {
            a.insert("runtime_session_id".into(), id.clone());
            if let Some(status) = r.get("runtime_status") {
                a.insert("runtime_status".into(), status.clone());
            }
        }
    }
    Ok(a)
}

/// `normalizeArtifactDeliveryFailure`: a failure report is kept (with only its five keys) when it is
/// internally consistent; anything else is dropped silently.
pub(super) fn normalize_artifact_delivery(v: Option<&Json>) -> Option<JsonMap> {
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
    if !consistent {
        return None;
    }
    let mut out = JsonMap::new();
    out.insert("code".into(), "artifact_delivery_failed".into());
    out.insert("status".into(), status.into());
    out.insert("attempted".into(), json::number_from_f64(attempted));
    out.insert("delivered".into(), json::number_from_f64(delivered));
    out.insert("failed".into(), json::number_from_f64(failed));
    Some(out)
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
