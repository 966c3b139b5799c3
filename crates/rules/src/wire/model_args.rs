//! Model arguments: the checks langchain's JSON-schema validator (@cfworker/json-schema) applies to each
//! tool's declared schema. Undeclared keys pass unchecked, as the schemas allow additional properties.

use super::factory::normalize_timeout;
use super::{ExecTool, MAX_RUN_TIMEOUT_SCHEMA_MS, MIN_RUN_TIMEOUT_MS, SUPPORTED_LANGUAGES};
use crate::error::{ErrorCode, GateError, GateResult, Path};
use crate::json::{self, Json, JsonMap};

// tool's declared schema. Undeclared keys pass unchecked, as the schemas allow additional properties.

pub(super) fn check_model_args<'a>(
    tool: ExecTool,
    cap: f64,
    v: &'a Json,
    path: &Path<'_>,
) -> GateResult<&'a JsonMap> {
    let args = v
        .as_object()
        .ok_or_else(|| GateError::expected(path, "an object", json::type_name(v)))?;
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

pub(super) fn bad_arg(path: &Path<'_>, message: impl Into<String>) -> GateError {
    GateError::new(ErrorCode::InvalidModelArgs, path, message)
}

/// A declared string property: present values must be strings; `required` ones must be present.
pub(super) fn arg_string<'a>(
    args: &'a JsonMap,
    key: &str,
    required: bool,
    path: &Path<'_>,
) -> GateResult<Option<&'a str>> {
    match args.get(key) {
        None if required => Err(bad_arg(&path.key(key), "is required")),
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s)),
        Some(other) => Err(bad_arg(
            &path.key(key),
            format!("expected a string, got {}", json::type_name(other)),
        )),
    }
}

/// A declared `array` of `string` property (optional in every schema that has one).
pub(super) fn arg_string_array<'a>(
    args: &'a JsonMap,
    key: &str,
    path: &Path<'_>,
) -> GateResult<Option<Vec<&'a str>>> {
    let Some(v) = args.get(key) else {
        return Ok(None);
    };
    let at = path.key(key);
    let Json::Array(items) = v else {
        return Err(bad_arg(
            &at,
            format!("expected an array of strings, got {}", json::type_name(v)),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str().ok_or_else(|| {
                bad_arg(
                    &at.index(i),
                    format!("expected a string, got {}", json::type_name(item)),
                )
            })
        })
        .collect::<GateResult<Vec<&str>>>()
        .map(Some)
}

/// `timeout`: an integer in `[1000, max(cap, 300000)]` (the schema's bounds; the cap itself is applied
/// afterwards by clamping, not by refusing).
pub(super) fn check_timeout_arg(args: &JsonMap, cap: f64, path: &Path<'_>) -> GateResult<()> {
    let Some(v) = args.get("timeout") else {
        return Ok(());
    };
    let at = path.key("timeout");
    let Json::Number(n) = v else {
        return Err(bad_arg(
            &at,
            format!("expected an integer, got {}", json::type_name(v)),
        ));
    };
    let n = &json::number_value(n);
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
pub(super) fn clamp_timeout(args: &JsonMap, cap: f64) -> f64 {
    match args.get("timeout") {
        Some(Json::Number(n)) => {
            normalize_timeout(json::number_value(n)).map_or(cap, |t| t.min(cap))
        }
        _ => cap,
    }
}
