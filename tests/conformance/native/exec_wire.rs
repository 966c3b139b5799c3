//! Native adapter of the `exec_wire` op: runs a vector's input through `core::wire` the way the SDK oracle
//! drives the real tools (`tools/sdk-oracle/drivers.cjs`, `execWire`), and compares the result the way
//! the oracle's `compare` does.
//! Included by path by the runner and by `tests/conformance_compare.rs`; both provide `support`.

use code_session_gate::core::config::Profile;

use super::support::{deep_equal, show};
use code_session_gate::core::value::{Object, Value};
use code_session_gate::core::wire::{
    build_exec_request, read_exec_response, ExecOutcome, PROGRAMMATIC_ENDPOINT,
};

fn member<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.as_object().and_then(|o| o.get(key))
}

fn object(entries: Vec<(&str, Value)>) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<Object>(),
    )
}

fn string(s: &str) -> Value {
    Value::String(s.to_owned())
}

/// The definition the oracle injects for the programmatic tools (it also injects a matching tool map,
/// which `core::wire` reads off non-empty definitions).
fn oracle_helper() -> Value {
    object(vec![
        ("name", string("oracle_helper")),
        ("description", string("oracle helper tool")),
        (
            "parameters",
            object(vec![
                ("type", string("object")),
                ("properties", object(Vec::new())),
            ]),
        ),
    ])
}

/// The oracle's canned answer when a vector gives none: a minimal success shaped for the route.
fn default_response(endpoint: &str) -> Value {
    let mut entries = Vec::new();
    if endpoint == PROGRAMMATIC_ENDPOINT {
        entries.push(("status", string("completed")));
    }
    entries.extend([
        ("session_id", string("oracle-wire")),
        ("stdout", string("ok")),
        ("stderr", string("")),
        ("files", Value::Array(Vec::new())),
    ]);
    object(entries)
}

/// Runs one `exec_wire` input: `{ body, endpoint, headers: {lowercased name: value}, artifact? }`.
pub fn run(input: &Value, profile: Profile) -> Result<Value, String> {
    let tool = member(input, "tool")
        .and_then(Value::as_str)
        .ok_or("input.tool must be a string")?;
    let empty = Value::Object(Object::new());
    let factory = member(input, "factory").unwrap_or(&empty);
    let model_args = member(input, "model_args").ok_or("input.model_args is missing")?;
    let mut tool_call = member(input, "tool_call")
        .cloned()
        .unwrap_or_else(|| empty.clone());
    if tool.starts_with("run_tools_with_") {
        if let Value::Object(call) = &mut tool_call {
            let has_defs = ["toolDefs", "tools"]
                .iter()
                .any(|k| call.get(k).is_some_and(|v| !v.is_null()));
            if !has_defs {
                call.insert("toolDefs", Value::Array(vec![oracle_helper()]));
            }
        }
    }

    let request = build_exec_request(profile, tool, factory, &tool_call, model_args)
        .map_err(|e| format!("build_exec_request failed: [{}] {e}", e.code.as_str()))?;
    let response = member(input, "response")
        .cloned()
        .unwrap_or_else(|| default_response(request.endpoint));
    let outcome = read_exec_response(profile, tool, factory, Some(request.endpoint), &response)
        .map_err(|e| format!("read_exec_response failed: [{}] {e}", e.code.as_str()))?;

    let headers: Object = request
        .headers
        .iter()
        .map(|(name, value)| (name.to_ascii_lowercase(), Value::String(value.clone())))
        .collect();
    let mut out = vec![
        ("body", Value::Object(request.body)),
        ("endpoint", string(request.endpoint)),
        ("headers", Value::Object(headers)),
    ];
    if let ExecOutcome::Completed { artifact } = outcome {
        out.push(("artifact", Value::Object(artifact)));
    }
    Ok(object(out))
}

/// The oracle's `exec_wire` comparison: `includes` (deep equality per key), `excludes`, `endpoint`,
/// `headers` (case-insensitive names; `null` = must be absent) and `artifact` (deep equality; a missing
/// artifact compares as `null`). Returns one line per difference.
pub fn compare(expect: &Value, actual: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    let empty = Object::new();
    let body = member(actual, "body")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(includes) = member(expect, "includes").and_then(Value::as_object) {
        for (k, want) in includes.iter() {
            match body.get(k) {
                None => lines.push(format!("body.{k}: expected {}, real <absent>", show(want))),
                Some(real) if !deep_equal(want, real) => lines.push(format!(
                    "body.{k}: expected {}, real {}",
                    show(want),
                    show(real)
                )),
                Some(_) => {}
            }
        }
    }
    for k in member(expect, "excludes")
        .and_then(Value::as_array)
        .unwrap_or_default()
    {
        let Some(k) = k.as_str() else { continue };
        if let Some(real) = body.get(k) {
            lines.push(format!("body.{k}: expected <absent>, real {}", show(real)));
        }
    }
    if let Some(want) = member(expect, "endpoint") {
        let real = member(actual, "endpoint");
        if real != Some(want) {
            lines.push(format!(
                "endpoint: expected {}, real {}",
                show(want),
                real.map_or("<absent>".to_owned(), show)
            ));
        }
    }
    if let Some(headers) = member(expect, "headers").and_then(Value::as_object) {
        let real_headers = member(actual, "headers")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        for (name, want) in headers.iter() {
            let real = real_headers.get(&name.to_ascii_lowercase());
            match (want, real) {
                (Value::Null, Some(r)) => lines.push(format!(
                    "header {name}: expected <absent>, real {}",
                    show(r)
                )),
                (Value::Null, None) => {}
                (w, Some(r)) if w == r => {}
                (w, r) => lines.push(format!(
                    "header {name}: expected {}, real {}",
                    show(w),
                    r.map_or("<absent>".to_owned(), show)
                )),
            }
        }
    }
    if let Some(want) = member(expect, "artifact") {
        let real = member(actual, "artifact").unwrap_or(&Value::Null);
        if !deep_equal(want, real) {
            lines.push(format!(
                "artifact: expected {}, real {}",
                show(want),
                show(real)
            ));
        }
    }
    lines
}
