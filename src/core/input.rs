//! Readers for the host-facing inputs of the gate's operations (tool calls, results, outcomes, seeds).
//! They check shapes and nothing else; the names are those of the JavaScript API and of the SDK's
//! objects (`toolCallId`, `codeSessionKey`, …).

use super::batch::{EventCall, HostAnswer};
use super::config::{expect_object, expect_str};
use super::error::{GateError, GateResult, Path};
use super::fold::{DirectOutcome, Status, ToolResult};
use super::seed::SeedAgent;
use super::session::SessionMap;
use super::value::{Object, Value};

fn items<'v>(v: &'v Value, path: &Path<'_>, what: &str) -> GateResult<&'v [Value]> {
    v.as_array()
        .ok_or_else(|| GateError::expected(path, what, v.type_name()))
}

/// Reads every item of an array of objects with `read` (refusing a non-array or a non-object item).
fn each_object<T>(
    v: &Value,
    path: &Path<'_>,
    what: &str,
    read: impl Fn(&Object, &Path<'_>, usize) -> GateResult<T>,
) -> GateResult<Vec<T>> {
    let list = items(v, path, what)?;
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let at = path.index(i);
        out.push(read(expect_object(item, &at)?, &at, i)?);
    }
    Ok(out)
}

/// An optional string member (`undefined`/absent → `None`; `null` refused unless `null_ok`).
pub fn opt_string(obj: &Object, key: &str, path: &Path<'_>) -> GateResult<Option<String>> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(GateError::expected(
            &path.key(key),
            "a string",
            other.type_name(),
        )),
    }
}

fn opt_bool(obj: &Object, key: &str, path: &Path<'_>) -> GateResult<bool> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(GateError::expected(
            &path.key(key),
            "a boolean",
            other.type_name(),
        )),
    }
}

fn status(obj: &Object, path: &Path<'_>) -> GateResult<Status> {
    let at = path.key("status");
    let s = expect_str(
        obj.get("status").ok_or_else(|| GateError::missing(&at))?,
        &at,
    )?;
    Status::parse(s).ok_or_else(|| {
        GateError::new(
            super::error::ErrorCode::InvalidValue,
            &at,
            format!("expected \"success\" or \"error\", got {s:?}"),
        )
    })
}

fn required_string(obj: &Object, key: &str, path: &Path<'_>) -> GateResult<String> {
    let at = path.key(key);
    expect_str(obj.get(key).ok_or_else(|| GateError::missing(&at))?, &at).map(str::to_owned)
}

/// `[{ id?, name, args? }]`: the calls of an event batch or a prestart. Absent args read as `null`,
/// which the planner treats as invalid, like `undefined` upstream.
pub fn read_event_calls(v: &Value, path: &Path<'_>) -> GateResult<Vec<EventCall>> {
    each_object(v, path, "an array of tool calls", |obj, at, _| {
        Ok(EventCall {
            id: opt_string(obj, "id", at)?,
            name: required_string(obj, "name", at)?,
            args: obj.get("args").cloned().unwrap_or(Value::Null),
        })
    })
}

/// `[{ id?, name }]`: the calls of a direct batch.
pub fn read_direct_calls(v: &Value, path: &Path<'_>) -> GateResult<Vec<(Option<String>, String)>> {
    each_object(v, path, "an array of tool calls", |obj, at, _| {
        Ok((
            opt_string(obj, "id", at)?,
            required_string(obj, "name", at)?,
        ))
    })
}

/// `[{ toolCallId, status, artifact? }]`: the host's results (`ToolExecuteResult`).
pub fn read_tool_results(v: &Value, path: &Path<'_>) -> GateResult<Vec<ToolResult>> {
    each_object(v, path, "an array of tool results", |obj, at, _| {
        Ok(ToolResult {
            tool_call_id: required_string(obj, "toolCallId", at)?,
            status: status(obj, at)?,
            artifact: obj.get("artifact").cloned(),
        })
    })
}

/// `[{ name: string | null, status, artifact? }]`: results folded without a batch (`name: null` = the
/// request was not found). Each gets the id `r<index>`.
pub fn read_named_results(
    v: &Value,
    path: &Path<'_>,
) -> GateResult<Vec<(Option<String>, ToolResult)>> {
    each_object(v, path, "an array of results", |obj, at, i| {
        let name = match obj.get("name") {
            Some(Value::Null) => None,
            _ => Some(required_string(obj, "name", at)?),
        };
        Ok((
            name,
            ToolResult {
                tool_call_id: format!("r{i}"),
                status: status(obj, at)?,
                artifact: obj.get("artifact").cloned(),
            },
        ))
    })
}

/// `[{ id?, name, status, artifact?, errorHandlerOwned?, isCommand? }]`: completed in-process calls.
pub fn read_direct_outcomes(v: &Value, path: &Path<'_>) -> GateResult<Vec<DirectOutcome>> {
    each_object(v, path, "an array of outcomes", |obj, at, _| {
        Ok(DirectOutcome {
            id: opt_string(obj, "id", at)?,
            name: required_string(obj, "name", at)?,
            status: status(obj, at)?,
            artifact: obj.get("artifact").cloned(),
            error_handler_owned: opt_bool(obj, "errorHandlerOwned", at)?,
            is_command: opt_bool(obj, "isCommand", at)?,
        })
    })
}

/// `{ results?, rejected? }`: how the host answered a dispatch.
pub fn read_host_answer(obj: &Object, path: &Path<'_>) -> GateResult<HostAnswer> {
    if opt_bool(obj, "rejected", path)? {
        return Ok(HostAnswer::Rejected);
    }
    match obj.get("results") {
        None | Some(Value::Null) => Ok(HostAnswer::Resolved(Vec::new())),
        Some(v) => Ok(HostAnswer::Resolved(read_tool_results(
            v,
            &path.key("results"),
        )?)),
    }
}

/// `[{ codeSessionKey?, initialSessions? }]`: the agents of a run or of a subagent child plan.
pub fn read_seed_agents(v: &Value, path: &Path<'_>) -> GateResult<Vec<SeedAgent>> {
    each_object(v, path, "an array of agents", |obj, at, _| {
        let initial_sessions = match obj.get("initialSessions") {
            None | Some(Value::Null) => None,
            Some(pairs) => Some(SessionMap::from_pairs(pairs, &at.key("initialSessions"))?),
        };
        Ok(SeedAgent {
            code_session_key: opt_string(obj, "codeSessionKey", at)?,
            initial_sessions,
        })
    })
}

/// The `now` of a writing call: a finite number of milliseconds (the gate never reads a clock).
pub fn read_now(obj: &Object, path: &Path<'_>) -> GateResult<f64> {
    let at = path.key("now");
    match obj.get("now") {
        Some(Value::Number(n)) if n.is_finite() => Ok(*n),
        Some(Value::Number(_)) => Err(GateError::new(
            super::error::ErrorCode::InvalidValue,
            &at,
            "expected a finite number of milliseconds",
        )),
        Some(other) => Err(GateError::expected(&at, "a number", other.type_name())),
        None => Err(GateError::missing(&at)),
    }
}
