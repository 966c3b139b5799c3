//! Conformance adapter for `plan_request` vectors: maps a vector's input (`ops.plan_request` of
//! `vectors.json`) onto `core::plan::build_request_plan` and returns the vector's expect shape:
//! `{aborted: true}` or `{aborted: false, all_requests: [{id, args?, fields}], rejected_ids}`, with
//! `args` reported only when the input names `tool_schemas`.

use code_session_gate::core::config::Profile;
use code_session_gate::core::plan::{build_request_plan, InvalidArgsBehavior, PlanCall};
use code_session_gate::core::value::{Object, Value};

/// Runs one `plan_request` input under `profile`; `Err` describes an input the adapter cannot map.
pub fn run(input: &Value, profile: Profile) -> Result<Value, String> {
    let input = input
        .as_object()
        .ok_or("plan_request: input is not an object")?;
    let behavior = match input.get("invalid_args_behavior") {
        None => InvalidArgsBehavior::Abort,
        Some(Value::String(s)) if s == "abort" => InvalidArgsBehavior::Abort,
        Some(Value::String(s)) if s == "error-result" => InvalidArgsBehavior::ErrorResult,
        Some(other) => {
            return Err(format!(
                "plan_request: unknown invalid_args_behavior {other:?}"
            ))
        }
    };
    let schemas = match input.get("tool_schemas") {
        None => None,
        Some(Value::Object(o)) => Some(o),
        Some(other) => {
            return Err(format!(
                "plan_request: tool_schemas is not an object: {other:?}"
            ))
        }
    };
    let calls = input
        .get("calls")
        .and_then(Value::as_array)
        .ok_or("plan_request: calls is not an array")?
        .iter()
        .map(read_call)
        .collect::<Result<Vec<_>, String>>()?;
    let lookup = |name: &str| schemas.and_then(|s| s.get(name));
    let plan = build_request_plan(profile, calls, behavior, &lookup)
        .map_err(|e| format!("plan_request: {e}"))?;
    let mut out = Object::new();
    let Some(requests) = plan else {
        out.insert("aborted", Value::Bool(true));
        return Ok(Value::Object(out));
    };
    let mut all = Vec::with_capacity(requests.len());
    let mut rejected = Vec::new();
    for r in requests {
        let mut fields = Object::new();
        if let Some(ctx) = r.code_session_context {
            fields.insert("codeSessionContext", ctx);
        }
        if let Some(hint) = r.runtime_session_hint {
            fields.insert("runtimeSessionHint", Value::String(hint));
        }
        if r.rejected {
            rejected.push(Value::String(r.id.clone()));
        }
        let mut req = Object::new();
        req.insert("id", Value::String(r.id));
        if schemas.is_some() {
            req.insert("args", Value::Object(r.args));
        }
        req.insert("fields", Value::Object(fields));
        all.push(Value::Object(req));
    }
    out.insert("aborted", Value::Bool(false));
    out.insert("all_requests", Value::Array(all));
    out.insert("rejected_ids", Value::Array(rejected));
    Ok(Value::Object(out))
}

/// A vector call: `{id?, name, args?, codeSessionContext?, runtimeSessionHint?}`; null counts as absent
/// for the id and the session fields, as the SDK's `== null` checks have it.
fn read_call(v: &Value) -> Result<PlanCall<Value>, String> {
    let call = v
        .as_object()
        .ok_or("plan_request: a call is not an object")?;
    let opt_string = |key: &str| match call.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "plan_request: call {key} is not a string: {other:?}"
        )),
    };
    Ok(PlanCall {
        id: opt_string("id")?,
        name: opt_string("name")?.ok_or("plan_request: a call has no name")?,
        args: call.get("args").cloned().unwrap_or(Value::Null),
        code_session_context: call
            .get("codeSessionContext")
            .filter(|c| !c.is_null())
            .cloned(),
        runtime_session_hint: opt_string("runtimeSessionHint")?,
    })
}
